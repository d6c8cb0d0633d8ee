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
// Nothing of size N×P×P is formed (the reference code's 31 GB tensor): one
// Cholesky inverse of H, then per sample u_i = A·x̃_i (a sparse
// combination of rows of A) and
//
//	‖J_i[:,K]‖_F² = a²‖u_i‖²‖θ_K‖² + 2ab·(Aθ_K)ᵀu_i + b²·Σ_{c∈K}‖A[:,c]‖²
//
// because Σ_{c∈K} θ_c (A u_i)_c = (Aθ_K)ᵀu_i (A is symmetric). Work:
// O(P³) + O(nnz(X)·P). The u_i are the rows of the sparse-times-dense
// product X̃A, formed for dfilSamples samples at a time one block of
// spmmWidth columns of A after the other (that block, 200 KB at P = 785,
// stays in cache while the samples use it; a sample at a time read all
// of A from memory for every sample), each entry summed over the sample's
// non-zeros in order as one AddScaled per non-zero did, so the bits are
// those of the sample-at-a-time loop. The sample blocks are split over
// the CPUs; each result depends on its sample only.
func JacobianNorms(g *Data, lambda float64, theta []float64) ([]float64, error) {
	p := g.P
	if len(theta) != p {
		return nil, invalidf("θ has %d parameters, the data %d", len(theta), p)
	}
	a, err := inverseHessian(g, lambda, theta)
	if err != nil {
		return nil, err
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
	blocks := packBlocks(a, p)
	out := make([]float64, g.N)
	workers := parallel.Workers((g.N+dfilSamples-1)/dfilSamples, 0)
	us := make([][]float64, workers) // per worker: u_i of its block, row-major
	err = parallel.Chunks(context.Background(), g.N, dfilSamples, workers, func(w, lo, hi int) error {
		if us[w] == nil {
			us[w] = make([]float64, dfilSamples*p)
		}
		u := us[w]
		productRows(g, blocks, lo, hi, u)
		for i := lo; i < hi; i++ {
			ui := u[(i-lo)*p : (i-lo+1)*p]
			s := sigmoid(g.Dot(i, theta))
			ai, bi := s*(1-s), s-g.Y[i]
			fro := ai*ai*floats.Dot(ui, ui)*thetaKSq + 2*ai*bi*floats.Dot(v, ui) + bi*bi*frobK
			out[i] = fro / d
		}
		return nil
	})
	return out, err
}

// dfilSamples is how many samples' u_i are formed together, and spmmWidth
// the columns of A per pass over them.
const (
	dfilSamples = 32
	spmmWidth   = 32
)

// inverseHessian is A = H⁻¹ (Cholesky), row-major (= column-major: A is
// symmetric).
func inverseHessian(g *Data, lambda float64, theta []float64) ([]float64, error) {
	p := g.P
	var chol mat.Cholesky
	if !chol.Factorize(Hessian(g, lambda, theta)) {
		return nil, invalidf("Hessian is not positive definite (λ = %v)", lambda)
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	a := make([]float64, p*p)
	raw := inv.RawSymmetric()
	for r := 0; r < p; r++ {
		for c := r; c < p; c++ {
			v := raw.Data[r*raw.Stride+c]
			a[r*p+c], a[c*p+r] = v, v
		}
	}
	return a, nil
}

// productRows sets u[(i−lo)·P:][:P] = x̃_iᵀA for samples [lo, hi), one
// block of spmmWidth columns of A at a time, from A's blocks as
// packBlocks lays them out.
func productRows(g *Data, blocks []float64, lo, hi int, u []float64) {
	p := g.P
	for c0 := 0; c0 < p; c0 += spmmWidth {
		w := min(spmmWidth, p-c0)
		block := blocks[c0*p:]
		for i := lo; i < hi; i++ {
			cols, vals := g.row(i)
			rowTimesBlock(cols, vals, block, spmmWidth, u[(i-lo)*p+c0:][:w])
		}
	}
}

// packBlocks copies the P×P matrix a into blocks of spmmWidth columns,
// each block's rows contiguous (row r of the block starting at column c0
// at blocks[c0·P + r·spmmWidth:]; the last block's rows padded with
// zeros). productRows reads a block's rows in the order of a sample's
// non-zeros: in place, 32 columns of A's rows are 256 bytes every 8·P
// bytes, a block's P rows on as many pages (785 at MNIST's P, far more
// than the first-level TLB holds); packed, they are 50 contiguous pages,
// and BenchmarkMNISTDFIL took 0.87 of its former time.
func packBlocks(a []float64, p int) []float64 {
	nb := (p + spmmWidth - 1) / spmmWidth
	blocks := make([]float64, nb*spmmWidth*p)
	for c0 := 0; c0 < p; c0 += spmmWidth {
		w := min(spmmWidth, p-c0)
		block := blocks[c0*p:]
		for r := 0; r < p; r++ {
			copy(block[r*spmmWidth:][:w], a[r*p+c0:][:w])
		}
	}
	return blocks
}

// rowTimesBlockGo sets out = Σ_k vals[k]·a[cols[k]·stride:][:len(out)]
// over the row's non-zeros in order, from +0, each product rounded before
// it is added: what floats.AddScaled(u, vals[k], A's row cols[k]) did to
// those entries, one non-zero after the other.
func rowTimesBlockGo(cols []int32, vals []float64, a []float64, stride int, out []float64) {
	clear(out)
	w := len(out)
	for k, c := range cols {
		row := a[int(c)*stride:][:w]
		x := vals[k]
		for j, r := range row {
			out[j] += float64(r * x)
		}
	}
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
