package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// TestConvWeightGradTransposedSameBits: exampleGrad's transposed weight
// gradient Uᵀ·Δ, transposed back, has the bits of Δᵀ·U on the shapes
// where conv takes it (BernauCNN's first layer, K = 9, P = 676, whose
// sum over P is cut into k-chunks) and on others with K not a multiple of
// a vector. Tolerance: none — both are the same FMA chains.
func TestConvWeightGradTransposedSameBits(t *testing.T) {
	shapes := []struct{ h, w, c, o, k, s, p int }{
		{28, 28, 1, 16, 3, 1, 0}, // BernauCNN conv 1
		{9, 9, 3, 8, 3, 1, 1},
		{30, 30, 1, 32, 5, 1, 0},
		{7, 7, 3, 16, 2, 2, 0},
	}
	for _, sh := range shapes {
		l := mustConv(t, sh.h, sh.w, sh.c, sh.o, sh.k, sh.s, sh.p)
		t.Run(l.describe(), func(t *testing.T) {
			if !l.weightGradTransposed() {
				t.Fatalf("K = %d, outC = %d: expected the transposed path", l.kdim(), l.outC)
			}
			P, K := l.positions(), l.kdim()
			cols, _ := randomData(31, P, K, 2)
			dOut, _ := randomData(32, P, l.outC, 2)
			for j := range dOut {
				if j%3 == 0 {
					dOut[j] = 0 // as after ReLU and max pooling
				}
			}
			s := l.newScratch(1)
			got := make([]float32, l.numParams())
			l.exampleGrad(s, cols, dOut, got)
			want := make([]float32, l.numWeights())
			gemm.Sgemm(true, false, l.outC, K, P, 1, dOut, l.outC, cols, K, 0, want, K)
			for j, v := range want {
				if math.Float32bits(got[j]) != math.Float32bits(v) {
					t.Fatalf("weight %d = %g, want %g (Δᵀ·U)", j, got[j], v)
				}
			}
		})
	}
}

// BenchmarkConvWeightGrad: one example's weight gradient of BernauCNN's
// first layer (P = 676 positions, K = 9, outC = 16) as Δᵀ·U (16×9, B
// packed into an edge panel) and as its transpose Uᵀ·Δ (9×16, B in place),
// which conv takes.
//
//	go test -run '^$' -bench ConvWeightGrad ./learn/
func BenchmarkConvWeightGrad(b *testing.B) {
	const P, K, outC = 676, 9, 16
	cols, _ := randomData(1, P, K, 2)
	dOut, _ := randomData(2, P, outC, 2)
	g := make([]float32, K*outC)
	b.Run("direct-16x9x676", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gemm.Sgemm(true, false, outC, K, P, 1, dOut, outC, cols, K, 0, g, K)
		}
	})
	b.Run("transposed-9x16x676", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gemm.Sgemm(true, false, K, outC, P, 1, cols, K, dOut, outC, 0, g, outC)
		}
	})
}
