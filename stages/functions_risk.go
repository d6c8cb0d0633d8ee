package stages

import (
	"fmt"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// calibrateTarget is calibrate() with a target in privacy.Target's text
// form as its first argument — the form `dpaudit calibrate` prints:
//
//	calibrate("tpr_at_fpr=0.05@0.01", sampling_rate, steps[, accountant])
//	calibrate("advantage=0.1", …), calibrate("reconstruction=0.2@0.1", …)
//	calibrate("epsilon=8@1e-5", …)   the same as calibrate(8, 1e-5, …)
//
// An ε target keys the memo as the numeric form does (one calibration,
// whichever way it is written); a risk target keys it on the target's
// canonical text, so "advantage=0.10" and "advantage=0.1" share it.
func calibrateTarget(m *Memo, args []any) (any, error) {
	if len(args) != 3 && len(args) != 4 {
		return nil, fmt.Errorf("calibrate(target, sampling_rate, steps[, accountant]) takes 3 or 4 arguments when the target is text, got %d", len(args))
	}
	t, err := privacy.ParseTarget(args[0].(string))
	if err != nil {
		return nil, fmt.Errorf("calibrate: %v", err)
	}
	rest := append([]any{t.Value, t.At}, args[1:]...)
	for i := 1; i <= 2; i++ {
		if rest[i+1], err = spec.ToFloat(args[i]); err != nil {
			return nil, fmt.Errorf("calibrate: argument %d: %v", i+1, err)
		}
	}
	// dpArgs checks steps and the accountant, and reads the numbers.
	a, acc, err := dpArgs("calibrate", "target, sampling_rate, steps", 3, rest)
	if err != nil {
		return nil, err
	}
	if t.Kind == privacy.TargetEpsilon {
		return m.get("calibrate", []any{acc, a[0], a[1], a[2], a[3]}, func() (float64, error) {
			return privacy.Calibrate(privacy.Accountant(acc), a[0], a[1], a[2], int(a[3]), privacy.Options{})
		})
	}
	return m.get("calibrate_risk", []any{acc, t.String(), a[2], a[3]}, func() (float64, error) {
		return privacy.CalibrateTo(privacy.Accountant(acc), t, a[2], int(a[3]), privacy.Options{})
	})
}

// isText reports whether an expression argument is a string.
func isText(v any) bool {
	_, ok := v.(string)
	return ok
}
