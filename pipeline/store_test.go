package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func initStore(t *testing.T, root string) *Store {
	t.Helper()
	s := NewStore(root)
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	return s
}

// countingGraph is a small diamond whose Run functions count how often each
// node is computed (across every executor sharing the counters).
func countingGraph(counts *sync.Map, tag string, delay time.Duration) *Graph {
	mk := func(name string, inputs ...*Node) *Node {
		return &Node{Kind: name, Version: 1, Params: map[string]any{"tag": tag}, Inputs: inputs, Slot: "t/" + name,
			Run: func(ctx context.Context, w *Work) error {
				v, _ := counts.LoadOrStore(name, new(atomic.Int32))
				v.(*atomic.Int32).Add(1)
				time.Sleep(delay)
				return os.WriteFile(filepath.Join(w.Dir, "out.txt"), []byte(name+tag), 0o644)
			}}
	}
	g := NewGraph()
	a := g.Add(mk("a"))
	b := g.Add(mk("b", a))
	c := g.Add(mk("c", a))
	d := g.Add(mk("d", a))
	g.Add(mk("e", b, c, d))
	return g
}

// Two processes sharing a store must not both compute every node. With per-node leases each node is computed once; the other process
// waits (working on other nodes) and picks it up. Two Stores on one root
// share nothing in memory, like two processes.
func TestConcurrentExecutorsComputeEachNodeOnce(t *testing.T) {
	root := t.TempDir()
	for round := 0; round < 20; round++ {
		var counts sync.Map
		tag := fmt.Sprint(round)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for p := 0; p < 2; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := NewStore(root)
				if errs[p] = s.Init(); errs[p] != nil {
					return
				}
				s.Poll = 2 * time.Millisecond
				g := countingGraph(&counts, tag, 3*time.Millisecond)
				errs[p] = (Local{Jobs: 2}).Execute(context.Background(), Plan(g, s, nil), s, nil)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		counts.Range(func(k, v any) bool {
			if n := v.(*atomic.Int32).Load(); n != 1 {
				t.Errorf("round %d: node %v computed %d times", round, k, n)
			}
			return true
		})
	}
}

// A lease whose heartbeat is older than the timeout is reclaimed; a fresh
// one held by a live process of another host is not, and its holder is
// named. The clock is injected, so no test sleeps.
func TestLeaseStaleness(t *testing.T) {
	s := initStore(t, t.TempDir())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	s.Clock = func() time.Time { return now }
	s.LeaseTimeout = time.Minute
	key := strings.Repeat("ab", 32)
	other := LeaseInfo{Pid: 4242, Host: "node17", Token: "x", Acquired: t0, Heartbeat: t0}
	b, _ := json.Marshal(other)
	os.MkdirAll(filepath.Join(s.Root, "leases"), 0o755)
	if err := os.WriteFile(s.leasePath(key), b, 0o644); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(59 * time.Second)
	l, holder, err := s.tryLease(key)
	if err != nil || l != nil || holder == nil || holder.Host != "node17" || holder.Pid != 4242 {
		t.Fatalf("fresh lease of another host: lease %v holder %v err %v", l, holder, err)
	}
	if !strings.Contains(holder.String(), "pid 4242 on host node17") {
		t.Fatalf("holder message %q", holder)
	}
	now = t0.Add(61 * time.Second)
	l, holder, err = s.tryLease(key)
	if err != nil || l == nil || holder != nil {
		t.Fatalf("stale lease not reclaimed: lease %v holder %v err %v", l, holder, err)
	}
	// Now ours: a second taker sees us as the holder.
	s2 := NewStore(s.Root)
	s2.Clock = s.Clock
	if l2, h2, _ := s2.tryLease(key); l2 != nil || h2 == nil || h2.Pid != os.Getpid() {
		t.Fatalf("held lease taken twice: %v %v", l2, h2)
	}
	l.release()
	if _, err := os.Stat(s.leasePath(key)); !os.IsNotExist(err) {
		t.Fatal("release left the lease file")
	}
	found := false
	for _, n := range s.Notices() {
		found = found || strings.Contains(n, "reclaimed the stale lease") && strings.Contains(n, "node17")
	}
	if !found {
		t.Fatalf("reclaim not reported: %q", s.Notices())
	}
}

