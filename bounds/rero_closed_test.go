package bounds

import (
	"math"
	"testing"
)

// Table 2 of Hayes et al. (paper 000), row "Ours": advantage (γ − κ)/(1 − κ)
// with T = 1, q = 1, σ = 0.5 … 3, for uniform priors of 10 and 100.
var table2Sigmas = []float64{0.5, 1, 1.5, 2, 2.5, 3}

func TestReRoTable2Ours(t *testing.T) {
	rows := []struct {
		n    int
		want []float64
		tol  float64
	}{
		// n = 10 within ±0.005; the exact values are within 0.0025.
		{10, []float64{0.737, 0.322, 0.189, 0.128, 0.099, 0.080}, 0.005},
		// n = 100: the paper's numbers are Monte Carlo (10⁵ samples) and differ
		// from the exact closed form by up to 0.0062 (σ = 1: 0.077 vs 0.0832),
		// so the notes (§7) set ±0.007; ±0.005 fails at σ = 1.
		{100, []float64{0.362, 0.077, 0.035, 0.024, 0.018, 0.012}, 0.007},
	}
	for _, row := range rows {
		kappa := f64(t)(KappaUniform(row.n))
		for i, sigma := range table2Sigmas {
			gamma := f64(t)(ReRoFullBatch(sigma, 1, kappa))
			adv := f64(t)(ReRoAdvantage(gamma, kappa))
			near(t, "Table 2 Ours advantage", adv, row.want[i], row.tol)
		}
	}
}

func TestReRoFullBatchClosedForm(t *testing.T) {
	// Notes §5.1 ([derived], exact): the "Ours" row to 4 decimals, ±5e-5.
	exact := map[int][]float64{
		10:  {0.7375, 0.3213, 0.1881, 0.1303, 0.0989, 0.0795},
		100: {0.3657, 0.0832, 0.0389, 0.0241, 0.0172, 0.0133},
	}
	for n, want := range exact {
		kappa := 1 / float64(n)
		for i, sigma := range table2Sigmas {
			gamma := f64(t)(ReRoFullBatch(sigma, 1, kappa))
			near(t, "exact Ours advantage", f64(t)(ReRoAdvantage(gamma, kappa)), want[i], 5e-5)
		}
	}
	// Notes §5.3, full batch at exact σ for (ε, 1e-5)-DP, T = 100: γ for
	// n = 2, 10, 100 to 4 decimals (±1e-4: σ is printed to 4 decimals too).
	rows := []struct {
		sigma float64
		want  [3]float64
	}{
		{37.3063, [3]float64{0.6057, 0.1554, 0.0198}}, // ε = 1
		{10.8116, [3]float64{0.8225, 0.3607, 0.0805}}, // ε = 4
		{4.9989, [3]float64{0.9773, 0.7639, 0.3722}},  // ε = 10
		{2.0493, [3]float64{1.0000, 0.9998, 0.9947}},  // ε = 32
		{0.9467, [3]float64{1.0000, 1.0000, 1.0000}},  // ε = 100
		{6.0023, [3]float64{0.9521, 0.6497, 0.2545}},  // ε = 8
		{19.9381, [3]float64{0.6920, 0.2177, 0.0340}}, // ε = 2
		{3.4418, [3]float64{0.9982, 0.9478, 0.7187}},  // ε = 16
	}
	for _, r := range rows {
		for i, n := range []int{2, 10, 100} {
			near(t, "full-batch γ", f64(t)(ReRoFullBatch(r.sigma, 100, 1/float64(n))), r.want[i], 1e-4)
		}
	}
}

func TestReRoFullBatchTinyPrior(t *testing.T) {
	// Appendix I: log κ = 784·ln 0.25 (κ = 9.66e−473, paper). With σ and T
	// such that √T/σ = 46.52 (= −Φ⁻¹(κ), notes §2.5) the bound is Φ(0) = ½;
	// the notes give Φ⁻¹(κ) to 2 decimals, so γ is within φ(0)·0.005 of ½.
	logKappa := 784 * math.Log(0.25)
	gamma := f64(t)(ReRoFullBatchLogKappa(10/46.52, 100, logKappa))
	near(t, "γ at √T/σ = −Φ⁻¹(κ)", gamma, 0.5, 0.4*0.005)
	// And it agrees with the float64 path where κ is representable
	// (definition; 1e-12).
	a := f64(t)(ReRoFullBatchLogKappa(1.3, 7, math.Log(0.01)))
	b := f64(t)(ReRoFullBatch(1.3, 7, 0.01))
	nearRel(t, "log-κ vs κ path", a, b, 1e-12)
}

func TestReRoRDPFullBatchEq2(t *testing.T) {
	// Notes §7 ([derived]) Eq. 2: κ = 0.1, T = 100.
	near(t, "Eq. 2 at σ = 4.9989", f64(t)(ReRoRDPFullBatch(4.9989, 100, 0.1)), 0.9895, 1e-4)
	near(t, "Eq. 2 at σ = 37.3063", f64(t)(ReRoRDPFullBatch(37.3063, 100, 0.1)), 0.1715, 1e-4)
	// Trivial (= 1) whenever T/(2σ²) ≥ ln(1/κ) (notes §2.2).
	if g := f64(t)(ReRoRDPFullBatch(math.Sqrt(100/(2*math.Log(10))), 100, 0.1)); g != 1 {
		t.Errorf("Eq. 2 at T/(2σ²) = ln(1/κ): got %v, want exactly 1", g)
	}
	// Eq. 2 is the RDP bound minimised over every real α > 1, so the RDP
	// bound on a finite order grid is never below it, and on a fine grid
	// it is close (to 1e-3 with step 0.01 around α* ≈ 1.07 here).
	sigma, T, kappa := 37.3063, 100, 0.1
	var orders, values []float64
	for a := 1.01; a < 20; a += 0.01 {
		orders = append(orders, a)
		values = append(values, a*float64(T)/(2*sigma*sigma))
	}
	eq2 := f64(t)(ReRoRDPFullBatch(sigma, T, kappa))
	g, order, err := ReRoRDP(orders, values, kappa)
	if err != nil {
		t.Fatal(err)
	}
	if g < eq2-1e-12 {
		t.Errorf("RDP bound on a grid %v below Eq. 2's optimum %v", g, eq2)
	}
	near(t, "grid RDP bound vs Eq. 2", g, eq2, 1e-3)
	wantOrder := math.Sqrt(math.Log(1/kappa) * 2 * sigma * sigma / float64(T))
	near(t, "minimising order", order, wantOrder, 0.01)
	// With the accountant's curve at q = 1 (RDP = αT/(2σ²) exactly) the same holds.
	g2, _, err := ReRoRDPSampledGaussian(DPSGD{sigma, 1, T}, kappa, orders)
	if err != nil {
		t.Fatal(err)
	}
	nearRel(t, "accountant curve at q = 1", g2, g, 1e-9)
}

func TestReRoPureDP(t *testing.T) {
	// Notes §7: κ = 0.01, ε = 1 → κe^ε = 0.02718 (±1e-5).
	near(t, "pure DP bound", f64(t)(ReRoPureDP(1, 0.01)), 0.02718, 1e-5)
	if g := f64(t)(ReRoPureDP(10, 0.01)); g != 1 {
		t.Errorf("pure DP bound must cap at 1, got %v", g)
	}
}
