package selftest

import (
	"context"
	"testing"
)

// The sequential audit is anytime-valid on the ideal mechanism: honest
// claims (the mechanism's own profile) are falsely refuted no more often
// than α, on the Gaussian mechanism and on the subsampled Gaussian; a
// claim that overstates σ by 1.5× is caught (its power).
func TestSequentialSelftest(t *testing.T) {
	for _, c := range []SequentialConfig{
		{Epsilon: 4, Delta: 1e-5, Confidence: 0.8, FirstLook: 40, Budget: 1280, Audits: 200, Seed: 1},
		{Epsilon: 3, Delta: 1e-5, SamplingRate: 0.1, Steps: 20, Confidence: 0.8, FirstLook: 40, Budget: 640, Audits: 100, Seed: 2},
	} {
		rep, err := RunSequential(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("q=%g T=%d: %d/%d false violations [%.3f, %.3f], α = %.2f, mean trials %.0f, %v", rep.Config.SamplingRate, rep.Config.Steps, rep.Violations, rep.Audits, rep.RateLo, rep.RateHi, rep.Nominal, rep.MeanTrialsUsed, rep.Elapsed)
		if !rep.OK {
			t.Errorf("false violations %d/%d significantly above α = %v", rep.Violations, rep.Audits, rep.Nominal)
		}
	}
	rep, err := RunSequential(context.Background(), SequentialConfig{Epsilon: 4, Delta: 1e-5, Confidence: 0.95, FirstLook: 100, Budget: 3200, Audits: 50, ClaimFactor: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("σ claimed 2× too large: %d/%d caught, mean trials %.0f", rep.Violations, rep.Audits, rep.MeanTrialsUsed)
	if rep.Violations < 40 {
		t.Errorf("a claim 2× too noisy caught in %d/%d audits only", rep.Violations, rep.Audits)
	}
}