// The lease of a dead process of this machine is reclaimed at once.
func TestLeaseOfDeadProcessIsReclaimed(t *testing.T) {
	s := initStore(t, t.TempDir())
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1)")
	}
	dead := cmd.Process.Pid
	key := strings.Repeat("cd", 32)
	b, _ := json.Marshal(LeaseInfo{Pid: dead, Host: hostname(), Token: "y", Acquired: time.Now(), Heartbeat: time.Now()})
	os.MkdirAll(filepath.Join(s.Root, "leases"), 0o755)
	os.WriteFile(s.leasePath(key), b, 0o644)
	l, holder, err := s.tryLease(key)
	if err != nil || l == nil || holder != nil {
		t.Fatalf("dead owner's lease kept: %v %v %v", l, holder, err)
	}
	l.release()
}

// A node leased by a live process elsewhere is waited for (with a message
// naming the holder) and picked up when that process finishes it.
func TestWaitForLeaseHolderAndPickUp(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	s.Poll = time.Millisecond
	var counts sync.Map
	g := countingGraph(&counts, "w", 0)
	a := g.Nodes()[0]
	b, _ := json.Marshal(LeaseInfo{Pid: 1, Host: "far-away", Token: "z", Acquired: time.Now(), Heartbeat: time.Now()})
	os.MkdirAll(filepath.Join(root, "leases"), 0o755)
	os.WriteFile(s.leasePath(a.Key()), b, 0o644)
	msgs := make(chan string, 10)
	s.Notify = func(m string) { msgs <- m }
	done := make(chan error)
	go func() { done <- (Local{Jobs: 2}).Execute(context.Background(), Plan(g, s, nil), s, nil) }()
	select {
	case m := <-msgs:
		if !strings.Contains(m, "pid 1 on host far-away") {
			t.Fatalf("wait message %q does not name the holder", m)
		}
	case err := <-done:
		t.Fatalf("finished without waiting: %v", err)
	}
	// The other process finishes a and releases its lease.
	other := initStore(t, root)
	var c2 sync.Map
	ga := countingGraph(&c2, "w", 0)
	if err := runNode(context.Background(), ga.Nodes()[0], other, nopReporter{}, false); err != nil {
		t.Fatal(err)
	}
	os.Remove(s.leasePath(a.Key()))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := counts.Load("a"); ok {
		t.Fatal("the waiting process computed the leased node itself")
	}
	if v, _ := counts.Load("e"); v == nil || v.(*atomic.Int32).Load() != 1 {
		t.Fatal("dependents of the picked-up node did not run")
	}
}

