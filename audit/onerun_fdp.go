package audit

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// The one-run f-DP audit of Mahloujifar, Melis & Chaudhuri (2024),
// "Auditing f-Differential Privacy in One Run" (arXiv 2410.22235),
// algorithm audit_rh_with_cap; reference note §2. The setting is Steinke et
// al.'s (m canaries, each in with probability ½, cCap guesses of which c
// are right), but the null is "the mechanism is μ-GDP with respect to each
// canary", i.e. f-DP with the Gaussian trade-off curve. The reported ε is
// ε(μ, δ) of the largest μ that is rejected.
//
// What it tests (note erratum E3): rejecting μ(ε, δ)-GDP does not reject
// (ε, δ)-DP for an arbitrary mechanism — an (ε, δ)-DP mechanism need not be
// μ(ε, δ)-GDP. The ε is a lower bound on the true ε only if the mechanism's
// trade-off curve is Gaussian (the usual assumption for DP-SGD), hence its
// own estimate family, FamilyOneRunFDP.

// OneRunFDPRejects reports whether c correct guesses out of cCap among m
// canaries reject the claim that the mechanism is μ-GDP at significance tau
// (membership: alphabet size 2). It is the paper's recursion, as in
// jax_privacy (_epsilon_one_run_fdp), including its cap of r at 1.
func OneRunFDPRejects(mu float64, m, c, cCap int, tau float64) (bool, error) {
	if err := checkFDP(m, c, cCap); err != nil {
		return false, err
	}
	if !(mu >= 0) || math.IsInf(mu, 1) {
		return false, invalidf("μ must be ≥ 0 and finite, got %v", mu)
	}
	if !(tau > 0 && tau < 1) {
		return false, invalidf("significance must be in (0, 1), got %v", tau)
	}
	return fdpRejects(mu, m, c, cCap, tau), nil
}

func checkFDP(m, c, cCap int) error {
	if m < 1 || cCap < 0 || c < 0 || c > cCap || cCap > m {
		return invalidf("one-run f-DP counts must satisfy 0 ≤ correct ≤ guesses ≤ canaries with canaries ≥ 1, got m = %d, c_cap = %d, c = %d", m, cCap, c)
	}
	return nil
}

// fdpRejects runs the recursion: r and h are the least probability mass of
// correct and wrong guesses that c correct out of cCap forces on a μ-GDP
// mechanism, raised one guess at a time through the inverse blow-up
// binv(x) = Φ(Φ⁻¹(x) − μ) of the Gaussian trade-off curve; the claim is
// rejected when more than cCap/m of the mass would be needed.
func fdpRejects(mu float64, m, c, cCap int, tau float64) bool {
	if c == 0 {
		return false
	}
	fm := float64(m)
	r := tau * float64(c) / fm
	h := tau * float64(cCap-c) / fm
	for i := c - 1; i >= 0; i-- {
		hNew := math.Max(h, binvGauss(r, mu)) // k − 1 = 1 for membership
		if hNew == h {
			// Nothing changes from here on: r and h are fixed points
			// (jax_privacy's early exit).
			break
		}
		r += float64(i) / float64(cCap-i) * (hNew - h)
		r = math.Min(r, 1)
		h = hNew
	}
	return r+h > float64(cCap)/fm
}

// binvGauss is the inverse blow-up of μ-GDP: Φ(Φ⁻¹(x) − μ).
func binvGauss(x, mu float64) float64 {
	if x >= 1 {
		return 1
	}
	return numeric.NormCDF(numeric.NormQuantile(x) - mu)
}

// OneRunFDPMu returns the largest μ whose μ-GDP claim c correct guesses
// out of cCap among m canaries reject at the given confidence, to 1e-9 (0
// when no μ > 0 is rejected). Rejection is monotone in μ: a larger μ
// allows more correct guesses.
func OneRunFDPMu(m, c, cCap int, confidence float64) (float64, error) {
	if err := checkFDP(m, c, cCap); err != nil {
		return 0, err
	}
	if err := checkConfidence(confidence); err != nil {
		return 0, err
	}
	tau := 1 - confidence
	rejects := func(mu float64) bool { return fdpRejects(mu, m, c, cCap, tau) }
	if !rejects(1e-9) {
		return 0, nil
	}
	// Φ(Φ⁻¹(x) − μ) is 0 in double precision long before μ = 1e3.
	return largestRejected(rejects, 1e-9, 1e3), nil
}

// OneRunFDPEpsilon is ε(μ, δ) of OneRunFDPMu: the ε lower bound for the
// Gaussian (f-DP) claim, not for (ε, δ)-DP in general (see above).
func OneRunFDPEpsilon(m, c, cCap int, delta, confidence float64) (eps, mu float64, err error) {
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	if mu, err = OneRunFDPMu(m, c, cCap, confidence); err != nil {
		return 0, 0, err
	}
	eps, err = gdpEpsilon(mu, delta)
	return eps, mu, err
}
