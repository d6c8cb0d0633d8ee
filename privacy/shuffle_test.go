package privacy

import (
	"math"
	"testing"
)

// Reference: tight-auditing-estimators.md §6, the [derived] one-epoch
// construction's ε at δ = 1e-5 (the note's own computation, "use only as a
// regression check of the formula"). K = T: one epoch.
func TestShuffleEpsilonLBReference(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		K     int
		want  float64
	}{
		{0.5, 1, 9.9973},
		{0.5, 1000, 3.1340},
		{1.0, 1000, 0.0756},
		{0.4, 10000, 4.0146},
	} {
		got, err := ShuffleEpsilonLB(c.sigma, c.K, c.K, 1e-5, ShuffleOthersZero)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 2e-4 {
			t.Errorf("σ=%g K=%d: ε ≥ %.5f, want %.4f", c.sigma, c.K, got, c.want)
		}
	}
}

// More epochs can only raise the bound; a partial epoch lowers it; bad
// input is an error.
func TestShuffleEpsilonLBShape(t *testing.T) {
	one, _ := ShuffleEpsilonLB(0.8, 10, 10, 1e-5, ShuffleOthersMinusOne)
	five, _ := ShuffleEpsilonLB(0.8, 10, 50, 1e-5, ShuffleOthersMinusOne)
	part, _ := ShuffleEpsilonLB(0.8, 10, 5, 1e-5, ShuffleOthersMinusOne)
	if !(five > one && one > part && part > 0) {
		t.Errorf("1 epoch %.4f, 5 epochs %.4f, half an epoch %.4f", one, five, part)
	}
	for _, bad := range [][4]float64{{0, 10, 10, 1e-5}, {1, 0, 10, 1e-5}, {1, 10, 0, 1e-5}, {1, 10, 10, 0}} {
		if _, err := ShuffleEpsilonLB(bad[0], int(bad[1]), int(bad[2]), bad[3], ShuffleOthersMinusOne); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
