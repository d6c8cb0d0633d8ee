package bounds

import (
	"fmt"
	"math"
	"testing"
)

// Facts of shared/reference/bernau2021-identifiability.md §6.1 and §7
// (derived to full precision; the paper prints 2 decimals).

func TestBernauTable2f(t *testing.T) {
	// Table 2(f) of the paper: ε from the target belief ρ_β, then ρ_α at δ,
	// must reproduce the printed numbers exactly at the printed precision.
	rows := []struct {
		delta   float64
		rhoBeta []float64
		eps     []string // printed
		rhoA    []string // printed
	}{
		{0.01, []float64{0.52, 0.75, 0.9, 0.99}, []string{"0.08", "1.1", "2.2", "4.6"}, []string{"0.01", "0.14", "0.28", "0.54"}},
		{0.001, []float64{0.53, 0.75, 0.9, 0.99}, []string{"0.12", "1.1", "2.2", "4.6"}, []string{"0.01", "0.12", "0.23", "0.46"}},
	}
	for _, row := range rows {
		for i, rb := range row.rhoBeta {
			eps := f64(t)(EpsilonFromRhoBeta(rb))
			digits := len(row.eps[i]) - 2 // decimals printed
			if got := fmt.Sprintf("%.*f", digits, eps); got != row.eps[i] {
				t.Errorf("ρ_β = %v: ε = %v prints as %s, paper %s", rb, eps, got, row.eps[i])
			}
			ra := f64(t)(RhoAlpha(eps, row.delta))
			if got := fmt.Sprintf("%.2f", ra); got != row.rhoA[i] {
				t.Errorf("ρ_β = %v, δ = %v: ρ_α = %v prints as %s, paper %s", rb, row.delta, ra, got, row.rhoA[i])
			}
		}
	}
	// The notebook value, exact: ρ_α(ln 99, 0.001) = 0.45706897038216643.
	nearRel(t, "ρ_α(ln 99, 0.001)", f64(t)(RhoAlpha(math.Log(99), 0.001)), 0.45706897038216643, 1e-12)
	// Derived values (notes §6.1), 1e-6.
	near(t, "ρ_α(ln 9, 0.01)", f64(t)(RhoAlpha(math.Log(9), 0.01)), 0.276312, 1e-6)
	near(t, "ρ_α(ln 3, 0.001)", f64(t)(RhoAlpha(math.Log(3), 0.001)), 0.115648, 1e-6)
	near(t, "ρ_α(0.080043, 0.01)", f64(t)(RhoAlpha(0.080043, 0.01)), 0.010276, 1e-6)
}

