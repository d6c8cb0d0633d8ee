package audit_test

import (
	"fmt"

	"github.com/dpaudit/dpaudit/audit"
)

// Eq. 5 on counts: the paper's CIFAR-10 API-access attack (FP 2/1000,
// TPR 0.017) certifies ε ≥ 0.32 at δ = 1e-5 (the paper reports 0.31).
func ExampleEpsilonLowerBound() {
	c := audit.Counts{N0: 1000, FP: 2, N1: 1000, FN: 983}
	lb, _ := audit.EpsilonLowerBound(c, 1e-5, 0.95, audit.TwoSided)
	point, _ := audit.EpsilonPoint(c, 1e-5)
	fmt.Printf("ε_lb = %.4f, point estimate %.4f\n", lb, point)
	// Output: ε_lb = 0.3200, point estimate 2.1395
}

// A distinguisher's scores, world 1 (canary present) scoring higher: the
// default audit chooses the threshold on a seeded fifth of each world's
// trials (rounded: 2 of 8) and bounds ε on the rest. Perfect separation of
// 6 + 6 held-out trials certifies little: CP_upper(0, 6) = 0.459, so
// ε_lb = ln(0.541/0.459).
func ExampleEstimate() {
	scores := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8}
	worlds := []bool{false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true}
	r, err := audit.Estimate(scores, worlds, audit.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: ε_lb = %.3f at %s τ = %.2f (FP %d/%d, FN %d/%d), AUC %.2f\n",
		r.Method, r.EpsilonLB, r.Rule, r.Threshold, r.Counts.FP, r.Counts.N0, r.Counts.FN, r.Counts.N1, r.AUC)
	// Output: split: ε_lb = 0.163 at score >= threshold τ = 1.15 (FP 0/6, FN 0/6), AUC 1.00
}

// The one-run audit: 1000 canaries, 100 guesses, all right.
func ExampleOneRunEpsilon() {
	eps, _ := audit.OneRunEpsilon(1000, 100, 100, 1e-5, 0.95)
	fmt.Printf("ε ≥ %.4f\n", eps)
	// Output: ε ≥ 3.4654
}
