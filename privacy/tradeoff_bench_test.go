package privacy

import (
	"math"
	"testing"
)

// Trade-off curve benchmarks at the MNIST schedule (q = 256/60000, σ = 1.1,
// T = 14063, h = 1e-4). The target: the curve at 1000 FPRs costs
// ≤ 50 ms beyond the PLD itself. Side by side (run with
// privacy/testdata/riskcal_tradeoff.py): riskcal's get_beta_from_pld and
// dp_accounting's get_true_positive_rates on the same schedule.

// benchFPRs are 1000 log-spaced FPRs from 1e-6 to 1.
func benchFPRs() []float64 {
	a := make([]float64, 1000)
	for i := range a {
		a[i] = math.Pow(10, -6+6*float64(i)/999)
	}
	return a
}

// BenchmarkTradeOffBeyondPLD: both curves read off an already composed PLD
// (remove and add PMFs, the symmetrising hull) and β at 1000 FPRs.
func BenchmarkTradeOffBeyondPLD(b *testing.B) {
	d, _, err := pldOf([]SampledGaussian{mnist}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	alphas := benchFPRs()
	benchCPU(b, func() {
		sym, _ := pldCurves(d)
		for _, a := range alphas {
			_ = sym.Beta(a)
		}
	})
}

// BenchmarkTradeOffPLD: the whole curve from the DP-SGD parameters (the
// PLD included) and β at 1000 FPRs.
func BenchmarkTradeOffPLD(b *testing.B) {
	alphas := benchFPRs()
	benchCPU(b, func() {
		c, err := TradeOffCurve(AccountantPLD, mnist, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range alphas {
			_ = c.Symmetric.Beta(a)
		}
	})
}

// BenchmarkTradeOffRDP: the RDP curve at 1000 FPRs.
func BenchmarkTradeOffRDP(b *testing.B) {
	alphas := benchFPRs()
	benchCPU(b, func() {
		c, err := TradeOffCurve(AccountantRDP, mnist, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range alphas {
			_ = c.Symmetric.Beta(a)
		}
	})
}

// BenchmarkCalibrateRiskPLD: σ for TPR ≤ 0.237759 at FPR 0.01 (q = 0.04,
// T = 2250), the risk the ε = 8 calibration of BenchmarkCalibratePLD
// lands on (σ ≈ 1.3459). The target: ≤ 2× that benchmark
// (scripts/bench-risk-calibration.sh alternates the two).
func BenchmarkCalibrateRiskPLD(b *testing.B) {
	target := Target{Kind: TargetTPRAtFPR, Value: 0.237759, At: 0.01}
	benchCPU(b, func() {
		if _, err := CalibrateTo(AccountantPLD, target, 0.04, 2250, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}
