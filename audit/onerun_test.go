package audit

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// Reference values: the authors' code (Steinke, Nasr & Jagielski 2023,
// appendix listing p_value_DP_audit / get_eps_audit, also
// jax_privacy auditing._one_run_p_value) ported line for line to Python with
// mpmath at 60 digits (exact binomial sums) and bisected to 1e-13. Our
// bisection stops at 1e-9 and RegIncBeta is accurate to ~1e-13, so ε agrees
// to 1e-8.

func TestOneRunEpsilonReference(t *testing.T) {
	for _, c := range []struct {
		m, r, v int
		delta   float64
		want    float64
	}{
		// δ = 0, all r = 100 guesses right: the p-value is q^r, so
		// ε = logit(0.05^(1/100)) = 3.49296543115 in closed form.
		{1000, 100, 100, 0, 3.49296543115},
		{1000, 100, 100, 1e-5, 3.46537634781},
		{1000, 600, 600, 1e-5, 5.27039946351},
		{100, 100, 100, 1e-5, 3.49021595533},
		{1000, 500, 400, 1e-5, 1.19796864628},
		{10000, 1000, 900, 1e-5, 2.01519448541},
		{1000, 1000, 731, 0, 0.880602996656},
		{1000, 200, 150, 1e-4, 0.80651158773},
	} {
		got, err := OneRunEpsilon(c.m, c.r, c.v, c.delta, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-8 {
			t.Errorf("m=%d r=%d v=%d δ=%g: ε_lb = %.11f, want %.11f", c.m, c.r, c.v, c.delta, got, c.want)
		}
	}
}

func TestOneRunPValueReference(t *testing.T) {
	for _, c := range []struct {
		m, r, v    int
		eps, delta float64
		want       float64
	}{
		{1000, 100, 90, 1.0, 1e-5, 0.000841288561438531},
		{1000, 500, 400, 1.2, 1e-5, 0.0519594753466114},
		{1000, 100, 100, 3.0, 1e-5, 0.0104112687843275},
		{1000, 500, 400, 1.0, 0, 0.00021293092117508},
		// 14000 of 20000 right at ε = 0.1: pmf(v−1) is e^−1200 of the mode's,
		// so the α walk starts in log space; β underflows to 0.
		{40000, 20000, 14000, 0.1, 1e-5, 0.000216252319601498},
		{40000, 20000, 14000, 0.8, 1e-5, 0.00362397306861485},
	} {
		got, err := OneRunPValue(c.m, c.r, c.v, c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("m=%d r=%d v=%d ε=%v δ=%g: p = %.15g, want %.15g", c.m, c.r, c.v, c.eps, c.delta, got, c.want)
		}
	}
	// No correct guess proves nothing.
	if p, _ := OneRunPValue(10, 5, 0, 2, 1e-5); p != 1 {
		t.Errorf("v = 0: p = %v, want 1", p)
	}
}

func TestOneRunLargeCounts(t *testing.T) {
	// 10⁵ guesses at 60% accuracy, δ = 1e-5: the α term walks 60000 pmf
	// terms from far in the tail. The bound must be finite, below the
	// plug-in logit(0.6) = 0.405 and not far below it at this sample size.
	e, err := OneRunEpsilon(200000, 100000, 60000, 1e-5, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !(e > 0.38 && e < math.Log(0.6/0.4)) {
		t.Errorf("ε_lb = %v, want in (0.38, 0.405)", e)
	}
}

func TestOneRunValidOnRandomisedResponse(t *testing.T) {
	// The guarantee: against an ε-DP mechanism the bound exceeds ε with
	// probability ≤ 1 − confidence. Randomised response with ε = 1 (each of
	// m = 1000 guesses right with probability e/(1+e)) is exactly on the
	// boundary, δ = 0. Over 400 seeded audits at 95%, expect ≤ 5% above 1
	// (20 of 400; assert ≤ 32, +2.7 binomial sd), and the median near the
	// v = 731 reference value 0.88 (±0.1).
	r := rng.New(2, "test", "one-run-rr")
	q := 1 / (1 + math.Exp(-1))
	over := 0
	var all []float64
	for range 400 {
		v := 0
		for range 1000 {
			if r.Float64() < q {
				v++
			}
		}
		e, err := OneRunEpsilon(1000, 1000, v, 0, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if e > 1 {
			over++
		}
		all = append(all, e)
	}
	if over > 32 {
		t.Errorf("%d of 400 bounds above the true ε = 1", over)
	}
	if m := median(all); math.Abs(m-0.88) > 0.1 {
		t.Errorf("median ε_lb = %v, want 0.88 ± 0.1", m)
	}
}

func TestOneRunFromScores(t *testing.T) {
	// 10 canaries, scores 0..9, included iff score ≥ 5 except canary 9.
	// Top 3 (9, 8, 7): 2 right; bottom 2 (0, 1): 2 right → r = 5, v = 4.
	scores := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	included := []bool{false, false, false, false, false, true, true, true, true, false}
	res, err := OneRun(scores, included, 3, 2, 1e-5, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := OneRunEpsilon(10, 5, 4, 1e-5, 0.95)
	if res.Guesses != 5 || res.Correct != 4 || res.Canaries != 10 || res.EpsilonLB != want {
		t.Errorf("got %+v, want r = 5, v = 4, ε_lb = %v", res, want)
	}
	// Ties at the cut go to the earlier canary: scores all equal, k+ = 1
	// guesses canary 0 (excluded: wrong), k− = 1 guesses canary 9 (right).
	res, _ = OneRun(make([]float64, 10), included, 1, 1, 0, 0.95)
	if res.Correct != 1 {
		t.Errorf("tied scores: %d correct, want 1", res.Correct)
	}
}