func corrupt(t *testing.T, p string, sameSize bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if sameSize {
		b[len(b)/2] ^= 0xff
	} else {
		b = []byte("garbage")
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// --force replaces a stored node, and a corrupted node is quarantined and
// recomputed, never used.
func TestForceReplacesAndCorruptionIsQuarantined(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	var counts sync.Map
	g := countingGraph(&counts, "f", 0)
	if err := (Local{Jobs: 2}).Execute(context.Background(), Plan(g, s, nil), s, nil); err != nil {
		t.Fatal(err)
	}
	e := g.Nodes()[4]
	out := filepath.Join(s.Dir(e.Key()), "out.txt")
	corrupt(t, out, false)
	steps := Plan(g, s, func(n *Node) bool { return n.Kind == "e" })
	if steps[4].Reason != ReasonForced {
		t.Fatalf("plan: %+v", steps[4])
	}
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "ef" {
		t.Fatalf("--force kept the stored copy: %q", b)
	}
	if err := s.Verify(e.Key(), true); err != nil {
		t.Fatal(err)
	}

	// Same size, one byte flipped: only the digest sees it. The node is an
	// input of a node to run, so it is verified, quarantined, recomputed.
	a := g.Nodes()[0]
	corrupt(t, filepath.Join(s.Dir(a.Key()), "out.txt"), true)
	s2 := NewStore(root) // a new process: nothing verified yet
	steps = Plan(g, s2, func(n *Node) bool { return n.Kind == "b" })
	if steps[0].Status != Cached {
		t.Fatal("a same-size corruption is visible to the plan's size check")
	}
	steps = VerifySteps(steps, s2, nil)
	if steps[0].Status != Run || steps[0].Reason != ReasonCorrupt {
		t.Fatalf("corrupt input not caught: %+v", steps[0])
	}
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s2, nil); err != nil {
		t.Fatal(err)
	}
	if err := s2.Verify(a.Key(), true); err != nil {
		t.Fatal(err)
	}
	q, _ := os.ReadDir(filepath.Join(root, "quarantine"))
	if len(q) != 1 || !strings.HasPrefix(q[0].Name(), a.Key()) {
		t.Fatalf("quarantine holds %v", q)
	}
	n := s2.Notices()
	if len(n) == 0 || !strings.Contains(n[0], "a node "+a.Key()[:12]+": out.txt: expected sha256") {
		t.Fatalf("notices %q", n)
	}

	// A size change is seen by the plan itself.
	corrupt(t, out, false)
	steps = Plan(g, NewStore(root), nil)
	if steps[4].Reason != ReasonCorrupt || !strings.Contains(steps[4].Note, "expected 2 bytes, found 7 bytes") {
		t.Fatalf("plan: %+v", steps[4])
	}
}

// A doctored memo is ignored and quarantined, never used.
func TestDoctoredMemoIsIgnoredAndQuarantined(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	if err := s.MemoPut("calibrate", []any{"pld", 4.0}, 0.8445044646987239); err != nil {
		t.Fatal(err)
	}
	p, _, _ := s.memoPath("calibrate", []any{"pld", 4.0})
	os.WriteFile(p, []byte("0.84"), 0o644)
	var v float64
	s2 := NewStore(root)
	if s2.MemoGet("calibrate", []any{"pld", 4.0}, &v) {
		t.Fatalf("doctored memo used: %v", v)
	}
	if err := s2.MemoPut("calibrate", []any{"pld", 4.0}, 0.8445044646987239); err != nil {
		t.Fatal(err)
	}
	if !s2.MemoGet("calibrate", []any{"pld", 4.0}, &v) || v != 0.8445044646987239 {
		t.Fatalf("memo after repair: %v", v)
	}
	if n := s2.Notices(); len(n) != 1 || !strings.Contains(n[0], "failed verification") || !strings.Contains(n[0], "quarantine") {
		t.Fatalf("notices %q", n)
	}
	// A doctored value with the old digest is caught by the digest.
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "0.8445044646987239", "0.84", 1)), 0o644)
	if NewStore(root).MemoGet("calibrate", []any{"pld", 4.0}, &v) {
		t.Fatal("value edited in a memo record used")
	}
	_, _, bad, _ := s2.VerifyMemos(false)
	if len(bad) != 1 {
		t.Fatalf("VerifyMemos: %q", bad)
	}
}

// Keys follow the code: a different code
// fingerprint is a different key, planned as "code changed";
// --reuse-across-versions reuses the old nodes, and a node that needs its
// inputs from one build refuses a mix.
func TestCodeFingerprintInKeys(t *testing.T) {
	defer SetCodeFingerprint(CodeFingerprint())
	root := t.TempDir()
	s := initStore(t, root)
	SetCodeFingerprint("old")
	var counts sync.Map
	g := countingGraph(&counts, "c", 0)
	oldKey := g.Nodes()[0].Key()
	if err := (Local{Jobs: 2}).Execute(context.Background(), Plan(g, s, nil), s, nil); err != nil {
		t.Fatal(err)
	}
	SetCodeFingerprint("new")
	g = countingGraph(&counts, "c", 0)
	if g.Nodes()[0].Key() == oldKey {
		t.Fatal("the code fingerprint does not change the key")
	}
	for _, st := range Plan(g, s, nil) {
		if st.Status != Run || st.Reason != ReasonCode {
			t.Fatalf("%s: %s %q, want run (code changed)", st.Node.Kind, st.Status, st.Reason)
		}
	}
	steps := PlanWith(g, s, PlanOptions{ReuseAcrossVersions: true})
	for _, st := range steps {
		if st.Status != Cached || !strings.Contains(st.Note, "reused across versions") {
			t.Fatalf("reuse: %s %s %q", st.Node.Kind, st.Status, st.Note)
		}
	}
	if g.Nodes()[0].StoreKey() != oldKey {
		t.Fatal("reused node does not point at the old copy")
	}

	// A mix: e needs b, c, d from one build; c is recomputed by "new".
	e := g.Nodes()[4]
	e.SameCodeInputs = true
	steps = PlanWith(g, s, PlanOptions{ReuseAcrossVersions: true, Force: func(n *Node) bool { return n.Kind == "c" }})
	err := (Local{Jobs: 2}).Execute(context.Background(), steps, s, nil)
	if err == nil || !strings.Contains(err.Error(), "different code versions") {
		t.Fatalf("mixed-code inputs accepted: %v", err)
	}
}

