package bounds

import (
	"math"

	"github.com/dpaudit/dpaudit/privacy"
)

// Attack-risk bounds from a trade-off curve (Kulynych, Gomez, Kaissis,
// Hayes, Balle, Calmon & Raisaro, NeurIPS 2025, "Unifying re-identification,
// attribute inference and data reconstruction risks in differential
// privacy", arXiv 2507.06969; riskcal implements them). If distinguishing
// the output with the target record from the output without it has
// trade-off curve f, then any attack whose best blind guess succeeds with
// probability b (the baseline) succeeds with probability at most
//
//	1 − f(b),
//
// the TPR of the best test at FPR b. The three risks differ only in what b
// is:
//
//   - reconstruction (Hayes et al.'s ReRo): b = κ, the prior mass of the
//     best guess's neighbourhood (1/|π| for a uniform prior of |π|
//     candidates and exact match, KappaUniform);
//   - attribute inference: b = the largest prior probability of the
//     attribute's values (AttributeBaseline);
//   - re-identification (singling out one of N people): b = 1/N.
//
// Which curve: in the informed-adversary game of Hayes et al. the rest of
// the data D₋ is known and the target is added to it, so the pair is
// (M(D₋), M(D₋ ∪ {z})) — privacy.TradeOff.Added — and 1 − f(κ) is exactly
// their bound B_κ(μ, ν) (ReRoBound). Kulynych et al. state the bounds for
// an f-DP mechanism, whose curve must cover both orderings of neighbours:
// privacy.TradeOff.Symmetric. The two agree wherever the symmetrised curve
// follows the added one, which for DP-SGD is every baseline below the point
// ᾱ where the added curve's slope is −1 (ᾱ ≈ 0.39 at the quickstart's
// MNIST schedule); between ᾱ and f(ᾱ) the symmetrised curve is a straight
// segment below it, and its bound is the larger (docs/what-epsilon-means.md).

// Risk is an attack-success bound at a baseline.
type Risk struct {
	// Baseline b: the success probability of the best guess made without
	// seeing the release.
	Baseline float64
	// Success bounds the success probability of any attack: 1 − f(b).
	Success float64
	// Advantage is Success − Baseline: what seeing the release can add
	// to the blind guess.
	Advantage float64
}

// AttackRisk returns the bound 1 − f(baseline) of Kulynych et al. (2025)
// on the success of any re-identification, attribute-inference or
// reconstruction attack with the given baseline, from the trade-off curve
// f. The baseline must be in (0, 1).
func AttackRisk(f privacy.Curve, baseline float64) (Risk, error) {
	if !(baseline > 0 && baseline < 1) {
		return Risk{}, invalidf("baseline risk must be in (0, 1), got %v", baseline)
	}
	s := f.TPR(baseline)
	// A curve never lets an attack do worse than guessing: 1 − f(b) ≥ b.
	s = math.Max(s, baseline)
	return Risk{Baseline: baseline, Success: s, Advantage: s - baseline}, nil
}

// ReidentificationBaseline is the baseline of singling out one record among
// a population of n equally likely people: 1/n.
func ReidentificationBaseline(n int) (float64, error) {
	if n < 2 {
		return 0, invalidf("population size must be ≥ 2, got %d", n)
	}
	return 1 / float64(n), nil
}

// AttributeBaseline is the baseline of inferring an attribute whose values
// have the given prior probabilities: the largest one (guessing the most
// likely value). The probabilities must be ≥ 0 and sum to 1 (±1e-9), with
// at least two of them positive.
func AttributeBaseline(prior []float64) (float64, error) {
	total, top, positive := 0.0, 0.0, 0
	for i, p := range prior {
		if !(p >= 0 && p <= 1) {
			return 0, invalidf("attribute prior %d must be in [0, 1], got %v", i, p)
		}
		total += p
		top = math.Max(top, p)
		if p > 0 {
			positive++
		}
	}
	if math.Abs(total-1) > 1e-9 {
		return 0, invalidf("attribute prior must sum to 1, got %v", total)
	}
	if positive < 2 {
		return 0, invalidf("attribute prior must give at least two values positive probability (else there is nothing to infer)")
	}
	return top, nil
}
