package identify

import "math"

// Adversary is A_DI,Gau (Algorithm 1): a posterior belief β that the
// released gradients came from D rather than D′, from the uniform prior ½,
// updated by Lemma 1's recursion. It keeps the log-odds Λ = log(β/(1 − β))
// rather than β: Gaussian densities in ≈10⁴ dimensions underflow, and β
// saturates at 1 in float64 long before Λ overflows (Λ > 37 rounds β to 1).
type Adversary struct {
	logOdds float64
	steps   int
}

// Observe updates the belief with one released noisy sum r of a Gaussian
// step with noise std sigma, given the clean sums mu1 = Σ_D ḡ and
// mu0 = Σ_D′ ḡ the adversary recomputed at the released weights:
//
//	Λ += (‖r − μ₀‖² − ‖r − μ₁‖²)/(2σ²) = Σ_j (μ₁−μ₀)_j·(2r − μ₀ − μ₁)_j/(2σ²).
//
// The second form (accumulated in float64) avoids the cancellation of two
// norms of size σ²·P. sigma = 0 (a step whose local sensitivity is 0
// releases the clean sum, equal in both worlds) adds nothing when μ₁ = μ₀.
// It returns the step's log-likelihood ratio.
func (a *Adversary) Observe(r, mu1, mu0 []float32, sigma float64) float64 {
	a.steps++
	var s float64
	for j := range r {
		d := float64(mu1[j]) - float64(mu0[j])
		s += d * (2*float64(r[j]) - float64(mu0[j]) - float64(mu1[j]))
	}
	if s == 0 {
		return 0
	}
	llr := s / (2 * sigma * sigma)
	a.logOdds += llr
	return llr
}

// LogOdds returns Λ_k = log(β_k/(1 − β_k)).
func (a *Adversary) LogOdds() float64 { return a.logOdds }

// Belief returns β_k = 1/(1 + e^{−Λ_k}).
func (a *Adversary) Belief() float64 { return Logistic(a.logOdds) }

// GuessD reports the decision of Eq. 4: D iff β_k > ½ (Λ_k > 0).
func (a *Adversary) GuessD() bool { return a.logOdds > 0 }

// Logistic returns 1/(1 + e^{−x}) without overflow.
func Logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// WorstCaseOutput writes into r the release of the authors' worst-case
// mode (their code only; note §3.2 item 6): r = μ₁ + t·u with
// u = (μ₁ − μ₀)/Δ, Δ = ‖μ₁ − μ₀‖ and t = ε_i·σ²/Δ − Δ/2, the point along
// the line between the two means where the step's log-likelihood ratio is
// exactly ε_i. k such steps with Σε_i = ε give β_k = 1/(1 + e^{−ε}) = ρ_β
// deterministically. Δ = 0 writes μ₁.
func WorstCaseOutput(r, mu1, mu0 []float32, sigma, epsStep float64) {
	var dd float64
	for j := range mu1 {
		d := float64(mu1[j]) - float64(mu0[j])
		dd += d * d
	}
	delta := math.Sqrt(dd)
	if delta == 0 {
		copy(r, mu1)
		return
	}
	t := epsStep*sigma*sigma/delta - delta/2
	for j := range r {
		r[j] = mu1[j] + float32(t*(float64(mu1[j])-float64(mu0[j]))/delta)
	}
}
