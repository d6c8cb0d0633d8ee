package spec

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// applyOverrides sets each command-line override ("key.path=value", as
// Hydra users write them) in root, in order, before the sweep is read, so
// that an overridden value is checked exactly like one written in the file
// and changes the points' identity (pointID hashes the resolved tree).
//
//   - The value is YAML: 1.2, true, "=2*epochs", [1, 2, 4], {kind: mlp}.
//   - A bare name that is not a top-level key is a declared variable
//     (epochs=30 sets vars.epochs), as in sweep keys.
//   - sweep.grid.KEY=[…] and sweep.zip.KEY=[…] set a sweep axis; KEY is
//     taken whole, so it may itself be a dotted path
//     (sweep.grid.dpsgd.noise_multiplier=[1, 2]).
//   - A key that the file sweeps is fixed to the override's value (the
//     command line wins); it stays a column of the summary.
//
// Every node of an override carries Pos{Override: i+1}, so errors about it
// name the override instead of a line of the file.
func applyOverrides(root *Node, overrides []string, e *errs) {
	for i, o := range overrides {
		pos := Pos{Override: i + 1}
		key, text, ok := strings.Cut(o, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			e.add(pos, "", "an override is key.path=value (e.g. dpsgd.noise_multiplier=1.2)")
			continue
		}
		val, err := overrideValue(text)
		if err != nil {
			e.add(pos, key, "%v", err)
			continue
		}
		setPos(val, pos)
		if err := setOverride(root, key, val); err != nil {
			e.add(pos, key, "%v", err)
		}
	}
}

// overrideValue reads the text after '=' as a YAML value.
func overrideValue(text string) (*Node, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("no value after '=' (write key=value; quote an empty string as key='\"\"')")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("cannot read %q as a YAML value: %s", text, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("cannot read %q as a YAML value", text)
	}
	c := &converter{file: "override"}
	n := c.convert(doc.Content[0], 0, "")
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("%s", c.errs[0].Msg)
	}
	return n, nil
}

// setOverride stores val at key in root (see applyOverrides).
func setOverride(root *Node, key string, val *Node) error {
	for _, block := range []string{"grid", "zip"} {
		if axis, ok := strings.CutPrefix(key, "sweep."+block+"."); ok {
			sweep := child(root, "sweep", val.Pos)
			if sweep == nil {
				return fmt.Errorf("sweep is not a mapping")
			}
			axes := child(sweep, block, val.Pos)
			if axes == nil {
				return fmt.Errorf("sweep.%s is not a mapping", block)
			}
			axes.Set(axis, val, val.Pos)
			return nil
		}
	}
	p, err := parsePath(key)
	if err != nil {
		return err
	}
	if len(p) == 1 && infoOf(typeExperiment).field(p[0].Key) == nil && root.Get("vars").Get(p[0].Key) != nil {
		p = append(specPath{{Key: "vars"}}, p...)
	}
	if err := setPath(root, p, val); err != nil {
		return err
	}
	unsweep(root, p, val)
	return nil
}

// child returns the mapping at key k of n, creating it when absent; nil
// when the key holds something else.
func child(n *Node, k string, pos Pos) *Node {
	c := n.Get(k)
	if c == nil || (c.Kind == ScalarNode && c.Value == nil && c.Expr == "") {
		c = &Node{Kind: MapNode, Pos: pos}
		n.Set(k, c, pos)
	}
	if c.Kind != MapNode {
		return nil
	}
	return c
}

// unsweep fixes the sweep axes of p to the override's value: a grid axis
// becomes the one value, a zip axis the value repeated (its lists keep
// their common length). The key stays a column of the summary, so the
// figures and the points' columns of the file still find it. Axes inside
// an overridden block keep sweeping within it.
func unsweep(root *Node, p specPath, val *Node) {
	sweep := root.Get("sweep")
	for _, block := range []string{"grid", "zip"} {
		axes := sweep.Get(block)
		if axes == nil || axes.Kind != MapNode {
			continue
		}
		for i, k := range axes.Keys {
			ap, err := sweepKeyPath(root, k)
			if err != nil || ap.String() != p.String() {
				continue
			}
			n := 1
			if block == "zip" && axes.Vals[i].Kind == ListNode {
				n = len(axes.Vals[i].Items)
			}
			fixed := &Node{Kind: ListNode, Pos: val.Pos}
			for range n {
				fixed.Items = append(fixed.Items, val.Clone())
			}
			axes.Vals[i] = fixed
		}
	}
}
