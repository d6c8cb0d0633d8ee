package privacy

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error caused by bad input (a noise
// multiplier ≤ 0, a sampling rate outside (0, 1], a δ outside (0, 1), …).
// Callers test for it with errors.Is to tell bad input (exit code 2) from a
// failure of the computation itself. It is the module's one input-error
// sentinel (internal/inputerr), so the same test recognises bad input
// found by bounds, audit, attack, datasets and learn/glm.
var ErrInvalid = inputerr.ErrInvalid

// ErrUnreachable is wrapped by calibration errors when no noise multiplier
// in the searched range reaches the target (for example an ε below what the
// RDP order grid can certify).
var ErrUnreachable = errors.New("target unreachable")

// invalidf returns an error wrapping ErrInvalid with a message that says what
// was wrong and why.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func checkSamplingRate(q float64) error {
	if !(q > 0 && q <= 1) {
		return invalidf("sampling rate must be in (0, 1], got %v", q)
	}
	return nil
}

// checkNoise accepts σ = 0 ("no noise", ε = +Inf) when allowZero is set;
// calibration outputs σ and never needs it.
func checkNoise(sigma float64, allowZero bool) error {
	if math.IsNaN(sigma) || math.IsInf(sigma, 0) || sigma < 0 || (sigma == 0 && !allowZero) {
		if allowZero {
			return invalidf("noise multiplier must be ≥ 0 and finite, got %v", sigma)
		}
		return invalidf("noise multiplier must be > 0 and finite, got %v", sigma)
	}
	return nil
}

func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return invalidf("δ must be in (0, 1), got %v", delta)
	}
	return nil
}

func checkEpsilon(eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return invalidf("ε must be ≥ 0 and finite, got %v", eps)
	}
	return nil
}

func checkSteps(steps int) error {
	if steps < 1 {
		return invalidf("steps must be ≥ 1, got %d", steps)
	}
	return nil
}

func wrapUnreachable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnreachable, fmt.Sprintf(format, args...))
}
