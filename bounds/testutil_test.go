package bounds

import (
	"errors"
	"math"
	"testing"
)

// near fails unless |got − want| ≤ tol.
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.10g, want %.10g ± %.3g (off by %.3g)", what, got, want, tol, got-want)
	}
}

// nearRel fails unless |got − want| ≤ rel·|want|.
func nearRel(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g (relative tolerance %.1g, off by %.3g relative)", what, got, want, rel, (got-want)/want)
	}
}

// f64 returns a function that fails the test on a non-nil error and
// otherwise returns the value: f64(t)(ReRoFullBatch(…)).
func f64(t *testing.T) func(float64, error) float64 {
	return func(v float64, err error) float64 {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

// wantInvalid fails unless err wraps ErrInvalid.
func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: want an ErrInvalid error, got nil", what)
		return
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("%s: want an error wrapping ErrInvalid, got %v", what, err)
	}
}
