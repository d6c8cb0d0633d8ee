// Package glm holds L2-regularised logistic regression solved to
// optimality, the learners that release it privately (output perturbation
// with Gaussian, ℓ2-Laplace and metric-DP noise; projected noisy SGD), and
// the exact per-sample Fisher-information leakage (dFIL) of output
// perturbation (Guo et al. 2022, §5 and §7; Mukherjee & Lokam 2023, §5 and
// App. C; notes: shared/reference/guo2022-bounding-reconstruction.md §2.4,
// mukherjee2023-reconstruction-lower-bounds.md §3.3).
//
// Everything is float64: the GLM attack inverts the optimality condition,
// so the fit must be accurate far beyond what float32 training offers.
//
// The objective is Guo et al.'s (their code, notes §2.4):
//
//	F(θ) = Σ_j BCEWithLogits(θᵀx̃_j, y_j) + (Nλ/2)·‖θ‖²
//
// with x̃ = [1, x] when there is a bias (the bias is column 0 and is
// regularised like every other weight) and x̃ = x otherwise.
package glm

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid marks bad input (a caller error, exit code 2 in the CLI); it
// is the module's one input-error sentinel (internal/inputerr).
var ErrInvalid = inputerr.ErrInvalid

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Data is a binary classification training set stored row-sparse: image
// data (MNIST 0-vs-1 has ≈ 15% non-zero pixels) makes every per-sample
// product cheaper by that factor, and dense data costs the same as a dense
// layout. Rows are x̃ (with the bias column 0 when Bias).
type Data struct {
	N    int  // samples
	D    int  // input coordinates (without the bias)
	P    int  // parameters: D + 1 with a bias, D without
	Bias bool // column 0 of x̃ is the constant 1

	Y []float64 // labels in {0, 1}

	rowPtr []int     // row i's entries are [rowPtr[i], rowPtr[i+1])
	col    []int32   // column in x̃ (0..P−1)
	val    []float64 // value
}

// NewData builds the training set from row-major features x (N×D) and
// labels y in {0, 1}.
func NewData(x []float32, y []int32, n, d int, bias bool) (*Data, error) {
	if n < 1 || d < 1 || len(x) != n*d || len(y) != n {
		return nil, invalidf("data shape: %d features for %d×%d, %d labels", len(x), n, d, len(y))
	}
	p := d
	off := 0
	if bias {
		p, off = d+1, 1
	}
	g := &Data{N: n, D: d, P: p, Bias: bias, Y: make([]float64, n), rowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		switch y[i] {
		case 0, 1:
			g.Y[i] = float64(y[i])
		default:
			return nil, invalidf("logistic regression needs labels 0 and 1, sample %d has %d", i, y[i])
		}
		if bias {
			g.col = append(g.col, 0)
			g.val = append(g.val, 1)
		}
		for k, v := range x[i*d : (i+1)*d] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, invalidf("sample %d feature %d is %v", i, k, v)
			}
			if v != 0 {
				g.col = append(g.col, int32(k+off))
				g.val = append(g.val, float64(v))
			}
		}
		g.rowPtr[i+1] = len(g.col)
	}
	return g, nil
}

// row returns the non-zero entries of x̃_i.
func (g *Data) row(i int) ([]int32, []float64) {
	a, b := g.rowPtr[i], g.rowPtr[i+1]
	return g.col[a:b], g.val[a:b]
}

// Row returns the non-zero entries of x̃_i: columns of x̃ (the bias, when
// present, is column 0) and values. The slices alias the data.
func (g *Data) Row(i int) ([]int32, []float64) { return g.row(i) }

// Dot returns θᵀx̃_i.
func (g *Data) Dot(i int, theta []float64) float64 {
	c, v := g.row(i)
	var s float64
	for k, j := range c {
		s += v[k] * theta[j]
	}
	return s
}

// AddScaled adds a·x̃_i to dst (length P).
func (g *Data) AddScaled(dst []float64, a float64, i int) {
	c, v := g.row(i)
	for k, j := range c {
		dst[j] += a * v[k]
	}
}

// Input returns the input x_i (without the bias coordinate) as a dense
// vector of length D.
func (g *Data) Input(i int, dst []float64) []float64 {
	if cap(dst) < g.D {
		dst = make([]float64, g.D)
	}
	dst = dst[:g.D]
	clear(dst)
	off := 0
	if g.Bias {
		off = 1
	}
	c, v := g.row(i)
	for k, j := range c {
		if int(j) >= off {
			dst[int(j)-off] = v[k]
		}
	}
	return dst
}

// InputNormSq returns ‖x_i‖² (without the bias coordinate).
func (g *Data) InputNormSq(i int) float64 {
	c, v := g.row(i)
	var s float64
	for k, j := range c {
		if !g.Bias || j != 0 {
			s += v[k] * v[k]
		}
	}
	return s
}

// MaxInputNorm returns max_i ‖x_i‖.
func (g *Data) MaxInputNorm() float64 {
	var m float64
	for i := 0; i < g.N; i++ {
		m = math.Max(m, g.InputNormSq(i))
	}
	return math.Sqrt(m)
}

// NonZeros is the number of stored entries (for cost estimates).
func (g *Data) NonZeros() int { return len(g.val) }

// sigmoid is the logistic function, stable for large |t|.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// Sigmoid is the logistic function.
func Sigmoid(t float64) float64 { return sigmoid(t) }

// bce is BCEWithLogits(t, y) = log(1 + e^t) − y·t, stable.
func bce(t, y float64) float64 {
	var sp float64
	if t > 0 {
		sp = t + math.Log1p(math.Exp(-t))
	} else {
		sp = math.Log1p(math.Exp(t))
	}
	return sp - y*t
}
