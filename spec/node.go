package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Pos is a position in a spec file (1-based). A value given on the
// command line (Options.Overrides) has no line: Override is its 1-based
// index among the overrides, and errors name the override instead.
type Pos struct {
	Line, Col int
	Override  int
}

// NodeKind is the shape of a Node.
type NodeKind int

const (
	ScalarNode NodeKind = iota
	MapNode
	ListNode
)

// Node is the generic, position-carrying form of a spec document. Sweep
// substitution and expression evaluation happen on Nodes; the typed
// Experiment is decoded from the result.
type Node struct {
	Kind NodeKind
	Pos  Pos

	// MapNode: keys in file order.
	Keys   []string
	KeyPos []Pos
	Vals   []*Node

	// ListNode.
	Items []*Node

	// ScalarNode: Value is nil, bool, int64, float64 or string. Expr is set
	// (without the leading '=') when the scalar is an expression.
	Value any
	Expr  string
}

// Get returns the value of key k in a map node, or nil.
func (n *Node) Get(k string) *Node {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	for i, key := range n.Keys {
		if key == k {
			return n.Vals[i]
		}
	}
	return nil
}

// Set sets key k of a map node, appending it when absent.
func (n *Node) Set(k string, v *Node, pos Pos) {
	for i, key := range n.Keys {
		if key == k {
			n.Vals[i] = v
			return
		}
	}
	n.Keys = append(n.Keys, k)
	n.KeyPos = append(n.KeyPos, pos)
	n.Vals = append(n.Vals, v)
}

// Clone deep-copies a node.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Kind == MapNode {
		c.Keys = append([]string(nil), n.Keys...)
		c.KeyPos = append([]Pos(nil), n.KeyPos...)
		c.Vals = make([]*Node, len(n.Vals))
		for i, v := range n.Vals {
			c.Vals[i] = v.Clone()
		}
	}
	if n.Kind == ListNode {
		c.Items = make([]*Node, len(n.Items))
		for i, v := range n.Items {
			c.Items[i] = v.Clone()
		}
	}
	return &c
}

// Describe names the node's type for error messages.
func (n *Node) Describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case MapNode:
		return "a mapping"
	case ListNode:
		return "a list"
	}
	if n.Expr != "" {
		return "an expression"
	}
	switch v := n.Value.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case string:
		return fmt.Sprintf("the string %q", v)
	}
	return "a value"
}

// Interface converts a node to plain Go values (map[string]any, []any,
// scalars), the form expressions see.
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case MapNode:
		m := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			m[k] = n.Vals[i].Interface()
		}
		return m
	case ListNode:
		l := make([]any, len(n.Items))
		for i, v := range n.Items {
			l[i] = v.Interface()
		}
		return l
	}
	if n.Expr != "" {
		return nil
	}
	return n.Value
}

// FromValue builds a node from a plain Go value (an expression result).
func FromValue(v any, pos Pos) (*Node, error) {
	switch x := v.(type) {
	case nil:
		return &Node{Kind: ScalarNode, Pos: pos}, nil
	case bool, string:
		return &Node{Kind: ScalarNode, Pos: pos, Value: x}, nil
	case int:
		return &Node{Kind: ScalarNode, Pos: pos, Value: int64(x)}, nil
	case int64:
		return &Node{Kind: ScalarNode, Pos: pos, Value: x}, nil
	case int32:
		return &Node{Kind: ScalarNode, Pos: pos, Value: int64(x)}, nil
	case float32:
		return &Node{Kind: ScalarNode, Pos: pos, Value: float64(x)}, nil
	case float64:
		return &Node{Kind: ScalarNode, Pos: pos, Value: x}, nil
	case []any:
		n := &Node{Kind: ListNode, Pos: pos}
		for _, e := range x {
			c, err := FromValue(e, pos)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, c)
		}
		return n, nil
	case []float64:
		n := &Node{Kind: ListNode, Pos: pos}
		for _, e := range x {
			n.Items = append(n.Items, &Node{Kind: ScalarNode, Pos: pos, Value: e})
		}
		return n, nil
	case []int:
		n := &Node{Kind: ListNode, Pos: pos}
		for _, e := range x {
			n.Items = append(n.Items, &Node{Kind: ScalarNode, Pos: pos, Value: int64(e)})
		}
		return n, nil
	case map[string]any:
		return nil, fmt.Errorf("an expression may not produce a mapping")
	}
	return nil, fmt.Errorf("unsupported expression result of type %T", v)
}

// maxNodes bounds the size of a document after alias expansion, so that an
// alias bomb ("billion laughs") is refused instead of exhausting memory.
const maxNodes = 200000

// parseYAML parses a spec file into a Node tree. Anchors and aliases are
// expanded (with a budget), merge keys are refused, and multi-document
// files are an error.
func parseYAML(file string, data []byte) (*Node, Errors) {
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return nil, Errors{{File: file, Pos: Pos{Line: 1, Col: 1}, Msg: "the file is empty"}}
		}
		return nil, Errors{yamlError(file, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: file, Pos: Pos{Line: extra.Line, Col: extra.Column}, Msg: "a spec holds one YAML document; found a second one ('---')"}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, Errors{{File: file, Pos: Pos{Line: 1, Col: 1}, Msg: "the file is empty"}}
	}
	c := &converter{file: file}
	root := c.convert(doc.Content[0], 0, "")
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	if root.Kind != MapNode {
		return nil, Errors{{File: file, Pos: root.Pos, Msg: "a spec must be a mapping of keys (name, dpsgd, …), got " + root.Describe()}}
	}
	return root, nil
}

