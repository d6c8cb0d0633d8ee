package glm

import (
	"errors"
	"os"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	lglm "github.com/dpaudit/dpaudit/learn/glm"
	"github.com/dpaudit/dpaudit/rng"
)

// BenchmarkMNISTAttack: the GLM attack on every one of the 12,665 MNIST
// 0-vs-1 training samples per release (σ = 1e-5), θ* fitted beforehand;
// one op = one release: the shared pass over D plus 12,665 reconstructions.
func BenchmarkMNISTAttack(b *testing.B) {
	split, err := datasets.Load(datasets.Source{Name: "mnist"}, datasets.Options{Classes: []int{0, 1}, Flatten: true}, datasets.DefaultDataDir())
	if errors.Is(err, datasets.ErrNotFetched) && os.Getenv("DPAUDIT_REQUIRE_DATA") == "" {
		b.Skip("MNIST is not fetched")
	}
	if err != nil {
		b.Fatal(err)
	}
	tr := split.Train
	g, err := lglm.NewData(tr.X, tr.Y, tr.N, tr.D, true)
	if err != nil {
		b.Fatal(err)
	}
	sol, err := lglm.Fit(g, 1e-2, 1e-8, 50)
	if err != nil {
		b.Fatal(err)
	}
	a, err := New(g, 1e-2, 1e-12)
	if err != nil {
		b.Fatal(err)
	}
	op := lglm.OutputPerturbation{Noise: lglm.NoiseGaussian, Scale: 1e-5}
	r := rng.New(1, "bench")
	theta := make([]float64, g.P)
	xhat := make([]float64, g.D)
	b.ResetTimer()
	for b.Loop() {
		theta = op.Release(sol.Theta, r, theta)
		a.Prepare(theta)
		for i := 0; i < g.N; i++ {
			a.Reconstruct(i, xhat)
		}
	}
	b.ReportMetric(float64(g.N)*float64(b.N)/b.Elapsed().Seconds(), "reconstructions/s")
}
