package privacy

import (
	"math"
	"testing"
)

// DeltaProfile agrees with Delta at every ε (exactly for RDP and GDP; for
// PLD never below it, and within 1% here, where Delta does not tilt).
func TestDeltaProfileMatchesDelta(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.6267, SamplingRate: 0.1, Steps: 100}
	eps := []float64{0, 0.5, 1, 2, 3}
	for _, acc := range []Accountant{AccountantRDP, AccountantPLD, AccountantGDP, AccountantBest} {
		got, err := DeltaProfile(acc, m, eps, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range eps {
			want, err := Delta(acc, m, e, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got[i] < want*(1-1e-12) || got[i] > want*1.01 {
				t.Errorf("%s δ(%v) = %v, Delta gives %v", acc, e, got[i], want)
			}
			if acc != AccountantPLD && acc != AccountantBest && math.Abs(got[i]-want) > 1e-15*want {
				t.Errorf("%s δ(%v) = %v, want exactly %v", acc, e, got[i], want)
			}
		}
	}
}
