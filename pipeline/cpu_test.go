package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// spin burns at least secs of the process's CPU time (however loaded the
// machine is).
func spin(secs float64) float64 {
	x := 1.0
	for start := processCPUSeconds(); processCPUSeconds()-start < secs; {
		for i := 0; i < 1000; i++ {
			x = math.Sqrt(x + float64(i))
		}
	}
	return x
}

// A node's CPU time goes into its meta.json (never its key or outputs),
// and a user of it sees the CPU of everything upstream: here a source
// that burns CPU and an idle one that sleeps (wall time, no CPU).
func TestNodeCPUSecondsRecorded(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("CPU time is measured on unix only")
	}
	s := NewStore(t.TempDir())
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	var sink float64
	busy := &Node{Kind: "busy", Version: 1, Params: map[string]any{}, Run: func(_ context.Context, w *Work) error {
		sink += spin(0.1)
		return os.WriteFile(filepath.Join(w.Dir, "out.txt"), []byte("busy"), 0o644)
	}}
	idle := &Node{Kind: "idle", Version: 1, Params: map[string]any{}, Run: func(_ context.Context, w *Work) error {
		time.Sleep(150 * time.Millisecond)
		return os.WriteFile(filepath.Join(w.Dir, "out.txt"), []byte("idle"), 0o644)
	}}
	var upstream float64
	user := &Node{Kind: "user", Version: 1, Params: map[string]any{}, Inputs: []*Node{busy, idle}, Run: func(_ context.Context, w *Work) error {
		upstream = w.UpstreamCPUSeconds()
		return os.WriteFile(filepath.Join(w.Dir, "out.txt"), []byte("user"), 0o644)
	}}
	g := NewGraph()
	for _, n := range []*Node{busy, idle, user} {
		g.Add(n)
	}
	if err := (Local{Jobs: 1}).Execute(context.Background(), Plan(g, s, nil), s, nil); err != nil {
		t.Fatal(err)
	}
	cpu := func(n *Node) float64 {
		m, err := s.ReadMeta(n.Key())
		if err != nil || m.CPUSeconds == nil {
			t.Fatalf("%s: meta %+v, %v", n.Kind, m, err)
		}
		return *m.CPUSeconds
	}
	b, i := cpu(busy), cpu(idle)
	t.Logf("busy %.3f s CPU, idle %.3f s CPU, upstream of user %.3f s", b, i, upstream)
	// The busy node spun for 0.1 s of CPU (plus a little for writing its
	// output); the idle one slept.
	if !(b >= 0.1 && b < 0.5) || !(i < 0.05) {
		t.Errorf("busy %v s, idle %v s of CPU", b, i)
	}
	if math.Abs(upstream-(b+i)) > 1e-9 {
		t.Errorf("upstream CPU %v, want busy + idle = %v", upstream, b+i)
	}
}
