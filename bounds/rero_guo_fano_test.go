package bounds

import (
	"math"
	"testing"
)

func TestGuoFanoTable2ClosedForm(t *testing.T) {
	// Hayes et al. Table 2, rows "Guo et al. (2022b)" (paper), reproduced
	// with sensitivity² = 2, natural logs and the smallest Fano root (notes
	// §2.12, §7): ±0.001.
	rows := map[int][]float64{
		10:  {0.976, 0.593, 0.380, 0.274, 0.213, 0.174},
		100: {0.861, 0.346, 0.195, 0.131, 0.097, 0.076},
	}
	for n, want := range rows {
		for i, sigma := range table2Sigmas {
			near(t, "Guo Fano advantage", f64(t)(GuoFanoAdvantage(n, sigma, math.Sqrt2, 1)), want[i], 0.001)
		}
	}
}

func TestGuoFanoTable2MonteCarlo(t *testing.T) {
	// Table 2 rows "Guo et al. (2022b) (MC)" (paper): mutual information by
	// Monte Carlo with orthonormal candidates, 10⁵ samples, then Fano;
	// ±0.005 (notes §7). n = 100 at three σ to keep the test short.
	check := func(n int, sigma, want float64) {
		info, se, err := GuoMutualInfoMC(n, sigma, 100_000, 1)
		if err != nil {
			t.Fatal(err)
		}
		if se > 0.01 {
			t.Errorf("n=%d σ=%v: standard error %v too large", n, sigma, se)
		}
		gamma := f64(t)(FanoSuccessBound(n, info))
		near(t, "Guo MC advantage", f64(t)(ReRoAdvantage(gamma, 1/float64(n))), want, 0.005)
	}
	for i, want := range []float64{0.771, 0.397, 0.257, 0.184, 0.144, 0.118} {
		check(10, table2Sigmas[i], want)
	}
	check(100, 0.5, 0.549)
	check(100, 1.5, 0.120)
	check(100, 3, 0.049)
}

func TestFanoSuccessBoundEdges(t *testing.T) {
	// Fano: with no information the bound is the prior baseline 1/n; with
	// I ≥ log n it is vacuous (1). Definition of f(t), exact to 1e-12.
	near(t, "Fano at I = 0", f64(t)(FanoSuccessBound(10, 0)), 0.1, 1e-15)
	// n = 2: f(t) = log 2 − I − H(t) with H the binary entropy, so
	// I = log 2 − H(0.2) puts the root at t = 0.2: success 0.8 (1e-12).
	h := -0.2*math.Log(0.2) - 0.8*math.Log(0.8)
	near(t, "Fano at n = 2", f64(t)(FanoSuccessBound(2, math.Ln2-h)), 0.8, 1e-12)
	near(t, "Fano at I = log n", f64(t)(FanoSuccessBound(10, math.Log(10))), 1, 0)
	// The Gaussian mutual-information bound never exceeds log n (it is the
	// log of 1/(p + (1−p)e^{−·}) ≤ 1/p) and adds over steps.
	one := f64(t)(GuoGaussianMutualInfo(10, 0.7, 1, 1))
	nearRel(t, "I over 3 steps", f64(t)(GuoGaussianMutualInfo(10, 0.7, 1, 3)), 3*one, 1e-15)
	if one > math.Log(10) {
		t.Errorf("one-step information %v above log n", one)
	}
}
