package learn

import (
	"math"
	"math/rand/v2"
)

// initWeights fills w and b (b may be nil) by the named scheme; fanIn and
// fanOut count the inputs and outputs one weight connects (for a conv layer
// they include the kernel area). See the Init constants for the schemes.
func initWeights(r *rand.Rand, scheme string, w, b []float32, fanIn, fanOut int) {
	switch scheme {
	case InitZeros:
		clear(w)
		clear(b)
	case InitGlorot:
		bound := math.Sqrt(6 / float64(fanIn+fanOut))
		fillUniform(r, w, bound)
		clear(b)
	default: // InitPyTorch
		bound := 1 / math.Sqrt(float64(fanIn))
		fillUniform(r, w, bound)
		fillUniform(r, b, bound)
	}
}

// fillUniform draws every x[i] from U(−bound, +bound).
func fillUniform(r *rand.Rand, x []float32, bound float64) {
	for i := range x {
		x[i] = float32((2*r.Float64() - 1) * bound)
	}
}
