package glm

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// GELU names the form of GELU in Guo et al.'s soft clip
// g̃ = g / (GELU(‖g‖/C − 1) + 1).
type GELU string

const (
	GELUTanh GELU = "tanh" // jax.nn.gelu's default (and learn's)
	GELUErf  GELU = "erf"  // x·Φ(x)
)

func gelu(kind GELU, x float64) (v, dv float64) {
	if kind == GELUErf {
		phi := numeric.NormCDF(x)
		return x * phi, phi + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
	}
	const k = 0.7978845608028654 // √(2/π)
	t := math.Tanh(k * (x + 0.044715*x*x*x))
	return 0.5 * x * (1 + t), 0.5*(1+t) + 0.5*x*(1-t*t)*k*(1+3*0.044715*x*x)
}

// SoftClipFIL returns, for binary logistic regression without a bias
// (per-example gradient g = (σ(wᵀx) − y)·x), the Jacobian J of the
// soft-clipped gradient g̃ with respect to the input x (row = parameter,
// column = input coordinate) and the per-step Fisher information
// I = JᵀJ/(σ²C²) of the Gaussian mechanism with noise σC (Guo et al. 2022
// Eq. 1 with the 1/C² their Eq. 1 omits; notes §2.5), in closed form:
//
//	J_g = s(1−s)·x wᵀ + (s − y)·I,  g̃ = c(‖g‖)·g,  c(n) = 1/(GELU(n/C − 1) + 1)
//	J   = c·J_g + (c'(n)/n)·g (J_gᵀ g)ᵀ
//
// It is the reference the finite-difference FIL of learn is checked
// against (notes facts F25–F28).
func SoftClipFIL(w, x []float64, y, clip, sigma float64, kind GELU) (clipped []float64, j, fim *mat.Dense) {
	d := len(x)
	var t float64
	for i := range x {
		t += w[i] * x[i]
	}
	s := sigmoid(t)
	a, b := s*(1-s), s-y
	g := make([]float64, d)
	for i := range x {
		g[i] = b * x[i]
	}
	jg := mat.NewDense(d, d, nil)
	for r := 0; r < d; r++ {
		for c := 0; c < d; c++ {
			v := a * x[r] * w[c]
			if r == c {
				v += b
			}
			jg.Set(r, c, v)
		}
	}
	var n2 float64
	for _, v := range g {
		n2 += v * v
	}
	n := math.Sqrt(n2)
	gv, dgv := gelu(kind, n/clip-1)
	cf := 1 / (gv + 1)
	dc := -dgv / clip / ((gv + 1) * (gv + 1))
	clipped = make([]float64, d)
	for i := range g {
		clipped[i] = cf * g[i]
	}
	jtg := mat.NewVecDense(d, nil)
	jtg.MulVec(jg.T(), mat.NewVecDense(d, g))
	j = mat.NewDense(d, d, nil)
	for r := 0; r < d; r++ {
		for c := 0; c < d; c++ {
			v := cf * jg.At(r, c)
			if n > 0 {
				v += dc / n * g[r] * jtg.AtVec(c)
			}
			j.Set(r, c, v)
		}
	}
	fim = mat.NewDense(d, d, nil)
	fim.Mul(j.T(), j)
	fim.Scale(1/(sigma*sigma*clip*clip), fim)
	return clipped, j, fim
}