type converter struct {
	file  string
	nodes int
	errs  Errors
}

// convert turns a YAML node into a Node; path is its spec path (for error
// messages: "dpsgd.noise_multiplier: NaN is not a valid value").
func (c *converter) convert(y *yaml.Node, depth int, path string) *Node {
	c.nodes++
	pos := Pos{Line: y.Line, Col: y.Column}
	if c.nodes > maxNodes || depth > 100 {
		if len(c.errs) == 0 {
			c.errs = append(c.errs, Error{File: c.file, Pos: pos, Msg: fmt.Sprintf("the document expands to more than %d nodes or is nested deeper than 100 levels (an alias bomb?); refusing it", maxNodes)})
		}
		return &Node{Kind: ScalarNode, Pos: pos}
	}
	switch y.Kind {
	case yaml.AliasNode:
		// Converting the anchor again yields a fresh copy; the node budget
		// counts every copy, which is what stops an alias bomb.
		return c.convert(y.Alias, depth+1, path)
	case yaml.MappingNode:
		n := &Node{Kind: MapNode, Pos: pos}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			kp := Pos{Line: k.Line, Col: k.Column}
			if k.Tag == "!!merge" {
				c.errs = append(c.errs, Error{File: c.file, Pos: kp, Msg: "merge keys ('<<') are not supported; write the keys out or use an alias for the whole block"})
				continue
			}
			if k.Kind != yaml.ScalarNode {
				c.errs = append(c.errs, Error{File: c.file, Pos: kp, Msg: "keys must be plain strings"})
				continue
			}
			if containsKey(n.Keys, k.Value) {
				c.errs = append(c.errs, Error{File: c.file, Pos: kp, Msg: fmt.Sprintf("duplicate key %q", k.Value)})
				continue
			}
			n.Keys = append(n.Keys, k.Value)
			n.KeyPos = append(n.KeyPos, kp)
			kpath := k.Value
			if path != "" {
				kpath = path + "." + k.Value
			}
			n.Vals = append(n.Vals, c.convert(v, depth+1, kpath))
		}
		return n
	case yaml.SequenceNode:
		n := &Node{Kind: ListNode, Pos: pos}
		for i, e := range y.Content {
			n.Items = append(n.Items, c.convert(e, depth+1, fmt.Sprintf("%s[%d]", path, i)))
		}
		return n
	case yaml.ScalarNode:
		return c.scalar(y, pos, path)
	}
	c.errs = append(c.errs, Error{File: c.file, Pos: pos, Msg: "unsupported YAML node"})
	return &Node{Kind: ScalarNode, Pos: pos}
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// scalar resolves a YAML scalar with the YAML 1.2 core schema (as yaml.v3
// does) and recognises expressions: a string that starts with '=' is an
// expression; '==' escapes a literal string starting with '='.
func (c *converter) scalar(y *yaml.Node, pos Pos, path string) *Node {
	n := &Node{Kind: ScalarNode, Pos: pos}
	switch y.ShortTag() {
	case "!!null":
		return n
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: err.Error()})
		}
		n.Value = b
		return n
	case "!!int":
		var i int64
		if err := y.Decode(&i); err != nil {
			// Too large for int64: keep it as a float.
			f, ferr := strconv.ParseFloat(y.Value, 64)
			if ferr != nil {
				c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: fmt.Sprintf("cannot read %q as a number", y.Value)})
			}
			n.Value = f
			return n
		}
		n.Value = i
		return n
	case "!!float":
		var f float64
		if err := y.Decode(&f); err != nil {
			c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: fmt.Sprintf("cannot read %q as a number", y.Value)})
		}
		if math.IsNaN(f) {
			c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: "NaN is not a valid value"})
		}
		n.Value = f
		return n
	case "!!str":
		s := y.Value
		if y.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && strings.HasPrefix(s, "=") {
			if strings.HasPrefix(s, "==") {
				n.Value = s[1:]
				return n
			}
			n.Expr = strings.TrimSpace(s[1:])
			if n.Expr == "" {
				c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: "empty expression after '='"})
			}
			return n
		}
		n.Value = s
		return n
	}
	c.errs = append(c.errs, Error{File: c.file, Pos: pos, Path: path, Msg: fmt.Sprintf("unsupported YAML tag %s", y.ShortTag())})
	return n
}

// yamlError turns a yaml.v3 syntax error ("yaml: line 7: ...") into a
// positioned Error.
func yamlError(file string, err error) Error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if strings.HasPrefix(msg, "line ") {
		rest := msg[len("line "):]
		if i := strings.Index(rest, ":"); i > 0 {
			if l, perr := strconv.Atoi(rest[:i]); perr == nil {
				line = l
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return Error{File: file, Pos: Pos{Line: line, Col: 1}, Msg: "malformed YAML: " + msg}
}
