package membership

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/stages"
)

// The white-box score for matrix-factorization noise. The released noisy
// sums of a Dirac canary's coordinate are y = u + d + σ·C⁻¹w over the T
// steps (u its participations, d the data's clipped gradients on that
// coordinate, w i.i.d. N(0, 1)); an adversary who knows the strategy C
// decorrelates them, C·y = C·u + C·d + σ·w, and sees independent-noise
// steps again, shifted by C·u where the canary took part. The
// Neyman–Pearson statistic for that shift is the projection on C·u,
//
//	score = ⟨C·u, C·y⟩ / ‖C·u‖  ~  N(‖C·u‖ + ⟨C·u, C·d⟩/‖C·u‖, σ²)  (in)
//	                               N(⟨C·u, C·d⟩/‖C·u‖, σ²)          (out),
//
// whose shift ‖C·u‖/σ is the μ the accountant charges for the worst u
// (the data's term is the same in both worlds and only blurs the test).
// u is the canary's group's steps under cyclic sampling — the steps it
// takes part in at q = 1, and their superset at q < 1 — and every step
// otherwise; it is the same for an included and an excluded canary, so
// the score is a fixed function of what was released.

// decorrelatedScores returns each canary's score from its stream ys[j]
// (y_t = NoisySum_t[p_j]/C over the steps), its group (groups nil: no
// groups) and the number of groups.
func decorrelatedScores(c *stages.Correlated, ys [][]float64, groups []int, nGroups int) ([]float64, error) {
	if len(ys) == 0 {
		return nil, nil
	}
	T := len(ys[0])
	coef := c.Coefficients
	if c.Strategy == "blt" {
		var err error
		if coef, err = privacy.BLTCoefficients(c.Omega, c.Theta, T); err != nil {
			return nil, err
		}
	}
	if len(coef) == 0 || len(coef) > T {
		return nil, fmt.Errorf("decorrelating: %d strategy coefficients for %d steps", len(coef), T)
	}
	scores := make([]float64, len(ys))
	u, v, w := make([]float64, T), make([]float64, T), make([]float64, T)
	for j, y := range ys {
		for t := range u {
			u[t] = 1
			if groups != nil && t%nGroups != groups[j] {
				u[t] = 0
			}
		}
		toeplitzMul(coef, u, v)
		toeplitzMul(coef, y, w)
		dot, norm := 0.0, 0.0
		for t := range v {
			dot += v[t] * w[t]
			norm += v[t] * v[t]
		}
		scores[j] = dot / math.Sqrt(norm)
	}
	return scores, nil
}

// toeplitzMul sets dst = C·x for the lower-triangular Toeplitz C whose
// first column starts with coef (0 below).
func toeplitzMul(coef, x, dst []float64) {
	for t := range dst {
		s := 0.0
		for i := 0; i < len(coef) && i <= t; i++ {
			s += coef[i] * x[t-i]
		}
		dst[t] = s
	}
}

// canaryGroups is every canary's group: an included canary's is the
// trainer's (trained[k] for the k-th included canary, in canary order);
// an excluded canary, which the trainer never saw, gets one drawn
// uniformly from r — the law of an included canary's group — so that its
// score has the law of an excluded canary's under any group.
func canaryGroups(trained []int, in []bool, nGroups int, r *rand.Rand) []int {
	out := make([]int, len(in))
	k := 0
	for j, inc := range in {
		if inc {
			out[j] = trained[k]
			k++
		} else {
			out[j] = r.IntN(nGroups)
		}
	}
	return out
}
