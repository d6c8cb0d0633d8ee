package glm

import (
	"math"
	"math/rand/v2"
)

// Noise names the output-perturbation mechanism.
type Noise string

const (
	// NoiseGaussian releases θ* + σ·N(0, I) (Guo et al. §7.1: σ absolute).
	NoiseGaussian Noise = "gaussian"
	// NoiseLaplace releases θ* + b with density ∝ exp(−‖b‖₂/s): ‖b‖ ~
	// Gamma(P, s), direction uniform (Chaudhuri et al. 2011, the ε-DP
	// mechanism Mukherjee & Lokam use, their §5).
	NoiseLaplace Noise = "laplace"
)

// OutputPerturbation releases θ* plus noise.
type OutputPerturbation struct {
	Noise Noise
	Scale float64 // Gaussian: σ; ℓ2-Laplace: s
}

// Release writes one private release θ* + noise into dst, drawing from r.
func (o OutputPerturbation) Release(theta []float64, r *rand.Rand, dst []float64) []float64 {
	p := len(theta)
	if cap(dst) < p {
		dst = make([]float64, p)
	}
	dst = dst[:p]
	switch o.Noise {
	case NoiseLaplace:
		var n2 float64
		for c := range dst {
			z := r.NormFloat64()
			dst[c] = z
			n2 += z * z
		}
		k := gammaVariate(r, float64(p)) * o.Scale / math.Sqrt(n2)
		for c := range dst {
			dst[c] = theta[c] + k*dst[c]
		}
	default:
		for c := range dst {
			dst[c] = theta[c] + o.Scale*r.NormFloat64()
		}
	}
	return dst
}

// FisherScale is c in the noise's Fisher information c·I about its mean:
// 1/σ² for the Gaussian; for the ℓ2-Laplace the score is −b̂/s with b̂ a
// uniform unit vector, so E[b̂b̂ᵀ]/s² = I/(P·s²). The dFIL of sample i is
// FisherScale·JacobianNorms[i]. (The ℓ2-Laplace log-density is not
// differentiable at b = 0, a null set; Cramér–Rao's regularity holds in
// the integrated sense used here.)
func (o OutputPerturbation) FisherScale(p int) float64 {
	if o.Noise == NoiseLaplace {
		return 1 / (float64(p) * o.Scale * o.Scale)
	}
	return 1 / (o.Scale * o.Scale)
}

// Sensitivity is the ℓ2 sensitivity of θ* under replacing one sample,
// 2R̃/(Nλ), for inputs with ‖x̃‖ ≤ R̃ (BCE's gradient in θ is bounded by
// ‖x̃‖ and F is Nλ-strongly convex; Chaudhuri et al. 2011, Cor. 8).
func Sensitivity(n int, lambda, normBound float64) float64 {
	return 2 * normBound / (float64(n) * lambda)
}

// InputLipschitz bounds ‖∂θ*/∂x_i‖₂ over every data set whose inputs
// have ‖x̃‖ ≤ R̃: ‖A‖ ≤ 1/(Nλ), a ≤ 1/4, |b| ≤ 1 and ‖θ*‖ ≤ R̃/λ (from
// Nλθ* = −Σ b_j x̃_j) give (1 + R̃²/(4λ))/(Nλ). The Euclidean metric-DP
// Laplace scale is this over ε_L (Chatzikokolakis et al. 2013; the
// constant is ours, Mukherjee & Lokam do not give one — notes §3.1).
func InputLipschitz(n int, lambda, normBound float64) float64 {
	return (1 + normBound*normBound/(4*lambda)) / (float64(n) * lambda)
}

// gammaVariate draws Gamma(shape, 1) for shape ≥ 1 (Marsaglia & Tsang 2000).
func gammaVariate(r *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