// A store folder that is not a store, or of a future layout, is refused
// and left untouched.
func TestStoreBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("x"), 0o644)
	s := NewStore(dir)
	if err := s.Init(); err == nil || !strings.Contains(err.Error(), "not a dpaudit store") || !strings.Contains(err.Error(), "thesis.tex") {
		t.Fatalf("foreign folder: %v", err)
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 {
		t.Fatal("wrote into a foreign folder")
	}
	fut := t.TempDir()
	os.WriteFile(filepath.Join(fut, MarkerFile), []byte(`{"format":"dpaudit-store","layout":99}`), 0o644)
	if err := NewStore(fut).Init(); err == nil || !strings.Contains(err.Error(), "layout version 99") {
		t.Fatalf("future layout: %v", err)
	}
	// An empty folder, or a layout-1 store, is fine.
	if err := NewStore(t.TempDir()).Init(); err != nil {
		t.Fatal(err)
	}
	old := t.TempDir()
	os.MkdirAll(filepath.Join(old, "ab"), 0o755)
	os.MkdirAll(filepath.Join(old, "memo"), 0o755)
	if err := NewStore(old).Init(); err != nil {
		t.Fatal(err)
	}
	// A damaged marker gets one clear message (it said the store holds
	// dpaudit-store.json and no dpaudit-store.json).
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, MarkerFile), []byte("{\"format\": \"dpaudit-st"), 0o644)
	err := NewStore(bad).Check()
	if err == nil || strings.Count(err.Error(), MarkerFile) != 1 || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("damaged marker: %v", err)
	}
	// The folders a run deletes in (tmp, leases, quarantine) must be real
	// folders of the store: a symbolic link there is refused before
	// anything is cleaned through it.
	for _, name := range []string{"tmp", "leases", "quarantine"} {
		st := initStore(t, t.TempDir())
		outside := t.TempDir()
		os.WriteFile(filepath.Join(outside, "old-file"), nil, 0o644)
		os.Chtimes(filepath.Join(outside, "old-file"), time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour))
		os.RemoveAll(filepath.Join(st.Root, name))
		os.Symlink(outside, filepath.Join(st.Root, name))
		if err := NewStore(st.Root).Init(); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("%s as a symbolic link: %v", name, err)
		}
		st.CleanTemp(time.Hour)
		if _, err := os.Stat(filepath.Join(outside, "old-file")); err != nil {
			t.Fatalf("%s as a symbolic link: cleaning deleted outside the store", name)
		}
	}
}

