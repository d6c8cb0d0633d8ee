package spec

import (
	"reflect"
	"sync"
)

// applyDefaults fills absent keys that have a default, in every block that
// is present. It runs before expressions are evaluated, so expressions see
// defaulted values (e.g. dpsgd.delta).
func applyDefaults(n *Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && t != reflect.TypeOf(SweepAxis{}):
		if n == nil || n.Kind != MapNode {
			return
		}
		si := infoOf(t)
		fillStruct(n, si)
		if si.Discriminator != nil {
			kind, _ := n.Get(si.Discriminator.Key).scalarString()
			if br := si.branch(kind); br != nil {
				fillStruct(n, infoOf(br.Type))
			}
		}
	case t.Kind() == reflect.Slice && t != typeSweepAxes:
		if n == nil || n.Kind != ListNode {
			return
		}
		for _, it := range n.Items {
			applyDefaults(it, t.Elem())
		}
	}
}

func fillStruct(n *Node, si *structInfo) {
	for _, fi := range si.Fields {
		v := n.Get(fi.Key)
		if v == nil && fi.Default != "" {
			d := defaultNode(fi.Default)
			setPos(d, n.Pos)
			n.Set(fi.Key, d, n.Pos)
			continue
		}
		if v != nil {
			applyDefaults(v, fi.Type)
		}
	}
}

func (n *Node) scalarString() (string, bool) {
	if n == nil || n.Kind != ScalarNode {
		return "", false
	}
	s, ok := n.Value.(string)
	return s, ok
}

var (
	defaultsMu    sync.Mutex
	defaultsCache = map[string]*Node{}
)

// defaultNode parses a default tag (YAML text) into a fresh node.
func defaultNode(text string) *Node {
	defaultsMu.Lock()
	defer defaultsMu.Unlock()
	n, ok := defaultsCache[text]
	if !ok {
		root, errs := parseYAML("default", []byte("v: "+text))
		if len(errs) > 0 {
			panic("spec: bad default tag " + text)
		}
		n = root.Get("v")
		defaultsCache[text] = n
	}
	return n.Clone()
}

func setPos(n *Node, p Pos) {
	n.Pos = p
	for i := range n.KeyPos {
		n.KeyPos[i] = p
	}
	for _, v := range n.Vals {
		setPos(v, p)
	}
	for _, v := range n.Items {
		setPos(v, p)
	}
}
