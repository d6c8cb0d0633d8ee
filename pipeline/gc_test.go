package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// outsideTree makes a folder outside the store with one file, and returns
// a check that it is intact.
func outsideTree(t *testing.T) (string, func()) {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(f, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, func() {
		t.Helper()
		if b, err := os.ReadFile(f); err != nil || string(b) != "keep me" {
			t.Fatalf("gc deleted or changed a file outside the store: %v", err)
		}
	}
}

// gc --delete followed a symbolic link put in place of the store's
// quarantine/ and deleted files outside the store. No store folder (the
// quarantine, leases, tmp, a prefix folder or a node folder) is followed.
func TestGCNeverFollowsASymlinkOutOfTheStore(t *testing.T) {
	for _, where := range []string{"quarantine", "leases", "tmp", "ab", "node"} {
		t.Run(where, func(t *testing.T) {
			root := t.TempDir()
			s := initStore(t, root)
			var counts sync.Map
			g := countingGraph(&counts, where, 0)
			runGraph(t, g, s)
			outside, intact := outsideTree(t)
			link := filepath.Join(root, where)
			if where == "node" {
				link = filepath.Join(root, "ab", strings.Repeat("ab", 32))
				os.MkdirAll(filepath.Dir(link), 0o755)
			}
			os.RemoveAll(link)
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			gb, err := s.Garbage(nil, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range gb {
				if strings.HasPrefix(x.Path, outside) {
					t.Fatalf("gc lists a path outside the store: %s", x.Path)
				}
			}
			if err := s.Remove(gb); err != nil {
				t.Fatal(err)
			}
			intact()
			if _, err := os.Lstat(link); !os.IsNotExist(err) {
				t.Fatalf("the symbolic link itself was not removed: %v", err)
			}
		})
	}
}

// Remove checks again, right before deleting, that no folder on the way
// from the store's root became a symbolic link since Garbage listed it.
func TestGCRemoveRechecksThePath(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	q := filepath.Join(root, "quarantine")
	os.MkdirAll(filepath.Join(q, "old-node"), 0o755)
	gb, err := s.Garbage(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	outside, intact := outsideTree(t)
	os.MkdirAll(filepath.Join(outside, "old-node"), 0o755)
	os.WriteFile(filepath.Join(outside, "old-node", "x"), []byte("x"), 0o644)
	os.RemoveAll(q)
	os.Symlink(outside, q)
	err = s.Remove(gb)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Remove through a swapped-in link: %v", err)
	}
	intact()
	if _, err := os.Stat(filepath.Join(outside, "old-node", "x")); err != nil {
		t.Fatal("Remove deleted through a symbolic link")
	}
}

// gc during a run deleted finished nodes the run still needed. A run
// holds a run lease over its plan's nodes until it has published; gc
// keeps them while the lease is live, and says so.
func TestGCKeepsTheNodesOfALiveRun(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	var counts sync.Map
	g := countingGraph(&counts, "live", 0)
	runGraph(t, g, s)
	var keys []string
	for _, n := range g.Nodes() {
		keys = append(keys, n.Key())
	}
	release, err := s.HoldRun(keys[:3])
	if err != nil {
		t.Fatal(err)
	}
	gc := NewStore(root) // another process
	gb, err := gc.Garbage(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, x := range gb {
		listed[filepath.Base(x.Path)] = true
	}
	for i, k := range keys {
		if listed[k] == (i < 3) {
			t.Fatalf("node %d: listed %v, held by a live run %v", i, listed[k], i < 3)
		}
	}
	if !noticeWith(gc, "kept 3 node(s)", "live run") {
		t.Fatalf("notices %q", gc.Notices())
	}
	release()
	gb, _ = NewStore(root).Garbage(nil, true)
	n := 0
	for _, x := range gb {
		if strings.HasPrefix(x.What, "node ") {
			n++
		}
	}
	if n != len(keys) {
		t.Fatalf("after the run: %d nodes listed, want %d", n, len(keys))
	}
}

// An input that vanished while the run waited (removed by gc or by hand)
// failed with a bare "no such file". The error names the node and says
// what removed it; the next run recomputes it.
func TestVanishedInputIsNamed(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	g, src, _ := chainGraph("vanish")
	runGraph(t, g, s)
	// A new user of src, planned while src is cached; a sibling it waits
	// for removes src in the meantime, as gc would.
	g2 := NewGraph()
	src2 := g2.Add(&Node{Kind: "src", Version: 1, Params: map[string]any{"tag": "vanish"}, Slot: "v/src/vanish", Run: writeValue("src vanish")})
	remover := g2.Add(&Node{Kind: "gc", Version: 1, Params: map[string]any{}, Run: func(ctx context.Context, w *Work) error {
		os.RemoveAll(s.Dir(src.Key()))
		return writeValue("gone")(ctx, w)
	}})
	g2.Add(&Node{Kind: "late", Version: 1, Params: map[string]any{}, Inputs: []*Node{src2, remover}, Run: writeValue("late")})
	err := (Local{Jobs: 1}).Execute(context.Background(), Plan(g2, s, nil), s, nil)
	if err == nil || !strings.Contains(err.Error(), "src") || !strings.Contains(err.Error(), short(src.Key())) ||
		!strings.Contains(err.Error(), "store gc") || !strings.Contains(err.Error(), "run again") {
		t.Fatalf("vanished input: %v", err)
	}
	runGraph(t, g2, NewStore(root))
}
