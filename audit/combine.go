package audit

import "math"

// BonferroniPValue combines the p-values of R independent tests of one
// claim (an audit repeated R times) into one test: R·min p, capped at 1.
// Rejecting when it is below α rejects falsely with probability at most α
// (a union bound), whatever the tests' dependence. A NaN p-value (an
// invalid estimate) makes the result NaN.
func BonferroniPValue(ps []float64) float64 {
	pv := 1.0
	for _, p := range ps {
		if math.IsNaN(p) {
			return math.NaN()
		}
		pv = math.Min(pv, p)
	}
	return math.Min(1, pv*float64(len(ps)))
}