// Temporary folders of dead processes of this machine go at the next run.
func TestCleanTempRemovesDeadOwners(t *testing.T) {
	s := initStore(t, t.TempDir())
	cmd := exec.Command("true")
	if cmd.Run() != nil {
		t.Skip("no true(1)")
	}
	dead := filepath.Join(s.Root, "tmp", fmt.Sprintf("p%d@%s.0123456789abcdef.aa", cmd.Process.Pid, hostname()))
	mine, _ := s.tempDir(strings.Repeat("0", 64))
	remote := filepath.Join(s.Root, "tmp", "p1@elsewhere.0123456789abcdef.bb")
	for _, d := range []string{dead, remote} {
		os.MkdirAll(d, 0o755)
	}
	s.CleanTemp(24 * time.Hour)
	for d, want := range map[string]bool{dead: false, mine: true, remote: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}

// BenchmarkVerify measures the hashing throughput of verification (a
// 64 MiB node, read from the page cache): the cost of `dpaudit store
// verify` per GB is 1 GB / this rate.
func BenchmarkVerify(b *testing.B) {
	s := NewStore(b.TempDir())
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 64<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	n := &Node{Kind: "big", Version: 1, Params: map[string]any{}, Run: func(_ context.Context, w *Work) error {
		return os.WriteFile(filepath.Join(w.Dir, "big.bin"), data, 0o644)
	}}
	if err := runNode(context.Background(), n, s, nopReporter{}, false); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		s.forgetVerified(n.Key())
		if err := s.Verify(n.Key(), true); err != nil {
			b.Fatal(err)
		}
	}
}

// A held lease's heartbeat is refreshed (with the store's clock), so a
// long computation is not taken for a dead one.
func TestLeaseHeartbeat(t *testing.T) {
	s := initStore(t, t.TempDir())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var now atomic.Int64
	now.Store(t0.UnixNano())
	s.Clock = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	s.Heartbeat = time.Millisecond
	key := strings.Repeat("ef", 32)
	l, _, err := s.tryLease(key)
	if err != nil || l == nil {
		t.Fatal(err)
	}
	defer l.release()
	t1 := t0.Add(time.Hour)
	now.Store(t1.UnixNano())
	for i := 0; ; i++ {
		lf, err := readLease(s.leasePath(key))
		if err == nil && lf.info.Heartbeat.Equal(t1) {
			break
		}
		if i > 2000 {
			t.Fatal("heartbeat never refreshed")
		}
		time.Sleep(time.Millisecond)
	}
	// An hour later by the clock, but the heartbeat is fresh: not stale.
	other := NewStore(s.Root)
	other.Clock = s.Clock
	if _, holder, _ := other.tryLease(key); holder == nil {
		t.Fatal("a lease with a fresh heartbeat was reclaimed")
	}
}

// A forced replacement swaps the folders in one step (Linux): a reader
// polling the node never finds it absent.
func TestForcedReplaceIsNeverAbsent(t *testing.T) {
	s := initStore(t, t.TempDir())
	n := &Node{Kind: "x", Version: 1, Params: map[string]any{}, Run: writeValue("v")}
	if err := runNode(context.Background(), n, s, nopReporter{}, false); err != nil {
		t.Fatal(err)
	}
	if renameExchange(t.TempDir(), t.TempDir()) != nil {
		t.Skip("no atomic exchange here: replacement moves the old copy aside first")
	}
	stop := make(chan struct{})
	missing := make(chan bool, 1)
	go func() {
		for {
			select {
			case <-stop:
				missing <- false
				return
			default:
			}
			if !s.Has(n.Key()) {
				missing <- true
				return
			}
		}
	}()
	for range 30 {
		if err := runNode(context.Background(), n, s, nopReporter{}, true); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if <-missing {
		t.Fatal("the node was absent during a forced replacement")
	}
}

// A fingerprint given as a function is computed once, when a key first
// needs it, and keys are those of the same fingerprint given as a value.
func TestCodeFingerprintFuncIsLazy(t *testing.T) {
	defer SetCodeFingerprint(CodeFingerprint())
	var counts sync.Map
	SetCodeFingerprint("lazy")
	want := countingGraph(&counts, "c", 0).Nodes()[0].Key()
	calls := 0
	SetCodeFingerprintFunc(func() string { calls++; return "lazy" })
	if calls != 0 {
		t.Fatal("the fingerprint was computed before any key needed it")
	}
	if got := countingGraph(&counts, "c", 0).Nodes()[0].Key(); got != want {
		t.Fatalf("key %s, want %s", got, want)
	}
	CodeFingerprint()
	if calls != 1 {
		t.Fatalf("fingerprint computed %d times, want 1", calls)
	}
}
