package glm

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
// Nothing of size N×P×P is formed (the reference code's 31 GB tensor): one
// Cholesky inverse of H, then per sample u_i = A·x̃_i (a sparse
// combination of rows of A) and
//
//	‖J_i[:,K]‖_F² = a²‖u_i‖²‖θ_K‖² + 2ab·(Aθ_K)ᵀu_i + b²·Σ_{c∈K}‖A[:,c]‖²
//
// because Σ_{c∈K} θ_c (A u_i)_c = (Aθ_K)ᵀu_i (A is symmetric). Work:
// O(P³) + O(nnz(X)·P). The samples are split over the CPUs; each result
// depends on its sample only, so the output does not depend on the split.
func JacobianNorms(g *Data, lambda float64, theta []float64) ([]float64, error) {
	p := g.P
	if len(theta) != p {
		return nil, invalidf("θ has %d parameters, the data %d", len(theta), p)
	}
	var chol mat.Cholesky
	if !chol.Factorize(Hessian(g, lambda, theta)) {
		return nil, invalidf("Hessian is not positive definite (λ = %v)", lambda)
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	a := make([]float64, p*p) // A row-major (= column-major: symmetric)
	for r := 0; r < p; r++ {
		for c := r; c < p; c++ {
			v := inv.At(r, c)
			a[r*p+c], a[c*p+r] = v, v
		}
	}
	first := 0 // first input column of x̃
	if g.Bias {
		first = 1
	}
	thetaK := append([]float64(nil), theta...)
	for c := 0; c < first; c++ {
		thetaK[c] = 0
	}
	thetaKSq := floats.Dot(thetaK, thetaK)
	v := make([]float64, p) // A θ_K
	for r := 0; r < p; r++ {
		v[r] = floats.Dot(a[r*p:(r+1)*p], thetaK)
	}
	var frobK float64 // Σ_{c∈K} ‖A[:,c]‖² = Σ_{c∈K} ‖A[c,:]‖²
	for c := first; c < p; c++ {
		row := a[c*p : (c+1)*p]
		frobK += floats.Dot(row, row)
	}
	d := float64(p - first)
	out := make([]float64, g.N)
	workers := min(runtime.GOMAXPROCS(0), max(1, g.N/256))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			u := make([]float64, p)
			for i := w; i < g.N; i += workers {
				clear(u)
				cols, vals := g.row(i)
				for k, c := range cols {
					floats.AddScaled(u, vals[k], a[int(c)*p:(int(c)+1)*p])
				}
				s := sigmoid(g.Dot(i, theta))
				ai, bi := s*(1-s), s-g.Y[i]
				fro := ai*ai*floats.Dot(u, u)*thetaKSq + 2*ai*bi*floats.Dot(v, u) + bi*bi*frobK
				out[i] = fro / d
			}
		}(w)
	}
	wg.Wait()
	return out, nil
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
