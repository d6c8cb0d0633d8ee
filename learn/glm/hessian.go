package glm

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// hessianRows is the number of Hessian rows built at a time. A sample's
// rows in a block are added in one call, four at a time (addOuterRows):
// at MNIST's P = 785, blocks of 128 rows took 0.85 of the time of blocks
// of 32, which kept a block in a core's second-level cache but left most
// samples a handful of rows per call (scripts/bench-ab.sh, 7 pairs, one
// core); 256 were level with 128.
const hessianRows = 128

// Hessian returns ∇²F(θ) = Σ s_j(1−s_j)·x̃_j x̃_jᵀ + NλI, built from the
// sparse rows (Σ_j nnz_j² work instead of N·P²).
//
// Every entry is the sum over the samples in their order, so the bits do
// not depend on how the work is split: the rows are built in blocks of
// hessianRows (on all cores through internal/parallel), each block by a
// pass over the samples that adds to the block only; one pass over the
// whole matrix per sample scattered its adds over P² entries, out of
// cache.
func Hessian(g *Data, lambda float64, theta []float64) *mat.SymDense {
	p := g.P
	h := make([]float64, p*p) // upper triangle used
	a := make([]float64, g.N)
	for j := range a {
		s := sigmoid(g.Dot(j, theta))
		a[j] = s * (1 - s)
	}
	blocks := (p + hessianRows - 1) / hessianRows
	bound := make([]int32, g.N*(blocks+1)) // where each row's non-zeros enter each block
	for j := range g.N {
		c, _ := g.row(j)
		bounds(c, hessianRows, bound[j*(blocks+1):][:blocks+1])
	}
	parallel.For(context.Background(), blocks, 0, func(b int) error {
		hessianBlock(g, a, h, bound, blocks, b)
		return nil
	})
	// The rows' columns are increasing, so the entries sit in the upper
	// triangle; mirror them and add the ridge.
	for r := 0; r < p; r++ {
		h[r*p+r] += float64(g.N) * lambda
		for c := r + 1; c < p; c++ {
			h[c*p+r] = h[r*p+c]
		}
	}
	return mat.NewSymDense(p, h)
}

// hessianBlock adds a_j·x̃_j x̃_jᵀ of every sample j, in order, to row
// block b of the upper triangle of h; row j's non-zeros in row block b
// are [bound[j·(blocks+1)+b], bound[j·(blocks+1)+b+1]).
func hessianBlock(g *Data, a, h []float64, bound []int32, blocks, b int) {
	p := g.P
	for j, aj := range a {
		if aj == 0 {
			continue
		}
		c, v := g.row(j)
		k0, k1 := bound[j*(blocks+1)+b], bound[j*(blocks+1)+b+1]
		if k0 < k1 {
			addOuterRows(h, p, c[k0:], v[k0:], int(k1-k0), aj)
		}
	}
}

// addOuterRowsGo is addOuterRows in Go.
func addOuterRowsGo(h []float64, stride int, c []int32, v []float64, nk int, a float64) {
	for k := range nk {
		row := h[int(c[k])*stride:]
		alpha := a * v[k]
		for l := k; l < len(c); l++ {
			row[c[l]] += float64(alpha * v[l])
		}
	}
}
