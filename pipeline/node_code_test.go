package pipeline

import (
	"context"
	"sync"
	"testing"
)

// A node with its own code fingerprint keys on it instead of the
// process-wide one: changing node c's code replans c (code changed, with
// the caller's explanation as the note) and what consumes it (input
// changed), and leaves a, b and d cached; the meta records c's code.
func TestNodeCodeKeysOnlyThatNode(t *testing.T) {
	defer SetCodeFingerprint(CodeFingerprint())
	SetCodeFingerprint("global")
	root := t.TempDir()
	s := initStore(t, root)
	var counts sync.Map
	build := func(code string) *Graph {
		g := countingGraph(&counts, "x", 0)
		for _, n := range g.Nodes() {
			if n.Kind == "c" {
				n.Code, n.key = code, ""
			}
		}
		// e's key was computed from c's old key: rebuild the graph's keys.
		out := NewGraph()
		for _, n := range g.Nodes() {
			n.key = ""
			out.Add(n)
		}
		return out
	}
	g := build("c-code-1")
	steps := Plan(g, s, nil)
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s, nil); err != nil {
		t.Fatal(err)
	}
	RecordSlots(steps, s)
	if m, err := s.ReadMeta(g.Nodes()[2].Key()); err != nil || m.Code != "c-code-1" {
		t.Fatalf("meta of c: %+v, %v", m, err)
	}
	if m, err := s.ReadMeta(g.Nodes()[0].Key()); err != nil || m.Code != "global" {
		t.Fatalf("meta of a: %+v, %v", m, err)
	}
	g2 := build("c-code-2")
	steps = PlanWith(g2, s, PlanOptions{ExplainCode: func(old, new string) string { return old + " → " + new }})
	want := map[string][2]string{
		"a": {string(Cached), ""}, "b": {string(Cached), ""}, "d": {string(Cached), ""},
		"c": {string(Run), ReasonCode}, "e": {string(Run), ReasonInput},
	}
	for _, st := range steps {
		w := want[st.Node.Kind]
		if string(st.Status) != w[0] || st.Reason != w[1] {
			t.Errorf("%s: %s %q, want %s %q", st.Node.Kind, st.Status, st.Reason, w[0], w[1])
		}
		if st.Node.Kind == "c" && st.Note != "c-code-1 → c-code-2" {
			t.Errorf("c: note %q, want the explanation of the code change", st.Note)
		}
	}
}
