package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chainGraph is src → use, each writing out.txt; use copies its input.
func chainGraph(tag string) (*Graph, *Node, *Node) {
	g := NewGraph()
	src := g.Add(&Node{Kind: "src", Version: 1, Params: map[string]any{"tag": tag}, Slot: "v/src/" + tag, Run: writeValue("src " + tag)})
	use := g.Add(&Node{Kind: "use", Version: 1, Params: map[string]any{}, Inputs: []*Node{src}, Slot: "v/use/" + tag,
		Run: func(_ context.Context, w *Work) error {
			b, err := os.ReadFile(filepath.Join(w.Input(0), "out.txt"))
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(w.Dir, "out.txt"), append([]byte("used "), b...), 0o644)
		}})
	return g, src, use
}

func runGraph(t *testing.T, g *Graph, s *Store) {
	t.Helper()
	steps := VerifySteps(Plan(g, s, nil), s, nil)
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s, nil); err != nil {
		t.Fatal(err)
	}
}

// editMeta rewrites a stored node's meta.json through edit.
func editMeta(t *testing.T, s *Store, key string, edit func(m map[string]any)) {
	t.Helper()
	p := filepath.Join(s.Dir(key), "meta.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantCorrupt checks that a fresh process (nothing verified yet) refuses
// the node, in the plan, in full verification and in store verify.
func wantCorrupt(t *testing.T, root string, g *Graph, n *Node, why string) {
	t.Helper()
	s := NewStore(root)
	err := s.Verify(n.Key(), true)
	if err == nil || IsMissing(err) || !strings.Contains(err.Error(), why) {
		t.Fatalf("Verify: %v, want a corruption saying %q", err, why)
	}
	for _, st := range Plan(g, s, nil) {
		if st.Node == n && (st.Status != Run || st.Reason != ReasonCorrupt) {
			t.Fatalf("plan serves the node: %+v", st)
		}
	}
	r, err := NewStore(root).VerifyAll(false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, b := range r.Bad {
		found = found || strings.Contains(b, short(n.Key()))
	}
	if !found {
		t.Fatalf("store verify passes the node: %q", r.Bad)
	}
}

// A meta.json with an empty file list was taken as verified, so doctored
// output bytes were used (only a missing list was refused).
func TestEmptyFileListIsCorruption(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g, src, _ := chainGraph("a")
	runGraph(t, g, s)
	os.WriteFile(filepath.Join(s.Dir(src.Key()), "out.txt"), []byte("doctored"), 0o644)
	editMeta(t, s, src.Key(), func(m map[string]any) { m["files"] = map[string]any{} })
	wantCorrupt(t, root, g, src, "meta.json")

	// A run recomputes it, and its user reads the good bytes.
	s2 := NewStore(root)
	steps := VerifySteps(Plan(g, s2, func(n *Node) bool { return n.Kind == "use" }), s2, nil)
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s2, nil); err != nil {
		t.Fatal(err)
	}
	_, _, use := chainGraph("a")
	if b, _ := os.ReadFile(filepath.Join(s2.Dir(use.Key()), "out.txt")); string(b) != "used src a" {
		t.Fatalf("user of the doctored node read %q", b)
	}
}

// A file the meta does not list is corruption (a partial list).
func TestUnlistedFileIsCorruption(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g, src, _ := chainGraph("b")
	runGraph(t, g, s)
	os.WriteFile(filepath.Join(s.Dir(src.Key()), "extra.txt"), []byte("planted"), 0o644)
	wantCorrupt(t, root, g, src, "extra.txt")
}

// A node folder copied under another key was served as that key: the
// meta's key was never compared with the folder's name.
func TestNodeCopiedUnderAnotherKeyIsCorruption(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g, src, _ := chainGraph("c")
	runGraph(t, g, s)
	g2, src2, _ := chainGraph("d")
	runGraph(t, g2, s)
	dst := s.Dir(src2.Key())
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(s.Dir(src.Key()))); err != nil {
		t.Fatal(err)
	}
	wantCorrupt(t, root, g2, src2, "names key "+short(src.Key()))
}

// A meta without its kind, or with another kind than the node's, is
// corruption.
func TestMetaKindIsChecked(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g, src, _ := chainGraph("e")
	runGraph(t, g, s)
	editMeta(t, s, src.Key(), func(m map[string]any) { m["kind"] = "" })
	wantCorrupt(t, root, g, src, "kind")
	editMeta(t, s, src.Key(), func(m map[string]any) { m["kind"] = "use" })
	steps := Plan(g, NewStore(root), nil)
	if steps[0].Status != Run || !strings.Contains(steps[0].Note, `kind "use"`) {
		t.Fatalf("a meta of another kind is served: %+v", steps[0])
	}
}

// A node declares the files it must produce: a run that does not write
// one fails, and a stored copy whose meta lacks one is corruption.
func TestDeclaredOutputsAreRequired(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g := NewGraph()
	n := g.Add(&Node{Kind: "two", Version: 1, Params: map[string]any{}, Outputs: []string{"out.txt", "more.txt"}, Run: writeValue("x")})
	err := (Local{Jobs: 1}).Execute(context.Background(), Plan(g, s, nil), s, nil)
	if err == nil || !strings.Contains(err.Error(), "more.txt") {
		t.Fatalf("a node that did not write a declared output: %v", err)
	}
	n.Run = func(ctx context.Context, w *Work) error {
		os.WriteFile(filepath.Join(w.Dir, "more.txt"), []byte("y"), 0o644)
		return writeValue("x")(ctx, w)
	}
	runGraph(t, g, s)
	os.Remove(filepath.Join(s.Dir(n.Key()), "more.txt"))
	editMeta(t, s, n.Key(), func(m map[string]any) { delete(m["files"].(map[string]any), "more.txt") })
	steps := Plan(g, NewStore(root), nil)
	if steps[0].Status != Run || !strings.Contains(steps[0].Note, "more.txt") {
		t.Fatalf("a node without a declared output is served: %+v", steps[0])
	}
}

// store verify checks a memo against its address: a memo copied over
// another (a valid record, at the wrong place) fails, as run refuses it.
func TestMemoCopiedOverAnotherFailsVerify(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	s.MemoPut("calibrate", []any{"pld", 4.0}, 0.84)
	s.MemoPut("calibrate", []any{"pld", 8.0}, 0.52)
	p4, _, _ := s.memoPath("calibrate", []any{"pld", 4.0})
	p8, _, _ := s.memoPath("calibrate", []any{"pld", 8.0})
	b, _ := os.ReadFile(p8)
	os.WriteFile(p4, b, 0o644)
	var v float64
	if NewStore(root).MemoGet("calibrate", []any{"pld", 4.0}, &v) {
		t.Fatalf("copied memo used: %v", v)
	}
	_, _, bad, err := NewStore(root).VerifyMemos(false)
	if err != nil || len(bad) != 1 || !strings.Contains(bad[0], filepath.Base(p4)) {
		t.Fatalf("VerifyMemos: %q, %v", bad, err)
	}
}
