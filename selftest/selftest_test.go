package selftest

import (
	"context"
	"errors"
	"math"
	"testing"
)

// The CI self-test: at the defaults every valid estimator's exceedance is
// not significantly above α = 5%, and the invalid point estimate is caught
// exceeding (a GDP point estimate at the true ε overshoots about half the
// time). Power is checked against reference note §8 item 17 in
// TestNoteItem17.
func TestDefaultCoverage(t *testing.T) {
	c := Default()
	if testing.Short() {
		c.Repeats = 100
	}
	rep, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// σ for exact ε = 4 at δ = 1e-5: μ = 0.924931 (note §8 item 8).
	if math.Abs(1/rep.Sigma-0.924931) > 1e-5 || math.Abs(rep.TrueEps-4) > 1e-9 {
		t.Fatalf("σ = %v (μ = %v), true ε = %v", rep.Sigma, 1/rep.Sigma, rep.TrueEps)
	}
	for _, r := range rep.Rows {
		t.Logf("%-18s valid %-5v exceed %3d/%d  mean ε_lb %.3f  power %.2f", r.Method, r.Valid, r.Exceed, r.Repeats, r.MeanLB, r.Power)
		if r.Valid && !r.OK {
			t.Errorf("%s: valid estimator exceeds the true ε in %d of %d audits (rate CI [%.3f, %.3f] above α = %.2f)", r.Method, r.Exceed, r.Repeats, r.RateLo, r.RateHi, r.Nominal)
		}
		if r.Method == GDPPoint && r.Rate < 0.2 {
			t.Errorf("GDP point estimate exceeds the true ε in only %d of %d audits; a point estimate should overshoot often", r.Exceed, r.Repeats)
		}
	}
}

// Reference note (nasr2021) §8 item 17: Gaussian shift μ = 0.9249 (exact
// ε = 4), N = 1000 per world: post-hoc median ≈ 1.66, split median ≈ 1.00,
// Monte Carlo values with ±0.05 spread, for the note's 500/500 split.
// Tolerance 0.12 for 60 audits. The default split (a fifth chooses, the
// threshold scored by the bound at the evaluation size) must
// do better on the same trials.
func TestNoteItem17(t *testing.T) {
	if testing.Short() {
		t.Skip("60 audits of 2000 trials")
	}
	c := Default()
	c.Trials, c.Repeats, c.Methods = []int{2000}, 60, []string{Split, PostHoc}
	c.SplitFraction = 0.5
	rep, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{Split: 1.00, PostHoc: 1.66}
	for _, r := range rep.Rows {
		if math.Abs(r.MedianLB-want[r.Method]) > 0.12 {
			t.Errorf("%s: median ε_lb %.3f, note says %.2f", r.Method, r.MedianLB, want[r.Method])
		}
	}
	c.SplitFraction, c.Methods = 0, []string{Split}
	def, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if d := def.Rows[0]; !(d.MeanLB > rep.Rows[0].MeanLB+0.05) || !d.OK {
		t.Errorf("default split: mean ε_lb %.3f (coverage ok %v), not above the half split's %.3f", d.MeanLB, d.OK, rep.Rows[0].MeanLB)
	}
}

// Results do not depend on the number of workers.
func TestWorkersIndependent(t *testing.T) {
	c := Default()
	c.Repeats, c.Trials = 8, []int{200}
	c.Workers = 1
	a, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Workers = 3
	b, _ := Run(context.Background(), c)
	for i := range a.Rows {
		if a.Rows[i].MeanLB != b.Rows[i].MeanLB || a.Rows[i].Exceed != b.Rows[i].Exceed {
			t.Errorf("%s: workers change the result", a.Rows[i].Method)
		}
	}
}

// A cancelled context stops both self-tests with its error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := Default()
	c.Repeats, c.Trials = 8, []int{200}
	if _, err := Run(ctx, c); !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v, want context.Canceled", err)
	}
	if _, err := RunSequential(ctx, SequentialConfig{Epsilon: 4, Delta: 1e-5, Confidence: 0.95, FirstLook: 100, Budget: 400, Audits: 4, Seed: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("RunSequential: %v, want context.Canceled", err)
	}
}
