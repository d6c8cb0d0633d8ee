package audit

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Sides says how the miss probability α = 1 − confidence of a
// Clopper–Pearson bound is spent.
type Sides int

const (
	// TwoSided: the bound is one end of the two-sided (1 − α) interval, so
	// each end misses with probability α/2. This is the default: it is the
	// convention that reproduces Nasr et al. (2021)'s "5.60 with 1000 trials"
	// (reference note §2.5) and it makes a bound built from two rates (FPR
	// and FNR, Eq. 5) hold jointly with probability ≥ 1 − α by a union bound.
	TwoSided Sides = iota
	// OneSided: a single rate's bound (ClopperPearsonUpper/Lower) alone
	// misses with probability α. A bound built from two rates (Eq. 5, the
	// GDP fit, Estimate) must still spend α/2 per rate for the pair to hold
	// at 1 − α, so there OneSided gives the same numbers as TwoSided (see
	// pairTail): a one-sided α per rate would claim a confidence it lacks.
	OneSided
)

func (s Sides) String() string {
	switch s {
	case TwoSided:
		return "two-sided"
	case OneSided:
		return "one-sided"
	}
	return "unknown"
}

func (s Sides) check() error {
	if s != TwoSided && s != OneSided {
		return invalidf("unknown sidedness %d (want TwoSided or OneSided)", int(s))
	}
	return nil
}

// tail is the probability a single end of the interval may miss.
func (s Sides) tail(confidence float64) float64 {
	if s == OneSided {
		return 1 - confidence
	}
	return (1 - confidence) / 2
}

// pairTail is the miss probability of each of the two rates' bounds in a
// statistic that uses both (Eq. 5, the GDP fit): α/2 whatever the sides,
// so the union bound keeps the pair at 1 − α.
func (s Sides) pairTail(confidence float64) float64 {
	return (1 - confidence) / 2
}

// ClopperPearsonUpper returns the exact (Clopper–Pearson 1934) upper
// confidence bound on a binomial rate after x successes in n trials: the p
// with P[Bin(n, p) ≤ x] = tail, i.e. the Beta(x+1, n−x) quantile at
// 1 − tail, where tail = (1 − confidence)/2 for TwoSided and 1 − confidence
// for OneSided. x = n gives 1; x = 0 gives 1 − tail^(1/n) (reference note
// §2.7).
func ClopperPearsonUpper(x, n int, confidence float64, sides Sides) (float64, error) {
	if err := checkBinomial(x, n, confidence, sides); err != nil {
		return 0, err
	}
	return cpUpper(float64(x), float64(n), sides.tail(confidence)), nil
}

// ClopperPearsonLower returns the exact lower confidence bound: the p with
// P[Bin(n, p) ≥ x] = tail, the Beta(x, n−x+1) quantile at tail. x = 0
// gives 0; x = n gives tail^(1/n).
func ClopperPearsonLower(x, n int, confidence float64, sides Sides) (float64, error) {
	if err := checkBinomial(x, n, confidence, sides); err != nil {
		return 0, err
	}
	return cpLower(float64(x), float64(n), sides.tail(confidence)), nil
}

func checkBinomial(x, n int, confidence float64, sides Sides) error {
	if n < 1 || x < 0 || x > n {
		return invalidf("binomial count must satisfy 0 ≤ x ≤ n with n ≥ 1, got x = %d, n = %d", x, n)
	}
	if err := checkConfidence(confidence); err != nil {
		return err
	}
	return sides.check()
}

// cpUpper is ClopperPearsonUpper on float counts (0 ≤ x ≤ n, n > 0), so
// that expected counts n·p can be plugged in as well; tail ∈ (0, 1).
// The x = 0 end uses −expm1(log(tail)/n), exact to rounding even for
// n = 10⁶ where 1 − tail^(1/n) would cancel.
func cpUpper(x, n, tail float64) float64 {
	switch {
	case x >= n:
		return 1
	case x <= 0:
		return -math.Expm1(math.Log(tail) / n)
	}
	return mathext.InvRegIncBeta(x+1, n-x, 1-tail)
}

// cpLower mirrors cpUpper: the lower bound on p is one minus the upper
// bound on the failure rate.
func cpLower(x, n, tail float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= n:
		return math.Exp(math.Log(tail) / n)
	}
	return mathext.InvRegIncBeta(x, n-x+1, tail)
}
