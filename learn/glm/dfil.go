package glm

import (
	"context"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// JacobianNorms returns, for every training sample i, ‖J_i[:, K]‖_F² / |K|,
// where J_i = ∂θ*/∂x_i is the Jacobian of the optimum with respect to the
// sample's input (implicit function theorem on ∇F(θ*) = 0; notes §2.4):
//
//	J_i = −A·(a_i x̃_i θ*ᵀ + b_i I),  A = H⁻¹, a_i = s_i(1−s_i), b_i = s_i − y_i
//
// and K is the set of input columns (the bias column, a constant, is
// dropped). The released model's Fisher information about x_i under
// additive noise with Fisher matrix c·I is c·J_iᵀJ_i, so the dFIL is
// η̄_i² = c · JacobianNorms[i] (c = 1/σ² for Gaussian noise).
//
// Nothing of size N×P×P is formed (the reference code's 31 GB tensor).
// With u_i = A x̃_i and B = A² (A is symmetric),
//
//	‖J_i[:,K]‖_F² = a²‖u_i‖²‖θ_K‖² + 2ab·(Aθ_K)ᵀu_i + b²·Σ_{c∈K}‖A[:,c]‖²
//	             = a²·x̃_iᵀBx̃_i·‖θ_K‖² + 2ab·(Bθ_K)ᵀx̃_i + b²·Σ_{c∈K} B[c][c],
//
// so one Cholesky inverse, one product B = A·A and a sparse quadratic
// form per sample (nnz_i²/2 terms; forming u_i took nnz_i·P). Columns
// that are zero in every sample (MNIST's border pixels) have rows and
// columns of H that hold the ridge alone, so A and B are block diagonal:
// the inverse, B and the quadratic forms are formed over the other,
// active columns only (x̃ is zero in the rest), and the rest add
// 1/H[c][c]² each to the last sum. Work: O(P_active³) +
// O(Σ nnz_i²). The quadratic forms take B a block of rows at a time, for
// a chunk of samples, so the block stays in a core's second-level cache.
// Each sample's result depends on that sample only (and the fixed blocks),
// whatever the number of cores.
func JacobianNorms(g *Data, lambda float64, theta []float64) ([]float64, error) {
	p := g.P
	if len(theta) != p {
		return nil, invalidf("θ has %d parameters, the data %d", len(theta), p)
	}
	h := Hessian(g, lambda, theta)
	act := g.activeColumns()
	n8 := (len(act) + 7) &^ 7
	b, a := activeBlock(h, act, n8), make([]float64, n8*n8)
	if !inverseSPD(b, a, n8) {
		return nil, invalidf("Hessian is not positive definite (λ = %v)", lambda)
	}
	gram(a, n8, false, b) // B = A² over the active columns; B[c][c] = 1/H[c][c]² elsewhere
	first := 0            // first input column of x̃
	if g.Bias {
		first = 1
	}
	thetaK := append([]float64(nil), theta...)
	for c := 0; c < first; c++ {
		thetaK[c] = 0
	}
	thetaKSq := floats.Dot(thetaK, thetaK)
	pos := make([]int32, p) // active index of each active column, −1 for the others
	for c := range pos {
		pos[c] = -1
	}
	thetaKAct := make([]float64, len(act)) // θ_K over the active columns
	for i, c := range act {
		pos[c], thetaKAct[i] = int32(i), thetaK[c]
	}
	var frobK float64 // Σ_{c∈K} B[c][c]
	for c := first; c < p; c++ {
		if i := int(pos[c]); i >= 0 {
			frobK += b[i*n8+i]
		} else {
			frobK += 1 / (h.At(c, c) * h.At(c, c))
		}
	}
	w := make([]float64, len(act)) // (B θ_K)_c over the active columns: x̃ is zero elsewhere
	for i := range w {
		w[i] = floats.Dot(b[i*n8:][:len(act)], thetaKAct)
	}
	qf := &quadForms{g: g, pos: pos, b: b, stride: n8, blocks: (len(act) + dfilRows - 1) / dfilRows}
	d := float64(p - first)
	out := make([]float64, g.N)
	workers := parallel.Workers((g.N+dfilChunk-1)/dfilChunk, 0)
	scratch := make([]quadScratch, workers)
	err := parallel.Chunks(context.Background(), g.N, dfilChunk, workers, func(worker, lo, hi int) error {
		t := qf.forms(lo, hi, &scratch[worker])
		for i := lo; i < hi; i++ {
			var z, wx float64 // θᵀx̃_i, (Bθ_K)ᵀx̃_i
			c, v := g.row(i)
			for k, col := range c {
				z += v[k] * theta[col]
				wx += w[pos[col]] * v[k]
			}
			s := sigmoid(z)
			ai, bi := s*(1-s), s-g.Y[i]
			fro := ai*ai*t[i-lo]*thetaKSq + 2*ai*bi*wx + bi*bi*frobK
			out[i] = fro / d
		}
		return nil
	})
	return out, err
}

// activeColumns returns the columns of x̃ that are not zero in every row,
// increasing.
func (g *Data) activeColumns() []int32 {
	used := make([]bool, g.P)
	for _, c := range g.col {
		used[c] = true
	}
	var act []int32
	for c, u := range used {
		if u {
			act = append(act, int32(c))
		}
	}
	return act
}

// activeBlock returns h's submatrix on the columns act in inverseSPD's
// layout: n8×n8 row-major, the lower triangle and diagonal set, padded
// with the identity.
func activeBlock(h *mat.SymDense, act []int32, n8 int) []float64 {
	l := make([]float64, n8*n8)
	for i, r := range act {
		for j, c := range act[:i+1] {
			l[i*n8+j] = h.At(int(r), int(c))
		}
	}
	for i := len(act); i < n8; i++ {
		l[i*n8+i] = 1
	}
	return l
}

// Jacobian returns J_i = ∂θ*/∂x_i (P×D, row = parameter, column = input
// coordinate) densely, for tests and small problems.
func Jacobian(g *Data, lambda float64, theta []float64, i int) (*mat.Dense, error) {
	p := g.P
	var chol mat.Cholesky
	if !chol.Factorize(Hessian(g, lambda, theta)) {
		return nil, invalidf("Hessian is not positive definite (λ = %v)", lambda)
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	x := make([]float64, p)
	g.AddScaled(x, 1, i)
	s := sigmoid(g.Dot(i, theta))
	ai, bi := s*(1-s), s-g.Y[i]
	// M = a x̃ θᵀ + b I, restricted to the input columns.
	first := p - g.D
	m := mat.NewDense(p, g.D, nil)
	for r := 0; r < p; r++ {
		for c := 0; c < g.D; c++ {
			v := ai * x[r] * theta[c+first]
			if r == c+first {
				v += bi
			}
			m.Set(r, c, v)
		}
	}
	var j mat.Dense
	j.Mul(&inv, m)
	j.Scale(-1, &j)
	return &j, nil
}
