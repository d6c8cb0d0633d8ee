package learn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/learn/gemm"
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
		gemm.ReLU(y, x) // y[i] = max(x[i], 0), vectorised
	case Tanh:
		tanhSlice(y, x)
	case ELU:
		// Branch-free (signs are unpredictable): exp32(0) − 1 = 0 exactly.
		// y = max(v, 0) + (exp32(min(v, 0)) − 1), in three passes so that
		// the exponentials run in expInto's loop.
		eluForward(y, x)
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
		// int32, are positive, so −bits >> 31 is an all-ones mask
		// (gemm.ReLUGrad: that loop, vectorised).
		gemm.ReLUGrad(d, g, y)
	case Tanh:
		// float32(v·v) keeps 1 − v² from fusing into an FMA on some
		// platforms (see gemm.Tanh32).
		for i, v := range y {
			d[i] = g[i] * (1 - float32(v*v))
		}
	case ELU:
		// With AVX-512 a vector kernel does all but the last few (the
		// same bits).
		done := eluGradBlocks(d, g, y)
		for i, v := range y[done:] {
			d[done+i] = g[done+i] * (negPart(v) + 1)
		}
	case Sigmoid:
		for i, v := range y {
			d[i] = g[i] * v * (1 - v)
		}
	}
}

// eluForward sets y[i] = max(x[i], 0) + (exp32(min(x[i], 0)) − 1), bit for
// bit, with the exponentials in expInto's loop. negPart and posPart are
// min(v, 0) and max(v, 0) by the sign bit: Go's float min and max are a
// dependent sequence of five instructions each, and the two were a third
// of the ELU's time in a Hayes et al. trial (BenchmarkAuditTrial).
func eluForward(y, x []float32) {
	x = x[:len(y)]
	// With AVX-512, one vector pass does all three steps (the same bits);
	// the loops below finish what it leaves.
	done := eluBlocks(y, x)
	y, x = y[done:], x[done:]
	for i, v := range x {
		y[i] = negPart(v)
	}
	expInto(y, y)
	for i, v := range x {
		y[i] = posPart(v) + (y[i] - 1)
	}
}

// negPart is min(v, 0) for every v but NaN (−0 stays −0); a NaN v may give
// 0, but then posPart(v) is NaN, and the ELU of v is NaN all the same.
func negPart(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits(b & uint32(int32(b)>>31))
}

// posPart is max(v, 0) for every v but NaN (−0 gives +0); a NaN v may give
// 0, but then negPart(v) is NaN.
func posPart(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits(b &^ uint32(int32(b)>>31))
}

// sigmoid32 returns 1/(1+e^−x).
func sigmoid32(x float32) float32 {
	return 1 / (1 + exp32(-x))
}
