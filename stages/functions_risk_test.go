package stages

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// calibrate() with a risk target returns the smallest σ that meets it
// (checked on the curve itself: the target holds at σ and fails just
// below), is memoised under the target's canonical text, and an ε target
// in text form is the numeric calibration, under the numeric one's key.
func TestCalibrateToRiskTarget(t *testing.T) {
	store := pipeline.NewStore(filepath.Join(t.TempDir(), "store"))
	m := NewMemo(store)
	f := Functions(m)
	v, err := f["calibrate"]("tpr_at_fpr=0.05@0.01", 0.01, 1000)
	if err != nil {
		t.Fatal(err)
	}
	sigma := v.(float64)
	tprAt := func(s float64) float64 {
		c, err := privacy.TradeOffCurve(privacy.AccountantBest, privacy.SampledGaussian{NoiseMultiplier: s, SamplingRate: 0.01, Steps: 1000}, privacy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Symmetric.TPR(0.01)
	}
	if hi, lo := tprAt(sigma), tprAt(sigma*(1-1e-5)); !(hi <= 0.05 && lo > 0.05) {
		t.Fatalf("σ = %v: TPR at 1%% FPR %v there and %v 1e-5 below it; want ≤ 0.05 and > 0.05", sigma, hi, lo)
	}
	if again, _ := f["calibrate"]("tpr_at_fpr = 0.050 @ 0.01", 0.01, 1000.0, "best"); again != v {
		t.Errorf("the same target written differently gave %v, want %v", again, v)
	}
	eps, err := f["calibrate"]("epsilon=4@1e-5", 0.01, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Flush(); err != nil {
		t.Fatal(err)
	}
	var cached float64
	if !store.MemoGet("calibrate_risk", []any{"best", "tpr_at_fpr=0.05@0.01", 0.01, 1000.0}, &cached) || cached != sigma {
		t.Errorf("risk memo: %v, want %v", cached, sigma)
	}
	if !store.MemoGet("calibrate", []any{"best", 4.0, 1e-5, 0.01, 1000.0}, &cached) || cached != eps {
		t.Errorf("an ε target in text form is not memoised as calibrate(4, 1e-5, …): %v vs %v", cached, eps)
	}
	if num, _ := Functions(NewMemo(nil))["calibrate"](4.0, 1e-5, 0.01, 1000); num != eps {
		t.Errorf("calibrate(\"epsilon=4@1e-5\", …) = %v, calibrate(4, 1e-5, …) = %v", eps, num)
	}
}

// A risk target no σ in [1e-6, 1e6] meets, a target guessing already
// meets, and a malformed target are errors at the expression's key.
func TestCalibrateRiskTargetErrorsArePositioned(t *testing.T) {
	if _, err := Functions(NewMemo(nil))["calibrate"]("advantage=1e-8", 0.01, 1000, "pld"); !errors.Is(err, privacy.ErrUnreachable) {
		t.Fatalf("advantage 1e-8 at q = 0.01, T = 1000: %v, want ErrUnreachable", err)
	}
	for _, c := range []struct{ expr, want string }{
		{`calibrate('advantage=1e-8', 0.01, 1000, 'pld')`, "target unreachable"},
		{`calibrate('tpr_at_fpr=0.005@0.01', 0.01, 1000)`, "target TPR 0.005 is not above the FPR 0.01"},
		{`calibrate('reconstruction=0.2@1.5', 0.01, 1000)`, "baseline must be in (0, 1), got 1.5"},
		{`calibrate('tpr=0.2', 0.01, 1000)`, `unknown target kind "tpr"`},
		{`calibrate('advantage=0.1', 0.01, 10.5)`, "steps must be a whole number"},
		{`calibrate('advantage=0.1', 0.01)`, "takes 3 or 4 arguments"},
	} {
		src := "name: quick\ndpsgd:\n  noise_multiplier: \"=" + c.expr + "\"\n  sampling_rate: 0.01\n  steps: 1000\n"
		s, err := spec.Parse("quick.yaml", []byte(src), spec.Options{Functions: Functions(NewMemo(nil))})
		if err == nil {
			_, _, err = s.Expand()
		}
		if err == nil || !strings.Contains(err.Error(), "quick.yaml:3:21: dpsgd.noise_multiplier:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one at quick.yaml:3:21 containing %q", c.expr, err, c.want)
		}
	}
}
