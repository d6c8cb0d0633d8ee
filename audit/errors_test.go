package audit

import (
	"errors"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
)

func TestBadInputIsErrInvalid(t *testing.T) {
	scores, worlds := gaussianShift(1, 0, 10, 1)
	opts := func(f func(*Options)) Options {
		o := DefaultOptions()
		f(&o)
		return o
	}
	type call struct {
		name string
		err  error
	}
	est := func(s []float64, w []bool, o Options) error { _, err := Estimate(s, w, o); return err }
	calls := []call{
		{"length mismatch", est(scores, worlds[:5], DefaultOptions())},
		{"one trial in world 1", est([]float64{1, 2, 3}, []bool{false, false, true}, DefaultOptions())},
		{"one trial in world 0", est([]float64{1, 2, 3}, []bool{false, true, true}, DefaultOptions())},
		{"no trials", est(nil, nil, DefaultOptions())},
		{"NaN score", est([]float64{1, math.NaN(), 3, 4}, []bool{false, false, true, true}, DefaultOptions())},
		{"Inf score", est([]float64{1, math.Inf(1), 3, 4}, []bool{false, false, true, true}, DefaultOptions())},
		{"confidence 0", est(scores, worlds, opts(func(o *Options) { o.Confidence = 0 }))},
		{"confidence 1", est(scores, worlds, opts(func(o *Options) { o.Confidence = 1 }))},
		{"confidence NaN", est(scores, worlds, opts(func(o *Options) { o.Confidence = math.NaN() }))},
		{"δ < 0", est(scores, worlds, opts(func(o *Options) { o.Delta = -1e-5 }))},
		{"δ = 1", est(scores, worlds, opts(func(o *Options) { o.Delta = 1 }))},
		{"split fraction 1", est(scores, worlds, opts(func(o *Options) { o.SplitFraction = 1 }))},
		{"unknown method", est(scores, worlds, opts(func(o *Options) { o.Method = "best" }))},
		{"unknown sides", est(scores, worlds, opts(func(o *Options) { o.Sides = 7 }))},
		{"empty grid", est(scores, worlds, opts(func(o *Options) { o.Method, o.Grid = Bonferroni, []float64{} }))},
		{"NaN grid", est(scores, worlds, opts(func(o *Options) { o.Method, o.Grid = Bonferroni, []float64{math.NaN()} }))},
		{"negative grid size", est(scores, worlds, opts(func(o *Options) { o.GridSize = -1 }))},
	}
	_, err := ClopperPearsonUpper(5, 4, 0.95, TwoSided)
	calls = append(calls, call{"x > n", err})
	_, err = ClopperPearsonLower(0, 0, 0.95, TwoSided)
	calls = append(calls, call{"n = 0", err})
	_, err = EpsilonLowerBound(Counts{N0: 10, FP: 11, N1: 10}, 1e-5, 0.95, TwoSided)
	calls = append(calls, call{"FP > N0", err})
	_, err = EpsilonLowerBound(Counts{N0: 10, N1: 10}, 1e-5, 1.5, TwoSided)
	calls = append(calls, call{"bound confidence 1.5", err})
	_, err = EpsilonPoint(Counts{N1: 10}, 1e-5)
	calls = append(calls, call{"no world-0 trials", err})
	_, err = GDPFromCounts(Counts{N0: 10, N1: 10}, -1, 0.95, TwoSided)
	calls = append(calls, call{"GDP δ < 0", err})
	_, err = OneRunEpsilon(10, 5, 6, 1e-5, 0.95)
	calls = append(calls, call{"v > r", err})
	_, err = OneRunEpsilon(10, 11, 6, 1e-5, 0.95)
	calls = append(calls, call{"r > m", err})
	_, err = OneRunEpsilon(10, 5, 3, 1e-5, 0)
	calls = append(calls, call{"one-run confidence 0", err})
	_, err = OneRunPValue(10, 5, 3, -1, 1e-5)
	calls = append(calls, call{"ε < 0", err})
	_, err = OneRun([]float64{1, 2}, []bool{true}, 1, 0, 1e-5, 0.95)
	calls = append(calls, call{"one-run length mismatch", err})
	_, err = OneRun([]float64{1, 2}, []bool{true, false}, 2, 1, 1e-5, 0.95)
	calls = append(calls, call{"k+ + k− > m", err})
	_, err = OneRun(nil, nil, 0, 0, 1e-5, 0.95)
	calls = append(calls, call{"no canaries", err})
	for _, c := range calls {
		if !errors.Is(c.err, ErrInvalid) || !errors.Is(c.err, privacy.ErrInvalid) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid", c.name, c.err)
		}
	}
}

func TestMinimalInputWorks(t *testing.T) {
	// Two trials per world is the minimum; every method must cope (split
	// then chooses on one trial per world and evaluates on the other).
	scores := []float64{0.1, 0.9, 0.2, 0.8}
	worlds := []bool{false, true, false, true}
	for _, m := range []Method{Split, PostHoc, Bonferroni} {
		o := DefaultOptions()
		o.Method = m
		r, err := Estimate(scores, worlds, o)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if r.EpsilonLB != 0 || r.AUC != 1 {
			t.Errorf("%s: ε_lb = %v (want 0 with 2 trials), AUC = %v (want 1)", m, r.EpsilonLB, r.AUC)
		}
	}
}
