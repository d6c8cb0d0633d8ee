package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func writeValue(v string) func(context.Context, *Work) error {
	return func(_ context.Context, w *Work) error {
		return os.WriteFile(filepath.Join(w.Dir, "out.txt"), []byte(v), 0o644)
	}
}

func TestKeyIsContentAddressed(t *testing.T) {
	a := &Node{Kind: "k", Version: 1, Params: map[string]any{"b": 1, "a": 2.5}}
	b := &Node{Kind: "k", Version: 1, Params: struct {
		A float64 `json:"a"`
		B int     `json:"b"`
	}{2.5, 1}}
	if a.Key() != b.Key() {
		t.Fatal("equal params in different Go shapes give different keys")
	}
	c := &Node{Kind: "k", Version: 2, Params: map[string]any{"b": 1, "a": 2.5}}
	d := &Node{Kind: "k", Version: 1, Params: map[string]any{"b": 1, "a": 2.5}, Inputs: []*Node{c}}
	if a.Key() == c.Key() || a.Key() == d.Key() {
		t.Fatal("version or inputs do not change the key")
	}
	g := NewGraph()
	g.Add(a)
	if g.Add(b) != a || g.Len() != 1 {
		t.Fatal("equal nodes are not shared")
	}
}

func TestPlanReasonsAndResume(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	build := func(p float64, version int) *Graph {
		g := NewGraph()
		in := g.Add(&Node{Kind: "src", Version: version, Params: map[string]any{"p": p}, Slot: "x/src", Run: writeValue("src")})
		g.Add(&Node{Kind: "use", Version: 1, Params: map[string]any{}, Inputs: []*Node{in}, Slot: "x/use", Run: writeValue("use")})
		return g
	}
	steps := Plan(build(1, 1), s, nil)
	if steps[0].Reason != ReasonNew || steps[1].Reason != ReasonNew {
		t.Fatalf("fresh store: %+v", steps)
	}
	if err := (Local{Jobs: 2}).Execute(context.Background(), steps, s, nil); err != nil {
		t.Fatal(err)
	}
	steps = Plan(build(1, 1), s, nil)
	if run, _ := Counts(steps); run != 0 {
		t.Fatalf("re-run redoes %d nodes", run)
	}
	steps = Plan(build(2, 1), s, nil)
	if steps[0].Reason != ReasonParams || steps[1].Reason != ReasonInput {
		t.Fatalf("changed params: %q %q", steps[0].Reason, steps[1].Reason)
	}
	steps = Plan(build(1, 2), s, nil)
	if steps[0].Reason != ReasonVersion {
		t.Fatalf("changed version: %q", steps[0].Reason)
	}
	steps = Plan(build(1, 1), s, func(n *Node) bool { return n.Kind == "src" })
	if steps[0].Reason != ReasonForced || steps[1].Reason != ReasonForcedUpstream {
		t.Fatalf("forced: %q %q", steps[0].Reason, steps[1].Reason)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir(steps[1].Node.Key()), "out.txt"))
	if err != nil || string(b) != "use" {
		t.Fatalf("output not in store: %v %q", err, b)
	}
}

func TestFailureKeepsFinishedNodes(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Init()
	g := NewGraph()
	var ran atomic.Int32
	ok := g.Add(&Node{Kind: "ok", Params: 1, Run: func(ctx context.Context, w *Work) error { ran.Add(1); return writeValue("ok")(ctx, w) }})
	bad := g.Add(&Node{Kind: "bad", Params: 2, Run: func(ctx context.Context, w *Work) error {
		time.Sleep(20 * time.Millisecond)
		return errors.New("boom")
	}})
	after := g.Add(&Node{Kind: "after", Params: 3, Inputs: []*Node{bad}, Run: func(ctx context.Context, w *Work) error { ran.Add(1); return nil }})
	err := (Local{Jobs: 2}).Execute(context.Background(), Plan(g, s, nil), s, nil)
	var re *RunError
	if !errors.As(err, &re) || len(re.Failed) != 1 || re.Failed[0].Node != bad {
		t.Fatalf("want one failed node, got %v", err)
	}
	if !s.Has(ok.Key()) || s.Has(bad.Key()) || s.Has(after.Key()) {
		t.Fatal("store state after failure is wrong")
	}
	entries, _ := os.ReadDir(filepath.Join(s.Root, "tmp"))
	if len(entries) != 0 {
		t.Fatalf("temporary directories left behind: %d", len(entries))
	}
}

