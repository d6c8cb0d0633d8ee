package learn

import (
	"math"
	"testing"
)

// TestTanh32Accuracy compares the rational float32 tanh with math.Tanh on a
// grid of 2·10⁵ points over [−12, 12] and at the clamp edges. Reference:
// float64 math.Tanh; tolerance 5e−7 absolute (8 float32 ulp just below 1).
func TestTanh32Accuracy(t *testing.T) {
	worst, at := 0.0, 0.0
	for i := -100000; i <= 100000; i++ {
		x := float32(i) * 12e-5
		err := math.Abs(float64(tanh32(x)) - math.Tanh(float64(x)))
		if err > worst {
			worst, at = err, float64(x)
		}
	}
	if worst > 5e-7 {
		t.Errorf("max |tanh32 − tanh| = %.3g at x = %g, want ≤ 5e−7", worst, at)
	}
	for _, x := range []float32{0, 1e-30, -3e-4, 9, -9, 50, -50} {
		if got, want := float64(tanh32(x)), math.Tanh(float64(x)); math.Abs(got-want) > 5e-7 {
			t.Errorf("tanh32(%g) = %g, want %g", x, got, want)
		}
	}
	if nan := tanh32(float32(math.NaN())); nan == nan {
		t.Errorf("tanh32(NaN) = %g, want NaN (the trainer must see it)", nan)
	}
	t.Logf("max abs error %.3g at %g", worst, at)
}
