package numeric

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
