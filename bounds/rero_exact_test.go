package bounds

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

func TestReRoExactBracketsFullBatchClosedForm(t *testing.T) {
	// At q = 1 the exact value is Φ(Φ⁻¹(κ) + √T/σ) (notes §2.4). The
	// bracket must contain it and be narrower than the default tolerance
	// 1e-3, from κ = 0.001 (threshold far out) to κ = 0.9 (threshold < 0).
	for _, c := range []struct {
		sigma float64
		T     int
	}{{0.5, 1}, {1, 1}, {3, 1}, {10.8116, 100}, {2.0493, 100}, {1.5, 10}} {
		kappas := []float64{0.001, 0.01, 0.1, 0.5, 0.9}
		// The public method returns the closed form at q = 1; check the
		// discretised computation itself.
		o, _ := ReRoOptions{Method: ReRoExact}.withDefaults()
		rs, err := reroExactFFT(DPSGD{c.sigma, 1, c.T}, kappas, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			want := f64(t)(ReRoFullBatch(c.sigma, c.T, kappas[i]))
			if !(r.Lower <= want+1e-12 && want <= r.Upper+1e-12) {
				t.Errorf("σ=%v T=%d κ=%v: bracket [%.10f, %.10f] misses the closed form %.10f", c.sigma, c.T, kappas[i], r.Lower, r.Upper, want)
			}
			if r.Upper-r.Lower > DefaultReRoTolerance {
				t.Errorf("σ=%v T=%d κ=%v: bracket width %v above the tolerance", c.sigma, c.T, kappas[i], r.Upper-r.Lower)
			}
			if r.Gamma != r.Upper || r.Confidence != 1 || r.Method != ReRoExact {
				t.Errorf("exact result must report Gamma = Upper, confidence 1: %+v", r)
			}
		}
	}
}

func TestReRoExactFullBatchShortcut(t *testing.T) {
	// At q = 1 the exact method is the closed form (notes §2.4), with the
	// Neyman–Pearson threshold t = μΦ⁻¹(1 − κ) − μ²/2: P_ν[L > t] = κ for
	// L ∼ N(−μ²/2, μ²) under ν. Closed form to 1e-15; threshold by definition.
	r, err := ReRoBound(DPSGD{4.9989, 1, 100}, 0.1, ReRoOptions{Method: ReRoExact})
	if err != nil {
		t.Fatal(err)
	}
	want := f64(t)(ReRoFullBatch(4.9989, 100, 0.1))
	nearRel(t, "q = 1 exact", r.Gamma, want, 1e-15)
	mu := 10 / 4.9989
	near(t, "P_ν[L > t]", numeric.NormSF((r.Threshold+mu*mu/2)/mu), 0.1, 1e-12)
}

func TestReRoExactReferenceValues(t *testing.T) {
	// Notes §7 "Fixed σ, q < 1" and §5.3 (deterministic method,
	// cross-checked with NP-MC at 10⁶ samples to ≤ 0.001): ±0.002 as the
	// notes suggest for a fixed σ (the tables print 4 decimals).
	cases := []struct {
		m     DPSGD
		kappa float64
		want  float64
	}{
		{DPSGD{0.590762, 0.01, 100}, 0.1, 0.1867},
		{DPSGD{10.7172, 0.99, 100}, 0.1, 0.3602},
		{DPSGD{0.2808, 0.01, 100}, 0.01, 0.3748},
		{DPSGD{2.0326, 0.99, 100}, 0.01, 0.9945},
		{DPSGD{0.5908, 0.01, 100}, 0.5, 0.6151},
		{DPSGD{0.5908, 0.01, 100}, 0.01, 0.0352},
		{DPSGD{1.3871, 0.10, 100}, 0.1, 0.3188},
		{DPSGD{5.5170, 0.50, 100}, 0.01, 0.0789},
		{DPSGD{0.9034, 0.01, 100}, 0.1, 0.1327},
		{DPSGD{0.4647, 0.01, 100}, 0.01, 0.0752},
		{DPSGD{3.4126, 0.99, 100}, 0.01, 0.7172},
		{DPSGD{0.3632, 0.01, 100}, 0.5, 0.7361},
	}
	for _, c := range cases {
		r, err := ReRoBound(c.m, c.kappa, ReRoOptions{Method: ReRoExact})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "exact ReRo bound", r.Gamma, c.want, 0.002)
	}
}

