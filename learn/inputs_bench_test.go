package learn

import (
	"os"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/rng"
)

// BenchmarkNewInputs times preparing MNIST 0-vs-1 (12,665 records) for
// TrainInputs, once per audit shard: the finiteness scan, the row norms
// and the codes.
func BenchmarkNewInputs(b *testing.B) {
	X, Y, D := mnist01(b)
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := NewInputs(X, Y, D); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
}

func mnist01(b *testing.B) ([]float32, []int32, int) {
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceMNIST}, datasets.Options{Classes: []int{0, 1}, Flatten: true, Seed: 1}, datasets.DefaultDataDir())
	if err != nil {
		if os.Getenv("DPAUDIT_REQUIRE_DATA") != "" {
			b.Fatal(err)
		}
		b.Skipf("MNIST not available: %v", err)
	}
	return s.Train.X, s.Train.Y, s.Train.D
}

// BenchmarkGatherMNIST times gathering one logistic-regression audit
// batch (Poisson q = 0.01 of MNIST 0-vs-1's 12,665 records, ≈ 127 rows in
// ascending order) into a chunk, from the float rows and from the exact
// 8-bit codes (Inputs), in CPU-ns per row. Skipped without MNIST.
func BenchmarkGatherMNIST(b *testing.B) {
	X, Y, D := mnist01(b)
	in, err := NewInputs(X, Y, D)
	if err != nil {
		b.Fatal(err)
	}
	m := mustModel(b, Arch{Kind: KindLogReg}, []int{D}, 2, 1)
	// 64 batches, cycled: more than the caches hold between two uses.
	const nb = 64
	batches := make([][]int, nb)
	r := rng.New(1, "bench/gather")
	for k := range batches {
		for i := range Y {
			if r.Float64() < 0.01 {
				batches[k] = append(batches[k], i)
			}
		}
	}
	for _, c := range []struct {
		name  string
		codes *Inputs
	}{{"floats", nil}, {"codes", in}} {
		b.Run(c.name, func(b *testing.B) {
			w := newWorkspace(m, 256, false)
			if c.codes != nil {
				w.setCodes(c.codes)
			}
			rows := 0
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				idx := batches[i%nb]
				w.gather(X, Y, idx, nil, 0, false)
				rows += len(idx)
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/row")
		})
	}
}
