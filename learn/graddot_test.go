package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// The dot products without materialisation equal the materialised
// gradients' (PerExampleGradients) dotted with v, for every architecture.
func TestPerExampleGradientDots(t *testing.T) {
	for _, c := range []struct {
		arch  Arch
		shape []int
	}{
		{Arch{Kind: KindMLP, Hidden: []int{7, 5}, Activation: ELU}, []int{30}},
		{Arch{Kind: KindLogReg}, []int{12}},
		{TanhCNN(), []int{1, 28, 28}},
	} {
		m, err := NewModel(c.arch, c.shape, 10, 3)
		if err != nil {
			t.Fatal(err)
		}
		D, P, n := m.InputSize(), m.NumParams(), 300 // > evalChunk: two chunks
		r := rng.New(1, "test", "dots")
		X, Y, v := make([]float32, n*D), make([]int32, n), make([]float32, P)
		for i := range X {
			X[i] = float32(r.Float64())
		}
		for i := range Y {
			Y[i] = int32(r.IntN(10))
		}
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		G, norms := make([]float32, n*P), make([]float64, n)
		if err := m.PerExampleGradients(X, Y, G, norms); err != nil {
			t.Fatal(err)
		}
		dots, norms2 := make([]float64, n), make([]float64, n)
		if err := m.PerExampleGradientDots(X, Y, v, dots, norms2); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var want, sq float64
			for j := 0; j < P; j++ {
				want += float64(G[i*P+j]) * float64(v[j])
				sq += float64(G[i*P+j]) * float64(G[i*P+j])
			}
			tol := 1e-4 * math.Sqrt(sq) * math.Sqrt(float64(P))
			if math.Abs(dots[i]-want) > tol || norms2[i] != norms[i] {
				t.Fatalf("%s record %d: dot %v, want %v (±%.2g); norm %v, want %v", c.arch.Kind, i, dots[i], want, tol, norms2[i], norms[i])
			}
		}
	}
}
