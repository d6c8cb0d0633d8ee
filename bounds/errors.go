package bounds

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error caused by bad input: a κ outside
// (0, 1), a prior smaller than 2, too few Monte Carlo samples for κ, a
// dimension or diameter ≤ 0, a target belief or advantage outside the range
// its inverse is defined on, and so on. Test for it with errors.Is to map
// the error to exit code 2.
//
// It is the module's one input-error sentinel (internal/inputerr, also
// privacy.ErrInvalid), so bad input detected by the accountants underneath
// (a noise multiplier ≤ 0, a sampling rate outside (0, 1], …) is
// recognised by the same test.
var ErrInvalid = inputerr.ErrInvalid

// invalidf returns an error wrapping ErrInvalid that says what was wrong and why.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func checkKappa(kappa float64) error {
	if !(kappa > 0 && kappa < 1) {
		return invalidf("prior baseline κ must be in (0, 1), got %v", kappa)
	}
	return nil
}

func checkEpsilon(name string, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return invalidf("%s must be ≥ 0 and finite, got %v", name, eps)
	}
	return nil
}

func checkPositive(name string, x float64) error {
	if !(x > 0) || math.IsInf(x, 1) {
		return invalidf("%s must be > 0 and finite, got %v", name, x)
	}
	return nil
}

// checkDeltaClosed accepts δ ∈ [0, 1): pure DP is δ = 0.
func checkDeltaClosed(delta float64) error {
	if !(delta >= 0 && delta < 1) {
		return invalidf("δ must be in [0, 1), got %v", delta)
	}
	return nil
}

// checkDeltaOpen accepts δ ∈ (0, 1), for formulas with log(1/δ).
func checkDeltaOpen(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return invalidf("δ must be in (0, 1), got %v", delta)
	}
	return nil
}

func checkCount(name string, n int, min int) error {
	if n < min {
		return invalidf("%s must be ≥ %d, got %d", name, min, n)
	}
	return nil
}
