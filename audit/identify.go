package audit

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Identifiability estimates of Bernau et al. (2021) Sec. 5.3 (reference
// note bernau2021-identifiability.md §4) from n repetitions of the
// identifiability game on a fixed D, every one trained on D (b = 1, as in
// the paper and the authors' code).

// IdentifiabilityInput holds the repetitions' final log-odds
// Λ_k = log(β_k/(1 − β_k)) and their ε′ from observed local sensitivities,
// and the point's claim: the accounted ε at δ (so ρ_β = 1/(1 + e^{−ε})).
type IdentifiabilityInput struct {
	LogOdds    []float64
	EpsilonLS  []float64 // per repetition (may be nil)
	Epsilon    float64   // the accounted ε of the run: ρ_β = logistic(ε)
	Delta      float64
	Confidence float64 // two-sided Clopper–Pearson
}

// Identifiability is the empirical side of the point.
type Identifiability struct {
	N int
	// Wins counts β_k > ½ (Λ_k > 0). Advantage = 2·Wins/N − 1 estimates
	// Adv = TPR − FPR (= 2·TPR − 1 for the symmetric Gaussian game), with
	// the Clopper–Pearson interval of the win rate mapped through 2p − 1.
	Wins                                int
	Advantage, AdvantageLo, AdvantageHi float64
	// Exceed counts β_k > ρ_β (Λ_k > ε beyond BeliefTolerance);
	// DeltaPrime = Exceed/N is δ′ with its interval. DeltaViolation: the
	// interval's lower end is above δ (beyond ClaimTolerance), so at this
	// confidence the belief bound fails more often than the (ε, δ)
	// guarantee allows.
	Exceed                                 int
	DeltaPrime, DeltaPrimeLo, DeltaPrimeHi float64
	DeltaViolation                         bool
	// The three empirical ε′ of Sec. 5.3, each with what it assumes:
	//   EpsilonLS: the largest, over repetitions, RDP composition of the
	//     k steps with the local sensitivities observed (ε = ε′ by
	//     construction under LS noise; informative under GS noise).
	//   EpsilonBelief: ln(β_max/(1 − β_max)) = Λ_max (Eq. 10; the paper
	//     prints β/(1 − β), without the ln). A point estimate from one
	//     extreme repetition: it grows with N.
	//   EpsilonAdvantage: 2·c(δ)·Φ⁻¹((Adv + 1)/2), c(δ) = √(2 ln(1.25/δ)),
	//     the inverse of ρ_α (Theorem 2; the paper's Eq. 15 drops the 2),
	//     with the interval of Adv mapped through it. It assumes the classic
	//     Gaussian calibration, and is negative when Adv < 0.
	EpsilonLS                                                float64
	EpsilonBelief, BeliefMax                                 float64
	EpsilonAdvantage, EpsilonAdvantageLo, EpsilonAdvantageHi float64
	// RhoBeta = logistic(Epsilon), RhoAlpha = 2Φ(ε/(2c(δ))) − 1, and
	// AdvantageAboveRhoAlpha: AdvantageLo > RhoAlpha (beyond
	// ClaimTolerance).
	RhoBeta, RhoAlpha      float64
	AdvantageAboveRhoAlpha bool
}

// EstimateIdentifiability computes the estimates.
func EstimateIdentifiability(in IdentifiabilityInput) (Identifiability, error) {
	n := len(in.LogOdds)
	if n == 0 {
		return Identifiability{}, invalidf("identifiability: no repetitions")
	}
	if err := checkConfidence(in.Confidence); err != nil {
		return Identifiability{}, err
	}
	if !(in.Delta > 0 && in.Delta < 1) {
		return Identifiability{}, invalidf("identifiability: δ must be in (0, 1), got %v", in.Delta)
	}
	if !(in.Epsilon > 0) {
		return Identifiability{}, invalidf("identifiability: ε must be > 0, got %v", in.Epsilon)
	}
	r := Identifiability{N: n, EpsilonBelief: math.Inf(-1), EpsilonLS: math.NaN()}
	for _, l := range in.LogOdds {
		if math.IsNaN(l) {
			return r, invalidf("identifiability: a log-odds is NaN")
		}
		if l > 0 {
			r.Wins++
		}
		if Exceeds(l, in.Epsilon, BeliefTolerance) {
			r.Exceed++
		}
		r.EpsilonBelief = math.Max(r.EpsilonBelief, l)
	}
	r.BeliefMax = logistic(r.EpsilonBelief)
	for i, e := range in.EpsilonLS {
		if i == 0 || e > r.EpsilonLS {
			r.EpsilonLS = e
		}
	}
	lo, _ := ClopperPearsonLower(r.Wins, n, in.Confidence, TwoSided)
	hi, _ := ClopperPearsonUpper(r.Wins, n, in.Confidence, TwoSided)
	p := float64(r.Wins) / float64(n)
	r.Advantage, r.AdvantageLo, r.AdvantageHi = 2*p-1, 2*lo-1, 2*hi-1
	c := math.Sqrt(2 * math.Log(1.25/in.Delta))
	epsAdv := func(q float64) float64 { return 2 * c * numeric.NormQuantile(q) }
	r.EpsilonAdvantage, r.EpsilonAdvantageLo, r.EpsilonAdvantageHi = epsAdv(p), epsAdv(lo), epsAdv(hi)
	r.DeltaPrime = float64(r.Exceed) / float64(n)
	r.DeltaPrimeLo, _ = ClopperPearsonLower(r.Exceed, n, in.Confidence, TwoSided)
	r.DeltaPrimeHi, _ = ClopperPearsonUpper(r.Exceed, n, in.Confidence, TwoSided)
	r.DeltaViolation = Exceeds(r.DeltaPrimeLo, in.Delta, ClaimTolerance)
	r.RhoBeta = logistic(in.Epsilon)
	r.RhoAlpha = 2*numeric.NormCDF(in.Epsilon/(2*c)) - 1
	r.AdvantageAboveRhoAlpha = Exceeds(r.AdvantageLo, r.RhoAlpha, ClaimTolerance)
	return r, nil
}

func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
