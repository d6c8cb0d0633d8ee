// Package glm is the informed adversary's closed-form reconstruction of a
// training input from a released L2-regularised logistic regression
// (Balle, Cherubin & Hayes 2022, as run by Guo et al. 2022 §7.2 and
// Mukherjee & Lokam 2023 §5; notes: guo2022 §3, mukherjee2023 §3.4).
//
// The adversary knows every other training sample, λ and N. At the exact
// optimum, ∇F(θ*) = 0 gives (σ(θ*ᵀx̃_i) − y_i)·x̃_i = −b_i with
// b_i = Σ_{j≠i} (σ(θ*ᵀx̃_j) − y_j)·x̃_j + Nλθ*, and since x̃_i[0] = 1 (the bias
// column), x̃_i = b_i / b_i[0]. On a noisy release θ̂ the same formula is
// applied unchanged; it fails when b_i[0] = −(σ(θ̂ᵀx̃_i) − y_i) vanishes
// (samples the model fits perfectly), which is counted, never dropped.
package glm

import (
	"errors"
	"fmt"
	"math"

	lglm "github.com/dpaudit/dpaudit/learn/glm"
)

// ErrNotGLM is returned for a model the attack does not apply to.
var ErrNotGLM = errors.New("the GLM attack needs L2-regularised logistic regression with a bias column")

// Attack holds the adversary's knowledge: the whole training set (the
// target's own row is excluded per target) and λ.
type Attack struct {
	data   *lglm.Data
	lambda float64
	// Guard: reconstructions with |b_i[0]| ≤ Guard are failures.
	Guard float64

	s []float64 // Σ_j g_j(θ̂) + Nλθ̂ of the last Prepare
	r []float64 // residuals σ(θ̂ᵀx̃_j) − y_j
}

// New prepares the attack on data (which must have a bias column).
func New(data *lglm.Data, lambda, guard float64) (*Attack, error) {
	if !data.Bias {
		return nil, fmt.Errorf("%w: the model has no bias, so b_i[0] cannot normalise the reconstruction", ErrNotGLM)
	}
	if !(lambda >= 0) {
		return nil, fmt.Errorf("λ must be ≥ 0, got %v", lambda)
	}
	return &Attack{data: data, lambda: lambda, Guard: guard, s: make([]float64, data.P), r: make([]float64, data.N)}, nil
}

// Prepare computes the sum over all samples of the gradients at the
// released θ̂ (one pass over the data), shared by every target.
func (a *Attack) Prepare(theta []float64) {
	g := a.data
	for c := range a.s {
		a.s[c] = float64(g.N) * a.lambda * theta[c]
	}
	for j := 0; j < g.N; j++ {
		a.r[j] = lglm.Sigmoid(g.Dot(j, theta)) - g.Y[j]
		g.AddScaled(a.s, a.r[j], j)
	}
}

// Reconstruct writes x̂_i (the input, without the bias coordinate) for
// target i from the last prepared release into dst and returns it with
// b_i[0] (for LabelEstimate); ok is false when |b_i[0]| ≤ Guard (dst is
// then left undefined).
func (a *Attack) Reconstruct(i int, dst []float64) (x []float64, b0 float64, ok bool) {
	g := a.data
	if cap(dst) < g.D {
		dst = make([]float64, g.D)
	}
	dst = dst[:g.D]
	// b = S − r_i x̃_i; x̃_i has 1 in column 0.
	b0 = a.s[0] - a.r[i]
	if !(math.Abs(b0) > a.Guard) {
		return dst, b0, false
	}
	inv := 1 / b0
	for c := range dst {
		dst[c] = a.s[c+1] * inv
	}
	// Remove the target's own term −r_i·x_i/b0 (sparse).
	cols, vals := g.Row(i)
	for k, c := range cols {
		if c > 0 {
			dst[c-1] -= a.r[i] * vals[k] * inv
		}
	}
	return dst, b0, true
}

// LabelEstimate is ŷ = σ(θ̂ᵀx̂̃) + b[0] (notes §3): σ(θᵀx̃) − (σ(θᵀx̃) − y).
func LabelEstimate(theta, xhat []float64, b0 float64) float64 {
	t := theta[0]
	for c, v := range xhat {
		t += theta[c+1] * v
	}
	return lglm.Sigmoid(t) + b0
}
