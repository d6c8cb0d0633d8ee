package privacy_test

import (
	"fmt"

	"github.com/dpaudit/dpaudit/privacy"
)

// Account for the classic MNIST DP-SGD run (60000 examples, batch 256,
// 60 epochs, noise multiplier 1.1) with each accountant, then calibrate the
// noise for ε = 2.
func Example() {
	q, steps, err := privacy.StepsFromEpochs(60, 60000, 256)
	if err != nil {
		panic(err)
	}
	m := privacy.SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: q, Steps: steps}
	for _, acc := range []privacy.Accountant{privacy.AccountantRDP, privacy.AccountantPLD, privacy.AccountantGDP} {
		eps, err := privacy.Epsilon(acc, m, 1e-5, privacy.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: ε = %.3f\n", acc, eps)
	}
	sigma, err := privacy.Calibrate(privacy.AccountantPLD, 2, 1e-5, q, steps, privacy.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("σ for ε = 2: %.4f\n", sigma)
	// Output:
	// rdp: ε = 2.597
	// pld: ε = 2.382
	// gdp: ε = 2.324
	// σ for ε = 2: 1.2242
}

// Build the privacy loss distribution of one DP-SGD step, compose it, and
// read off tail probabilities of the loss.
func ExampleSampledGaussianPLD() {
	d, err := privacy.SampledGaussianPLD(0.01, 1.0, 1000, 0, true)
	if err != nil {
		panic(err)
	}
	fmt.Printf("ε(δ=1e-5) = %.3f\n", d.Epsilon(1e-5))
	fmt.Printf("P[L > 1] under the 'remove' pair = %.2e\n", d.Remove.Survival(1))
	// Output:
	// ε(δ=1e-5) = 1.828
	// P[L > 1] under the 'remove' pair = 1.74e-02
}

// What the MNIST run means for an attacker: the PLD trade-off curve bounds
// every membership attack's TPR at each FPR, its advantage, and (on the
// added orientation) reconstruction among 10 candidates.
func ExampleTradeOffCurve() {
	m := privacy.SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 256.0 / 60000, Steps: 14063}
	c, err := privacy.TradeOffCurve(privacy.AccountantPLD, m, privacy.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("TPR at 1%% FPR ≤ %.4f\n", c.Symmetric.TPR(0.01))
	fmt.Printf("advantage ≤ %.4f\n", c.Symmetric.Advantage())
	fmt.Printf("reconstruction at |π| = 10 ≤ %.4f\n", c.Added.TPR(0.1))
	// Output:
	// TPR at 1% FPR ≤ 0.0402
	// advantage ≤ 0.2245
	// reconstruction at |π| = 10 ≤ 0.2396
}
