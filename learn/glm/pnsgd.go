package glm

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// PNSGD is projected noisy SGD (Feldman et al. 2018, Algorithm 1; Mukherjee
// & Lokam App. C): one pass over the data in their stored order, one sample
// per step, from w₀ = 0,
//
//	w ← Π_K(w − η(∇f(w, z_t) + Z)),  Z ~ N(0, σ²I),  K = {‖w‖ ≤ radius},
//
// releasing only the final iterate. f(w, z) = BCE(wᵀx̃, y) + (λ/2)‖w‖²
// keeps the objective of the output-perturbation learner (per sample), so
// the GLM attack applies to both; λ = 0 is plain logistic loss.
type PNSGD struct {
	Lambda       float64
	LearningRate float64 // η
	NoiseStd     float64 // σ, added to the gradient (parameter noise ησ)
	Radius       float64 // of the projection ball K
}

// Run trains once and writes the final iterate into dst.
func (c PNSGD) Run(g *Data, r *rand.Rand, dst []float64) []float64 {
	p := g.P
	if cap(dst) < p {
		dst = make([]float64, p)
	}
	w := dst[:p]
	clear(w)
	for t := 0; t < g.N; t++ {
		res := sigmoid(g.Dot(t, w)) - g.Y[t]
		// w − η(λw + Z) first (dense), then the sparse data term.
		shrink := 1 - c.LearningRate*c.Lambda
		ns := c.LearningRate * c.NoiseStd
		for k := range w {
			w[k] = shrink*w[k] - ns*r.NormFloat64()
		}
		g.AddScaled(w, -c.LearningRate*res, t)
		if n := floats.Norm(w, 2); n > c.Radius {
			floats.Scale(c.Radius/n, w)
		}
	}
	return w
}

// PNSGDLipschitz is G, the Lipschitz constant of f over K for inputs with
// ‖x̃‖ ≤ R̃: ‖(s − y)x̃ + λw‖ ≤ R̃ + λ·radius.
func PNSGDLipschitz(normBound, lambda, radius float64) float64 {
	return normBound + lambda*radius
}

// PNSGDInputLipschitz bounds how fast ∇f(w, x) moves with the input x
// for ‖w‖ ≤ radius and ‖x̃‖ ≤ R̃: ‖∂/∂x [(σ(wᵀx̃) − y)x̃]‖ ≤ ‖x̃‖‖w‖/4 + 1,
// Mukherjee & Lokam's L_input for logistic loss (ours; the paper gives
// no value).
func PNSGDInputLipschitz(normBound, radius float64) float64 {
	return normBound*radius/4 + 1
}

// PNSGDSmoothness is β, the smoothness of f: ‖x̃‖²/4 + λ. Feldman et al.'s
// analysis needs η ≤ 2/β.
func PNSGDSmoothness(normBound, lambda float64) float64 {
	return normBound*normBound/4 + lambda
}

// PNSGDEpsilon is the (ε, δ)-DP of the sample at position t ∈ [1, n]:
// Feldman et al.'s Theorem 23 gives (α, αa)-RDP with a = 2G²/(σ²(n−t+1))
// (replace-one), converted with Mironov's ε = αa + log(1/δ)/(α − 1) at the
// best α, ε = a + 2√(a·log(1/δ)) (notes §4; Mukherjee & Lokam do not say
// which conversion they used).
func PNSGDEpsilon(lipschitz, sigma float64, n, t int, delta float64) float64 {
	a := 2 * lipschitz * lipschitz / (sigma * sigma * float64(n-t+1))
	return a + 2*math.Sqrt(a*math.Log(1/delta))
}

// PNSGDCalibrate is the smallest σ with PNSGDEpsilon ≤ ε: a =
// (√(log(1/δ) + ε) − √log(1/δ))², σ² = 2G²/(a(n − t + 1)) (notes §4,
// fact 16).
func PNSGDCalibrate(lipschitz, eps float64, n, t int, delta float64) float64 {
	l := math.Log(1 / delta)
	s := math.Sqrt(l+eps) - math.Sqrt(l)
	a := s * s
	return math.Sqrt(2 * lipschitz * lipschitz / (a * float64(n-t+1)))
}
