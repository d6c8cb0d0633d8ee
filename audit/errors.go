package audit

import (
	"fmt"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error caused by bad input (fewer than two
// trials in a world, a confidence outside (0, 1), a NaN score, …). It is the
// module's one input-error sentinel (internal/inputerr, also
// privacy.ErrInvalid), so a caller that maps bad input to exit code 2 needs
// one errors.Is test for every package.
var ErrInvalid = inputerr.ErrInvalid

// invalidf returns an error wrapping ErrInvalid that says what was wrong.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("audit: %w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func checkConfidence(c float64) error {
	if !(c > 0 && c < 1) {
		return invalidf("confidence must be in (0, 1), got %v", c)
	}
	return nil
}

// checkDelta accepts δ = 0 (pure DP): the bounds are defined there, only
// the Gaussian-DP conversion is degenerate (ε = +Inf).
func checkDelta(delta float64) error {
	if !(delta >= 0 && delta < 1) {
		return invalidf("δ must be in [0, 1), got %v", delta)
	}
	return nil
}
