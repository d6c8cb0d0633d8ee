package audit

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/privacy"
)

// GDPEstimate is the Gaussian-DP reading of an attack (Dong, Roth & Su
// 2022; used by tight audits such as Nasr et al. 2023): the μ for which the
// attack's (FPR, FNR) sits on the trade-off curve of N(0,1) vs N(μ,1),
//
//	μ = Φ⁻¹(1 − FPR) − Φ⁻¹(FNR),
//
// and ε(δ) of μ-GDP. A mechanism that is μ′-GDP has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ′)
// for every test, so MuLower (from the Clopper–Pearson upper bounds on both
// rates, the same ones as the Eq. 5 bound) is a lower confidence bound on
// μ′ at the result's confidence. The ε values, however, assume the
// mechanism's trade-off curve is Gaussian: they are an estimate, not a
// bound, unlike Result.EpsilonLB. Values of μ below 0 (an attack worse
// than chance at that threshold) are reported as 0.
//
// Every threshold of a Gaussian trade-off curve gives the same μ, but not
// equally precisely, so Estimate fits μ at its own threshold: the one that
// maximises MuLower, chosen by the same method as the ε bound's.
type GDPEstimate struct {
	// Threshold and Counts are where μ was fitted (set by Estimate;
	// GDPFromCounts copies only the counts).
	Threshold float64
	Counts    Counts
	Mu        float64 // from the observed rates
	MuLower   float64 // from the CP upper bounds on both rates
	MuUpper   float64 // from the CP lower bounds on both rates
	// Epsilon, EpsilonLower, EpsilonUpper are ε(δ) of μ-GDP at Mu, MuLower
	// and MuUpper (ε is increasing in μ). With δ = 0 they are +Inf for
	// μ > 0. MuLower and MuUpper each miss with the probability of one
	// Eq. 5 bound, so the interval covers with probability ≥ 1 − 2α.
	Epsilon      float64
	EpsilonLower float64
	EpsilonUpper float64
}

// GDPFromCounts fits μ to the counts of one threshold and converts it to
// ε(δ) with its interval; see GDPEstimate.
func GDPFromCounts(c Counts, delta, confidence float64, sides Sides) (GDPEstimate, error) {
	if err := c.check(); err != nil {
		return GDPEstimate{}, err
	}
	if err := checkDelta(delta); err != nil {
		return GDPEstimate{}, err
	}
	if err := checkConfidence(confidence); err != nil {
		return GDPEstimate{}, err
	}
	if err := sides.check(); err != nil {
		return GDPEstimate{}, err
	}
	tail := sides.pairTail(confidence)
	n0, n1 := float64(c.N0), float64(c.N1)
	fp, fn := float64(c.FP), float64(c.FN)
	g := GDPEstimate{
		Counts:  c,
		Mu:      gdpMu(fp/n0, fn/n1),
		MuLower: gdpMu(cpUpper(fp, n0, tail), cpUpper(fn, n1, tail)),
		MuUpper: gdpMu(cpLower(fp, n0, tail), cpLower(fn, n1, tail)),
	}
	var err error
	if g.Epsilon, err = gdpEpsilon(g.Mu, delta); err != nil {
		return GDPEstimate{}, err
	}
	if g.EpsilonLower, err = gdpEpsilon(g.MuLower, delta); err != nil {
		return GDPEstimate{}, err
	}
	if g.EpsilonUpper, err = gdpEpsilon(g.MuUpper, delta); err != nil {
		return GDPEstimate{}, err
	}
	return g, nil
}

// gdpMu returns max(0, Φ⁻¹(1 − fpr) − Φ⁻¹(fnr)), written as
// −Φ⁻¹(fpr) − Φ⁻¹(fnr) so tiny rates keep their precision. A zero rate
// with the other below 1 gives +Inf; the test that never (or always)
// guesses world 1 gives 0.
func gdpMu(fpr, fnr float64) float64 {
	mu := -numeric.NormQuantile(fpr) - numeric.NormQuantile(fnr)
	if math.IsNaN(mu) || mu < 0 {
		return 0
	}
	return mu
}

// gdpEpsilon is privacy.GDPEpsilon extended to δ = 0 (pure DP: no finite ε
// for μ > 0).
func gdpEpsilon(mu, delta float64) (float64, error) {
	if delta == 0 {
		if mu > 0 {
			return math.Inf(1), nil
		}
		return 0, nil
	}
	return privacy.GDPEpsilon(mu, delta)
}