func TestReRoExactSmallNoiseLimit(t *testing.T) {
	// Derived: as σ → 0 every step reveals whether the target was sampled,
	// so the best attack is certain when it was sampled at least once and
	// falls back to the prior otherwise: γ → 1 − (1 − q)^T·(1 − κ). At
	// σ = 0.05 the steps are 20σ apart and the bound equals the limit to
	// 1e-9; these settings also exercise the grid alignment on log(1 − q)
	// and the trimming of the thin upper tail of the loss under ν.
	for _, kappa := range []float64{0.1, 0.01} {
		r, err := ReRoBound(DPSGD{0.05, 0.01, 100}, kappa, ReRoOptions{Method: ReRoExact})
		if err != nil {
			t.Fatal(err)
		}
		want := 1 - math.Pow(0.99, 100)*(1-kappa)
		// 3e-6: the FFT masses carry their rounding bound
		// (privacy.PMF.RoundingBound), which moves γ up by 1.6e-6 here.
		near(t, "σ → 0 limit", r.Gamma, want, 3e-6)
		if r.Lower > want+1e-12 || r.Upper < want-1e-9 {
			t.Errorf("bracket [%v, %v] vs limit %v", r.Lower, r.Upper, want)
		}
	}
}

func TestReRoExactTolerance(t *testing.T) {
	// The adaptive grid refines until the bracket meets the requested
	// tolerance (definition of Tolerance), also where the first grid is too
	// coarse: many steps of a rarely sampled target (T = 10⁴, q = 10⁻³).
	for _, tol := range []float64{1e-2, 1e-3, 1e-4} {
		r, err := ReRoBound(DPSGD{1, 0.001, 10000}, 0.1, ReRoOptions{Method: ReRoExact, Tolerance: tol})
		if err != nil {
			t.Fatal(err)
		}
		if w := r.Upper - r.Lower; !(w <= tol) {
			t.Errorf("tolerance %v: bracket width %v", tol, w)
		}
	}
	// A fixed interval is honoured (rounded down so that log(1 − q) is a
	// multiple of it).
	r, err := ReRoBound(DPSGD{1, 0.5, 10}, 0.1, ReRoOptions{Method: ReRoExact, Interval: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	l := -math.Log1p(-0.5)
	if !(r.Interval <= 0.01) || math.Abs(l/r.Interval-math.Round(l/r.Interval)) > 1e-9 {
		t.Errorf("interval %v: want ≤ 0.01 with log 2 a whole multiple of it", r.Interval)
	}
}

func TestReRoExactMonotone(t *testing.T) {
	// Structural facts of the blow-up function (notes §2.3): B_κ increases
	// with κ and with the privacy loss, i.e. decreases with σ, increases
	// with q and with T.
	base := DPSGD{1, 0.1, 50}
	get := func(m DPSGD, kappa float64) float64 {
		r, err := ReRoBound(m, kappa, ReRoOptions{Method: ReRoExact})
		if err != nil {
			t.Fatal(err)
		}
		return r.Gamma
	}
	g := get(base, 0.1)
	for _, c := range []struct {
		what string
		m    DPSGD
		k    float64
	}{
		{"smaller σ", DPSGD{0.8, 0.1, 50}, 0.1},
		{"larger q", DPSGD{1, 0.2, 50}, 0.1},
		{"more steps", DPSGD{1, 0.1, 80}, 0.1},
		{"larger κ", base, 0.2},
	} {
		if h := get(c.m, c.k); !(h > g) {
			t.Errorf("%s: bound %v not above %v", c.what, h, g)
		}
	}
}