func TestRhoBeta(t *testing.T) {
	// Facts 1–3.
	for _, c := range []struct{ rho, eps float64 }{
		{0.9, 2.1972245773362196}, {0.99, 4.595119850134589}, {0.75, 1.0986122886681098},
		{0.52, 0.08004270767353656}, {0.53, 0.12014431184206341},
	} {
		nearRel(t, "ε(ρ_β)", f64(t)(EpsilonFromRhoBeta(c.rho)), c.eps, 1e-12)
		nearRel(t, "ρ_β(ε(ρ_β))", f64(t)(RhoBeta(c.eps)), c.rho, 1e-12)
	}
	nearRel(t, "ρ_β(0)", f64(t)(RhoBeta(0)), 0.5, 0)
	nearRel(t, "ρ_β(1)", f64(t)(RhoBeta(1)), 0.7310585786300049, 1e-12)
	nearRel(t, "ρ_β(5)", f64(t)(RhoBeta(5)), 0.9933071490757153, 1e-12)
	nearRel(t, "ρ_β(30 × 0.1)", f64(t)(RhoBeta(3)), 0.9525741268224334, 1e-12)
	rho, p, err := RhoBetaApprox(2, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	nearRel(t, "ρ_β(2) approximate", rho, 0.8807970779778823, 1e-12)
	nearRel(t, "holds with probability", p, 1-1e-5, 1e-15)
	// Eq. 17 via the classic RDP conversion: full batch, z = 8.380227, k = 30,
	// the notes' order grid {1.1..10.9} ∪ {12..63} reaches ε = ln 9 at
	// δ = 0.01 (fact 8: optimal order 5.6), so ρ_β = 0.9 (±1e-5 from the
	// bisection tolerance on z).
	var orders, values []float64
	for x := 1; x < 100; x++ {
		orders = append(orders, 1+float64(x)/10)
	}
	for a := 12; a <= 63; a++ {
		orders = append(orders, float64(a))
	}
	for _, a := range orders {
		values = append(values, 30*a/(2*8.380227*8.380227))
	}
	rb, order, err := RhoBetaRDP(orders, values, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ρ_β from RDP", rb, 0.9, 1e-5)
	near(t, "optimal order", order, 5.6, 1e-9)
}

func TestRhoAlphaForms(t *testing.T) {
	// Fact 5: the corrected inverse round-trips (the printed Eq. 15, without
	// the factor 2, would give 1.0986 instead of 2.1972).
	nearRel(t, "ε(ρ_α = 0.276312, 0.01)", f64(t)(EpsilonFromRhoAlpha(0.276312, 0.01)), 2.1972, 1e-4)
	for _, e := range []float64{0.1, 1, 4.6} {
		for _, d := range []float64{0.01, 1e-5} {
			nearRel(t, "round trip", f64(t)(EpsilonFromRhoAlpha(f64(t)(RhoAlpha(e, d)), d)), e, 1e-9)
		}
	}
	// Fact 16: 620 wins of 1000 → Adv 0.24 → ε′ = 1.8986 (δ = 0.01).
	near(t, "ε′ from advantage", f64(t)(EpsilonFromRhoAlpha(0.24, 0.01)), 1.8986, 1e-4)
	// Fact 9: RDP form 2Φ(√k/(2z)) − 1 (notebook values).
	nearRel(t, "ρ_α RDP z = 8.380227", f64(t)(RhoAlphaGaussianSteps(30, 8.380227)), 0.2561767, 1e-6)
	nearRel(t, "ρ_α RDP z = 9.951727", f64(t)(RhoAlphaGaussianSteps(30, 9.951727)), 0.2168295, 1e-6)
	// …and the general RDP form agrees (α cancels): ε_RDP = kα/(2z²).
	z, alpha := 8.380227, 5.6
	nearRel(t, "ρ_α(ε_RDP, α)", f64(t)(RhoAlphaRDP(30*alpha/(2*z*z), alpha)), 0.2561767, 1e-6)
	// Figure 3(b) grid samples (notes §6.1), 1e-6.
	for _, c := range []struct{ delta, eps, want float64 }{
		{0.1, 0.1, 0.017749}, {0.01, 2, 0.252396}, {1e-4, 5, 0.435086}, {1e-6, 6, 0.428719},
		{1e-10, 10, 0.536595}, {1e-20, 3, 0.123904},
	} {
		near(t, "ρ_α grid", f64(t)(RhoAlpha(c.eps, c.delta)), c.want, 1e-6)
	}
}

func TestYeomAndExpectedConfidence(t *testing.T) {
	// Yeom e^ε − 1 capped at 1 (notes §6.1 table, 4 decimals or so).
	near(t, "Yeom 0.08", f64(t)(YeomBound(0.08)), 0.08329, 1e-5)
	near(t, "Yeom 0.12", f64(t)(YeomBound(0.12)), 0.12750, 1e-5)
	for _, e := range []float64{1.1, 2.2, 4.6} {
		if v := f64(t)(YeomBound(e)); v != 1 {
			t.Errorf("Yeom(%v) = %v, want capped at 1", e, v)
		}
	}
	// ρ_c = ρ_β + δ(1 − ρ_β) (notes §6.1, Figure 3(a)), 1e-6.
	near(t, "ρ_c(1, 0.1)", f64(t)(ExpectedConfidenceBound(1, 0.1)), 0.757953, 1e-6)
	near(t, "ρ_c(2, 0.1)", f64(t)(ExpectedConfidenceBound(2, 0.1)), 0.892717, 1e-6)
	near(t, "ρ_c(1, 0.01)", f64(t)(ExpectedConfidenceBound(1, 0.01)), 0.733748, 1e-6)
	near(t, "ρ_c(1, 1e-6)", f64(t)(ExpectedConfidenceBound(1, 1e-6)), 0.731059, 1e-6)
	// c(δ) (fact 7).
	nearRel(t, "c(0.01)", gaussianC(0.01), 3.1075114600922396, 1e-12)
	nearRel(t, "c(1e-6)", gaussianC(1e-6), 5.298802526850474, 1e-12)
}
