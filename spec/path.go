package spec

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// seg is one step of a spec path: a map key or a list index.
type seg struct {
	Key   string
	Index int // used when Key == ""
}

type specPath []seg

func (p specPath) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.Key == "" {
			fmt.Fprintf(&b, "[%d]", s.Index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// hasPrefix reports whether q is a prefix of p.
func (p specPath) hasPrefix(q specPath) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

var (
	identRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pathSegRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)((?:\[[0-9]+\])*)$`)
	indexRE   = regexp.MustCompile(`\[([0-9]+)\]`)
)

// parsePath reads "bound[0].pld_interval" or "dpsgd.noise_multiplier".
func parsePath(s string) (specPath, error) {
	if s == "" {
		return nil, fmt.Errorf("empty path")
	}
	var p specPath
	for _, part := range strings.Split(s, ".") {
		m := pathSegRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%q is not a valid path (write keys separated by '.', list items as [i])", s)
		}
		p = append(p, seg{Key: m[1]})
		for _, im := range indexRE.FindAllStringSubmatch(m[2], -1) {
			i, _ := strconv.Atoi(im[1])
			p = append(p, seg{Index: i})
		}
	}
	return p, nil
}

// getPath returns the node at p, or nil.
func getPath(root *Node, p specPath) *Node {
	n := root
	for _, s := range p {
		if n == nil {
			return nil
		}
		if s.Key != "" {
			n = n.Get(s.Key)
			continue
		}
		if n.Kind != ListNode || s.Index >= len(n.Items) {
			return nil
		}
		n = n.Items[s.Index]
	}
	return n
}

// setPath stores v at p, creating missing mappings on the way. A missing
// list item is an error.
func setPath(root *Node, p specPath, v *Node) error {
	n := root
	for i, s := range p {
		last := i == len(p)-1
		if s.Key != "" {
			if n.Kind != MapNode {
				return fmt.Errorf("%s is not a mapping", p[:i])
			}
			if last {
				n.Set(s.Key, v, v.Pos)
				return nil
			}
			next := n.Get(s.Key)
			if next == nil || (next.Kind == ScalarNode && next.Value == nil && next.Expr == "") {
				next = &Node{Kind: MapNode, Pos: v.Pos}
				if p[i+1].Key == "" {
					return fmt.Errorf("%s has no item %d", p[:i+1], p[i+1].Index)
				}
				n.Set(s.Key, next, v.Pos)
			}
			n = next
			continue
		}
		if n.Kind != ListNode || s.Index >= len(n.Items) {
			return fmt.Errorf("%s has no item %d", p[:i], s.Index)
		}
		if last {
			n.Items[s.Index] = v
			return nil
		}
		n = n.Items[s.Index]
	}
	return nil
}

var typeExperiment = reflect.TypeOf(Experiment{})

// checkTypePath verifies that p names a field of the spec types. For a
// union, the branch selected in root is used when known, else any branch.
// It returns the Go type at p and, for a struct field, its fieldInfo.
func checkTypePath(root *Node, p specPath) (reflect.Type, *fieldInfo, error) {
	t := typeExperiment
	var fi *fieldInfo
	for i, s := range p {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if s.Key == "" {
			if t.Kind() != reflect.Slice {
				return nil, nil, fmt.Errorf("%s is not a list", p[:i])
			}
			t = t.Elem()
			continue
		}
		if t == typeAnyMap {
			if !identRE.MatchString(s.Key) {
				return nil, nil, fmt.Errorf("%q is not a valid variable name", s.Key)
			}
			return reflect.TypeOf((*any)(nil)).Elem(), nil, nil
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeOf(SweepAxis{}) {
			return nil, nil, fmt.Errorf("%s has no field %q", p[:i], s.Key)
		}
		si := infoOf(t)
		if f := si.field(s.Key); f != nil {
			t, fi = f.Type, f
			continue
		}
		if si.Discriminator != nil {
			var cands []string
			var found *fieldInfo
			kind := ""
			if kn := getPath(root, append(append(specPath(nil), p[:i]...), seg{Key: si.Discriminator.Key})); kn != nil {
				kind, _ = kn.Value.(string)
			}
			for _, br := range si.Branches {
				if kind != "" && br.Kind != kind {
					continue
				}
				bi := infoOf(br.Type)
				cands = append(cands, keysOf(bi)...)
				if f := bi.field(s.Key); f != nil && found == nil {
					found = f
				}
			}
			if found != nil {
				t, fi = found.Type, found
				continue
			}
			return nil, nil, fmt.Errorf("%s has no field %q%s", p[:i], s.Key, suggest(s.Key, append(cands, keysOf(si)...)))
		}
		return nil, nil, fmt.Errorf("%s has no field %q%s", pathOrTop(p[:i]), s.Key, suggest(s.Key, keysOf(si)))
	}
	return t, fi, nil
}

func pathOrTop(p specPath) string {
	if len(p) == 0 {
		return "the spec"
	}
	return p.String()
}
