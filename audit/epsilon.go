package audit

import "math"

// Counts are the outcomes of a thresholded distinguisher, per world.
// World 0 is D (canary absent), world 1 is D′ (canary present). With
// Nasr et al. (2021, §III)'s convention a false positive is guessing D′ in
// world 0 and a false negative is guessing D in world 1.
type Counts struct {
	N0 int // trials in world 0
	FP int // world-0 trials guessed as world 1
	N1 int // trials in world 1
	FN int // world-1 trials guessed as world 0
}

func (c Counts) check() error {
	if c.N0 < 1 || c.N1 < 1 {
		return invalidf("need at least one trial per world, got %d and %d", c.N0, c.N1)
	}
	if c.FP < 0 || c.FP > c.N0 || c.FN < 0 || c.FN > c.N1 {
		return invalidf("error counts must lie in [0, trials]: FP = %d of %d, FN = %d of %d", c.FP, c.N0, c.FN, c.N1)
	}
	return nil
}

// FPR is FP/N0.
func (c Counts) FPR() float64 { return float64(c.FP) / float64(c.N0) }

// FNR is FN/N1.
func (c Counts) FNR() float64 { return float64(c.FN) / float64(c.N1) }

// Accuracy is the fraction of all trials guessed right.
func (c Counts) Accuracy() float64 {
	return float64(c.N0-c.FP+c.N1-c.FN) / float64(c.N0+c.N1)
}

// EpsilonLowerBound returns the statistically valid ε lower bound of Nasr
// et al. (2021), Eq. 5: with FP_hi and FN_hi the Clopper–Pearson upper
// bounds on the two error rates,
//
//	ε_lb = max( log((1 − δ − FN_hi)/FP_hi), log((1 − δ − FP_hi)/FN_hi), 0 ),
//
// where a term whose numerator is ≤ 0 counts as 0 (the Kairouz et al.
// region FP + e^ε·FN ≥ 1 − δ excludes nothing there; reference note §2.4
// fixes the paper's reversed inequality). If the mechanism is (ε, δ)-DP,
// ε_lb ≤ ε with probability ≥ confidence (for TwoSided, each rate's bound
// misses with probability (1 − confidence)/2). δ may be 0.
func EpsilonLowerBound(c Counts, delta, confidence float64, sides Sides) (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkConfidence(confidence); err != nil {
		return 0, err
	}
	if err := sides.check(); err != nil {
		return 0, err
	}
	tail := sides.pairTail(confidence)
	fpHi := cpUpper(float64(c.FP), float64(c.N0), tail)
	fnHi := cpUpper(float64(c.FN), float64(c.N1), tail)
	return epsilonFromRates(fpHi, fnHi, delta), nil
}

// EpsilonPoint returns the point estimate of Nasr et al. (2021), Eq. 4, on
// the observed rates: max(log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR), 0).
// A zero rate under a positive numerator gives +Inf: with no errors the
// counts alone do not bound ε, which is what EpsilonLowerBound is for.
func EpsilonPoint(c Counts, delta float64) (float64, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return epsilonFromRates(c.FPR(), c.FNR(), delta), nil
}

// epsilonFromRates is the common core of Eq. 4 and Eq. 5. It is
// non-increasing in both rates, which the threshold search relies on.
func epsilonFromRates(fpr, fnr, delta float64) float64 {
	return math.Max(0, math.Max(logRatio(1-delta-fnr, fpr), logRatio(1-delta-fpr, fnr)))
}

// logRatio is log(num/den) for num > 0, 0 for num ≤ 0 (the constraint is
// vacuous), and +Inf for num > 0 = den.
func logRatio(num, den float64) float64 {
	if !(num > 0) {
		return 0
	}
	if den <= 0 {
		return math.Inf(1)
	}
	return math.Log(num) - math.Log(den)
}
