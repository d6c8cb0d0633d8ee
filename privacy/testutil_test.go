package privacy

import (
	"math"
	"testing"
)

// near fails the test unless |got − want| ≤ tol (absolute).
func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.12g, want %.12g ± %g (off by %.3g)", name, got, want, tol, got-want)
	}
}

// nearRel fails the test unless |got − want| ≤ rel·|want|.
func nearRel(t *testing.T, name string, got, want, rel float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.15g, want %.15g ± %g relative (off by %.3g relative)", name, got, want, rel, (got-want)/want)
	}
}

// mustF and mustRDP unwrap (value, error) results, failing the test on error.
func mustF(t *testing.T) func(float64, error) float64 {
	return func(v float64, err error) float64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func mustRDP(t *testing.T) func(*RDP, error) *RDP {
	return func(v *RDP, err error) *RDP {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// tfOrders is TF-Privacy's classic order grid {1.1, …, 10.9} ∪ {12, …, 63},
// used by the reference notes for the classic-conversion numbers.
func tfOrders() []float64 {
	var o []float64
	for x := 1; x < 100; x++ {
		o = append(o, 1+float64(x)/10)
	}
	for a := 12; a < 64; a++ {
		o = append(o, float64(a))
	}
	return o
}

// mnist is the schedule of the reference notes: N = 60000, batch 256,
// q = 256/60000, T = ⌈60·60000/256⌉ = 14063.
const mnistQ = 256.0 / 60000
const mnistT = 14063