func TestPanicInNodeIsAnError(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Init()
	g := NewGraph()
	g.Add(&Node{Kind: "p", Params: 1, Run: func(ctx context.Context, w *Work) error { panic("oops") }})
	var log bytes.Buffer
	err := (Local{Jobs: 1}).Execute(context.Background(), Plan(g, s, nil), s, NewReporter(&log))
	// The error and the log keep the panic's stack, down to the line
	// that panicked.
	for what, text := range map[string]string{"error": fmt.Sprint(err), "log": log.String()} {
		if !strings.Contains(text, "panic: oops") || !strings.Contains(text, "pipeline_test.go:") || !strings.Contains(text, "goroutine ") {
			t.Fatalf("the %s lost the stack: %s", what, text)
		}
	}
}

func TestParallelismAndOrder(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Init()
	g := NewGraph()
	var cur, peak atomic.Int32
	var leaves []*Node
	for i := 0; i < 8; i++ {
		leaves = append(leaves, g.Add(&Node{Kind: "leaf", Params: i, Run: func(ctx context.Context, w *Work) error {
			c := cur.Add(1)
			for {
				p := peak.Load()
				if c <= p || peak.CompareAndSwap(p, c) {
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
			cur.Add(-1)
			return writeValue("leaf")(ctx, w)
		}}))
	}
	g.Add(&Node{Kind: "sum", Params: 0, Inputs: leaves, Run: func(ctx context.Context, w *Work) error {
		for _, in := range w.Inputs {
			if _, err := os.Stat(filepath.Join(in, "meta.json")); err != nil {
				return errors.New("ran before its inputs finished")
			}
		}
		return writeValue("sum")(ctx, w)
	}})
	if err := (Local{Jobs: 3}).Execute(context.Background(), Plan(g, s, nil), s, nil); err != nil {
		t.Fatal(err)
	}
	if peak.Load() < 2 || peak.Load() > 3 {
		t.Fatalf("peak concurrency %d with -j 3", peak.Load())
	}
}

func TestCancelStopsScheduling(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Init()
	g := NewGraph()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran atomic.Int32
	for i := 0; i < 20; i++ {
		g.Add(&Node{Kind: "n", Params: i, Run: func(ctx context.Context, w *Work) error {
			if ran.Add(1) == 2 {
				cancel()
			}
			return writeValue("n")(ctx, w)
		}})
	}
	err := (Local{Jobs: 1}).Execute(ctx, Plan(g, s, nil), s, nil)
	if !errors.Is(err, context.Canceled) || ran.Load() > 3 {
		t.Fatalf("err %v after %d nodes", err, ran.Load())
	}
}

func TestParquetRoundTripAndDeterminism(t *testing.T) {
	tb := &Table{}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tb.Add("point_id", String, []any{"a", "b", "c"}))
	must(tb.Add("steps", Int64, []any{int64(1), int64(2), nil}))
	must(tb.Add("epsilon_pld", Float64, []any{1.5, math.Inf(1), nil}))
	must(tb.Add("violation", Bool, []any{true, false, nil}))
	if err := tb.Add("bad", Int64, []any{1.0, 2.0, 3.0}); err == nil {
		t.Fatal("type mismatch accepted")
	}
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	must(WriteParquet(p1, tb))
	must(WriteParquet(p2, tb))
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("the same table gives different bytes")
	}
	if !bytes.Contains(b1, []byte("ZSTD")) && !bytes.Contains(b1, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatal("no zstd frame in the file")
	}
	got, err := ReadParquet(p1)
	must(err)
	if len(got.Columns) != 4 || got.Rows() != 3 {
		t.Fatalf("shape %d×%d", got.Rows(), len(got.Columns))
	}
	for i, c := range tb.Columns {
		g := got.Columns[i]
		if g.Name != c.Name || g.Type != c.Type {
			t.Fatalf("column %d: %s %s vs %s %s", i, g.Name, g.Type, c.Name, c.Type)
		}
		for j := range c.Values {
			if g.Values[j] != c.Values[j] {
				t.Fatalf("%s[%d] = %v, want %v", c.Name, j, g.Values[j], c.Values[j])
			}
		}
	}
}

func TestMemoIsReadOnlyUntilPut(t *testing.T) {
	root := filepath.Join(t.TempDir(), "store")
	s := NewStore(root)
	var out float64
	if s.MemoGet("calibrate", []float64{1, 2}, &out) {
		t.Fatal("memo found in an empty store")
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatal("reading a memo created the store")
	}
	if err := s.MemoPut("calibrate", []float64{1, 2}, 3.5); err != nil {
		t.Fatal(err)
	}
	if !s.MemoGet("calibrate", []float64{1, 2}, &out) || out != 3.5 {
		t.Fatalf("memo = %v", out)
	}
}
