package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// activation applies a pointwise nonlinearity to n values per example. Its
// backward pass uses only the outputs: relu' = [y > 0], tanh' = 1 − y²,
// elu' = y + 1 for y ≤ 0 (α = 1), sigmoid' = y(1 − y).
type activation struct {
	kind Activation
	n    int
}

func (a *activation) describe() string              { return fmt.Sprintf("%s %d", a.kind, a.n) }
func (a *activation) inSize() int                   { return a.n }
func (a *activation) outSize() int                  { return a.n }
func (a *activation) numParams() int                { return 0 }
func (a *activation) bind([]float32)                {}
func (a *activation) initParams(*rand.Rand, string) {}
func (a *activation) newScratch(int) *scratch       { return &scratch{} }

func (a *activation) forward(s *scratch, in, out []float32, b int) {
	x, y := in[:b*a.n], out[:b*a.n]
	switch a.kind {
	case ReLU:
		for i, v := range x {
			y[i] = max(v, 0)
		}
	case Tanh:
		tanhSlice(y, x)
	case ELU:
		// Branch-free (signs are unpredictable): exp32(0) − 1 = 0 exactly.
		for i, v := range x {
			y[i] = max(v, 0) + (exp32(min(v, 0)) - 1)
		}
	case Sigmoid:
		for i, v := range x {
			y[i] = sigmoid32(v)
		}
	}
}

func (a *activation) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if dIn == nil {
		return
	}
	y, g, d := out[:b*a.n], dOut[:b*a.n], dIn[:b*a.n]
	switch a.kind {
	case ReLU:
		// Branch-free: y ≥ 0, and y > 0 exactly when its bits, read as an
		// int32, are positive, so −bits >> 31 is an all-ones mask.
		for i, v := range y {
			mask := uint32(-int32(math.Float32bits(v)) >> 31)
			d[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
		}
	case Tanh:
		// float32(v·v) keeps 1 − v² from fusing into an FMA on some
		// platforms (see tanh32).
		for i, v := range y {
			d[i] = g[i] * (1 - float32(v*v))
		}
	case ELU:
		for i, v := range y {
			d[i] = g[i] * (min(v, 0) + 1)
		}
	case Sigmoid:
		for i, v := range y {
			d[i] = g[i] * v * (1 - v)
		}
	}
}

// tanh32 is a float32 tanh accurate to a few ulp (max abs error 3.4e−7):
// the [13/6] rational approximation used by Eigen (ptanh_float) on x
// clamped to [−9, 9], beyond which tanh rounds to ±1 in float32, with both
// polynomials in x² by Horner's scheme. NaN passes the clamp (comparisons
// are false) and comes out NaN, so the trainer sees it. It is the scalar
// definition of gemm.Tanh (learn/gemm/tanh.go), which tanhSlice uses and
// which reproduces it bit for bit: the same float32 operations in the same
// order. float32(…) around every product forbids fusing it with the
// following addition into an FMA (Go spec, "Floating-point operators"),
// which the compiler does on arm64 and with GOAMD64=v3 and which would
// change the result by platform.
func tanh32(x float32) float32 {
	if x > 9 {
		x = 9
	}
	if x < -9 {
		x = -9
	}
	x2 := x * x
	p := float32(x2*tanhA13) + tanhA11
	p = float32(x2*p) + tanhA9
	p = float32(x2*p) + tanhA7
	p = float32(x2*p) + tanhA5
	p = float32(x2*p) + tanhA3
	p = float32(x2*p) + tanhA1
	p *= x
	q := float32(x2*tanhB6) + tanhB4
	q = float32(x2*q) + tanhB2
	q = float32(x2*q) + tanhB0
	return p / q
}

// Coefficients of tanh32's numerator (odd) and denominator (even).
const (
	tanhA1  = 4.89352455891786e-03
	tanhA3  = 6.37261928875436e-04
	tanhA5  = 1.48572235717979e-05
	tanhA7  = 5.12229709037114e-08
	tanhA9  = -8.60467152213735e-11
	tanhA11 = 2.00018790482477e-13
	tanhA13 = -2.76076847742355e-16
	tanhB0  = 4.89352518554385e-03
	tanhB2  = 2.26843463243900e-03
	tanhB4  = 1.18534705686654e-04
	tanhB6  = 1.19825839466702e-06
)

// sigmoid32 returns 1/(1+e^−x).
func sigmoid32(x float32) float32 {
	return 1 / (1 + exp32(-x))
}
