package bounds_test

import (
	"fmt"

	"github.com/dpaudit/dpaudit/bounds"
)

// The reconstruction bound of Hayes et al. at their Fig. 5 setting: DP-SGD
// with T = 100 steps, q = 0.01 and σ = 0.5908 (calibrated to (4, 1e-5)-DP by
// the PLD accountant), against a uniform prior of 10 candidates.
func ExampleReRoBound() {
	kappa, _ := bounds.KappaUniform(10)
	m := bounds.DPSGD{NoiseMultiplier: 0.5908, SamplingRate: 0.01, Steps: 100}
	r, err := bounds.ReRoBound(m, kappa, bounds.ReRoOptions{Method: bounds.ReRoExact})
	if err != nil {
		fmt.Println(err)
		return
	}
	adv, _ := bounds.ReRoAdvantage(r.Gamma, kappa)
	fmt.Printf("γ ≤ %.3f (within %v of the true bound), advantage ≤ %.3f\n", r.Gamma, bounds.DefaultReRoTolerance, adv)
	// Full batch (q = 1) has a closed form.
	g, _ := bounds.ReRoFullBatch(10.8116, 100, kappa)
	fmt.Printf("full batch: %.4f\n", g)
	// Output:
	// γ ≤ 0.187 (within 0.001 of the true bound), advantage ≤ 0.097
	// full batch: 0.3607
}
