package bounds

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestReRoAlgorithm1Table2(t *testing.T) {
	// Table 2 "Ours" (paper; T = 1, q = 1, 10⁵ samples as in the paper's
	// Appendix A), n = 10: Algorithm 1 with the 1/N normalisation is within
	// ±0.02 (σ = 0.5) or ±0.005 (others) of the printed advantages (notes §7;
	// the printed 1/⌈κN⌉ would give ≈ 7.6 at σ = 0.5).
	want := []float64{0.737, 0.322, 0.189, 0.128, 0.099, 0.080}
	for i, sigma := range table2Sigmas {
		r, err := ReRoBound(DPSGD{sigma, 1, 1}, 0.1, ReRoOptions{Method: ReRoMonteCarlo, Samples: 100_000, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		tol := 0.005
		if sigma == 0.5 {
			tol = 0.02
		}
		near(t, "Algorithm 1 advantage", f64(t)(ReRoAdvantage(r.Gamma, 0.1)), want[i], tol)
	}
}

func TestReRoMonteCarloAgreesWithExact(t *testing.T) {
	// The estimators must agree within their stated errors. At
	// the Fig. 5 setting (ε = 4, q = 0.01, σ = 0.5908, T = 100; notes §5.3:
	// 0.1867 and 0.0352) both Monte Carlo intervals (confidence 0.999)
	// contain the exact bracket's midpoint, and the robust interval is
	// narrower than ±0.01 at N = 2·10⁵.
	m := DPSGD{0.5908, 0.01, 100}
	kappas := []float64{0.1, 0.01}
	exact, err := ReRoBounds(m, kappas, ReRoOptions{Method: ReRoExact})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []ReRoMethod{ReRoRobust, ReRoMonteCarlo} {
		rs, err := ReRoBounds(m, kappas, ReRoOptions{Method: method, Samples: 200_000, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			mid := (exact[i].Lower + exact[i].Upper) / 2
			if !(r.Lower <= mid && mid <= r.Upper) {
				t.Errorf("%s κ=%v: interval [%.5f, %.5f] (γ̂ = %.5f) misses the exact %.5f", method, kappas[i], r.Lower, r.Upper, r.Gamma, mid)
			}
			if !(r.Lower <= r.Gamma && r.Gamma <= r.Upper) {
				t.Errorf("%s κ=%v: estimate %v outside its interval [%v, %v]", method, kappas[i], r.Gamma, r.Lower, r.Upper)
			}
			if method == ReRoRobust && r.Upper-r.Lower > 0.02 {
				t.Errorf("robust κ=%v: interval width %v, want ≤ 0.02", kappas[i], r.Upper-r.Lower)
			}
		}
	}
}

func TestReRoRobustFullBatch(t *testing.T) {
	// q = 1 closed form (notes §2.4), ε = 10 setting (σ = 4.9989, κ = 0.1:
	// 0.7639). The robust interval must contain it.
	want := f64(t)(ReRoFullBatch(4.9989, 100, 0.1))
	r, err := ReRoBound(DPSGD{4.9989, 1, 100}, 0.1, ReRoOptions{Samples: 100_000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != ReRoRobust {
		t.Errorf("default method = %q, want %q", r.Method, ReRoRobust)
	}
	if !(r.Lower <= want && want <= r.Upper) {
		t.Errorf("robust interval [%v, %v] misses the closed form %v", r.Lower, r.Upper, want)
	}
}

func TestReRoHeavyTails(t *testing.T) {
	// Notes §2.6 and Fig. 15: ε = 32, q = 0.99, |π| = 100 (σ = 2.0326), true
	// bound 0.9945. Algorithm 1's likelihood ratios are so heavy-tailed that
	// a handful of samples carry its estimate (≈ 0.41 for the notes' seed):
	// its EffectiveSamples must flag that (< 100 of ⌈κN⌉ = 2000). The robust
	// estimator must stay ≥ 0.98 with its whole interval.
	m := DPSGD{2.0326, 0.99, 100}
	opts := ReRoOptions{Samples: 200_000, Seed: 5}
	r, err := ReRoBound(m, 0.01, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.Lower >= 0.98) {
		t.Errorf("robust estimate %v, interval [%v, %v]: want ≥ 0.98", r.Gamma, r.Lower, r.Upper)
	}
	opts.Method = ReRoMonteCarlo
	a, err := ReRoBound(m, 0.01, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !(a.EffectiveSamples < 100) {
		t.Errorf("Algorithm 1 effective samples %v: want < 100 to flag the heavy tails", a.EffectiveSamples)
	}
	// In the benign regime the same diagnostic is large (≥ 1000).
	b, err := ReRoBound(DPSGD{0.5908, 0.01, 20}, 0.1, ReRoOptions{Method: ReRoMonteCarlo, Samples: 50_000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !(b.EffectiveSamples >= 1000) {
		t.Errorf("benign Algorithm 1 effective samples %v, want ≥ 1000", b.EffectiveSamples)
	}
}

func TestReRoMonteCarloDeterministic(t *testing.T) {
	// Results are identical for any GOMAXPROCS (streams per chunk).
	m := DPSGD{0.8, 0.05, 20}
	for _, method := range []ReRoMethod{ReRoRobust, ReRoMonteCarlo} {
		var first ReRoResult
		for i, workers := range []int{1, 2, 5} {
			r, err := ReRoBound(m, 0.05, ReRoOptions{Method: method, Samples: 30_000, Seed: 42, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = r
			} else if r != first {
				t.Errorf("%s: workers=%d gave %+v, workers=1 gave %+v", method, workers, r, first)
			}
		}
		other, err := ReRoBound(m, 0.05, ReRoOptions{Method: method, Samples: 30_000, Seed: 43})
		if err != nil {
			t.Fatal(err)
		}
		if other.Gamma == first.Gamma {
			t.Errorf("%s: seeds 42 and 43 gave the same estimate %v", method, other.Gamma)
		}
	}
}

// The Monte Carlo methods stop on a cancelled context, with its error.
func TestReRoMonteCarloCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := ReRoOptions{Samples: 30_000}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []ReRoMethod{ReRoRobust, ReRoMonteCarlo} {
		o.Method = method
		if _, err := reroAll(ctx, DPSGD{0.8, 0.05, 20}, []float64{0.05}, o); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", method, err)
		}
	}
}

func TestReRoTooFewSamples(t *testing.T) {
	// ⌈κN⌉ < 100 is an error that says so and suggests N.
	_, err := ReRoBound(DPSGD{1, 0.1, 10}, 0.01, ReRoOptions{Samples: 5000})
	wantInvalid(t, "N = 5000 at κ = 0.01", err)
	if err != nil && !strings.Contains(err.Error(), "N ≥ 10000") {
		t.Errorf("error should suggest N ≥ 10000: %v", err)
	}
	// ⌈0.01·9900⌉ = 99 is too few, ⌈0.01·9901⌉ = 100 is enough.
	_, err = ReRoBound(DPSGD{1, 0.1, 10}, 0.01, ReRoOptions{Method: ReRoMonteCarlo, Samples: 9900})
	wantInvalid(t, "N = 9900 at κ = 0.01", err)
	if _, err := ReRoBound(DPSGD{1, 0.1, 10}, 0.01, ReRoOptions{Method: ReRoMonteCarlo, Samples: 9901}); err != nil {
		t.Errorf("N = 9901 at κ = 0.01: %v", err)
	}
}
