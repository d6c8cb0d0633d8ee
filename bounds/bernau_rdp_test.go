package bounds

import (
	"math"
	"testing"
)

// Reference note bernau2021-identifiability.md §6.1 (RDP-calibrated noise
// multiplier table, computed with the authors' order grid and the classic
// conversion; the ρ_β = 0.9 rows match their notebooks) and §7 facts 8, 10.
func TestNoiseForRhoBetaPaperGrid(t *testing.T) {
	for _, c := range []struct {
		rho, delta, z, order float64
	}{
		{0.9, 0.01, 8.380227, 5.6},
		{0.9, 0.001, 9.951727, 7.8},
		{0.75, 0.01, 15.984861, 9.9},
		{0.99, 0.01, 4.365337, 3.4},
		{0.75, 0.001, 19.240827, 14},
		{0.99, 0.001, 5.074129, 4.4},
		{0.52, 0.01, 404.8436, 63}, // grid edge (fact 10)
		{0.53, 0.001, 329.030413, 63},
	} {
		z, order, err := NoiseForRhoBeta(c.rho, c.delta, 30, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The note prints 6–7 significant digits.
		if math.Abs(z-c.z) > 2e-6*c.z || math.Abs(order-c.order) > 1e-9 {
			t.Errorf("ρ_β = %v, δ = %v: z = %.7f at order %v, want %v at %v", c.rho, c.delta, z, order, c.z, c.order)
		}
	}
	// Round trip: the calibrated z accounts back to ε = ln(ρ/(1 − ρ)).
	z, _, _ := NoiseForRhoBeta(0.9, 0.01, 30, nil)
	eps, _, _ := FullBatchGaussianEpsilon(30/(z*z), 0.01, nil)
	if math.Abs(eps-math.Log(9)) > 1e-9 {
		t.Errorf("round trip ε = %v, want ln 9", eps)
	}
}

// Fact 14: ε′ from constant local sensitivities under bounded GS noise
// z·2C (C = 3, z = 8.380227, δ = 0.01, k = 30): LS = 6 → ε, 3 → 1.04517,
// 2 → 0.68492.
func TestFullBatchEpsilonFromLS(t *testing.T) {
	z := 8.380227
	for _, c := range []struct{ ls, want float64 }{{6, 2.19722}, {3, 1.04517}, {2, 0.68492}, {5, 1.8013}, {4, 1.4173}} {
		r := c.ls / (z * 6)
		eps, _, err := FullBatchGaussianEpsilon(30*r*r, 0.01, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-c.want) > 6e-5 {
			t.Errorf("LS = %v: ε′ = %.5f, want %v", c.ls, eps, c.want)
		}
	}
	if _, _, err := NoiseForRhoBeta(1, 0.01, 30, nil); err == nil {
		t.Error("ρ_β = 1 accepted")
	}
	if _, _, err := NoiseForRhoBeta(0.9, 0, 30, nil); err == nil {
		t.Error("δ = 0 accepted")
	}
}
