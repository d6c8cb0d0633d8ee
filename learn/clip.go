package learn

import "math"

// clipFactors sets c[i] to the factor that clips the gradient whose squared
// norm is sq[i] (computed in float64):
//
//	hard: min(1, C/‖g‖)               (1 for ‖g‖ = 0 or C = +Inf)
//	soft: 1/(GELU(‖g‖/C − 1) + 1)     (Guo et al. 2022, tanh-form GELU)
func clipFactors(kind string, C float64, sq []float64, c []float32) {
	for i, s := range sq {
		norm := math.Sqrt(s)
		switch {
		case kind == ClipSoft:
			c[i] = float32(1 / (geluTanh(norm/C-1) + 1))
		case norm > C:
			c[i] = float32(C / norm)
		case norm != norm: // NaN: let it propagate so the step fails loudly
			c[i] = float32(norm)
		default:
			c[i] = 1
		}
	}
}

// geluTanh is GELU in its tanh approximation,
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), jax.nn.gelu's default.
func geluTanh(x float64) float64 {
	const k = 0.7978845608028654 // √(2/π)
	// float64(…) keeps the cube from fusing with the sum into an FMA
	// (arm64, GOAMD64=v3): same bits on every platform.
	return 0.5 * x * (1 + math.Tanh(k*(x+float64(0.044715*x*x*x))))
}
