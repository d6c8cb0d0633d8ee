package audit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// perStepSamples draws n samples of the per-step mechanism of the family
// with rate q and per-step μ (noise sd 1): out ~ N(0,1); in ~ N(μ,1) with
// probability q, else N(0,1).
func perStepSamples(r *rand.Rand, n int, mu, q float64) (in, out []float64) {
	for range n {
		x := r.NormFloat64()
		if r.Float64() < q {
			x += mu
		}
		in = append(in, x)
		out = append(out, r.NormFloat64())
	}
	return in, out
}

// On simulated Gaussian samples the interval holds the true μ and is tight:
// with 2·10⁵ samples a side the lower bound is within 3% of μ at q = 1.
func TestPerStepRecoversMu(t *testing.T) {
	for _, c := range []struct{ mu, q, tight float64 }{{1, 1, 0.03}, {0.5, 1, 0.06}, {2, 0.3, 0.15}} {
		r := rand.New(rand.NewPCG(1, uint64(c.mu*100)))
		in, out := perStepSamples(r, 200000, c.mu, c.q)
		res, err := PerStep(in, out, c.q, 1e-5, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.MuLower <= c.mu && c.mu <= res.MuUpper) {
			t.Errorf("μ=%v q=%v: interval [%v, %v] misses it", c.mu, c.q, res.MuLower, res.MuUpper)
		}
		if res.MuLower < (1-c.tight)*c.mu {
			t.Errorf("μ=%v q=%v: lower bound %v below %v·μ", c.mu, c.q, res.MuLower, 1-c.tight)
		}
		if math.Abs(res.MuPoint-c.mu) > 0.05*c.mu {
			t.Errorf("μ=%v q=%v: moment estimate %v", c.mu, c.q, res.MuPoint)
		}
		if res.EpsilonStepLB <= 0 {
			t.Errorf("μ=%v: per-step CP ε %v", c.mu, res.EpsilonStepLB)
		}
		if pv := PerStepPValue(res, 0.7*c.mu); pv > 1e-3 {
			t.Errorf("μ=%v: claim 0.7μ not refuted, p = %v", c.mu, pv)
		}
		if pv := PerStepPValue(res, c.mu); pv < 0.05 {
			t.Errorf("μ=%v: true claim refuted, p = %v", c.mu, pv)
		}
	}
}

// The lower bound misses the true μ no more often than the nominal 1 −
// confidence (binomial slack: 200 seeds at 80%, expected ≤ 40 misses, and
// the bound is conservative, so far fewer).
func TestPerStepCoverage(t *testing.T) {
	const seeds, conf = 200, 0.8
	miss := 0
	for s := range seeds {
		r := rand.New(rand.NewPCG(uint64(s), 7))
		in, out := perStepSamples(r, 400, 1, 1)
		res, err := PerStep(in, out, 1, 1e-5, conf)
		if err != nil {
			t.Fatal(err)
		}
		if res.MuLower > 1 {
			miss++
		}
	}
	if miss > 52 { // P[Bin(200, 0.2) > 52] < 0.02
		t.Errorf("lower bound above the true μ in %d of %d runs (nominal ≤ %v)", miss, seeds, (1-conf)*seeds)
	}
	t.Logf("%d of %d lower bounds above μ at confidence %v", miss, seeds, conf)
}

// PerStepMu inverts the family's trade-off curve: at q = 1 the GDP formula.
func TestPerStepMuCurve(t *testing.T) {
	for _, q := range []float64{1, 0.5, 0.01} {
		for _, mu := range []float64{0.1, 1, 3} {
			alpha := 0.1
			beta := (1-q)*(1-alpha) + q*numeric.NormCDF(-numeric.NormQuantile(alpha)-mu)
			if got := PerStepMu(alpha, beta, q); math.Abs(got-mu) > 1e-6 {
				t.Errorf("q=%v μ=%v: got %v", q, mu, got)
			}
		}
	}
	if PerStepMu(0.3, 0.8, 1) != 0 {
		t.Error("worse than guessing should give 0")
	}
}

func TestPerStepBadInput(t *testing.T) {
	ok := []float64{0, 1, 2, 3, 4}
	for name, f := range map[string]func() error{
		"q=0":     func() error { _, err := PerStep(ok, ok, 0, 1e-5, 0.95); return err },
		"conf=1":  func() error { _, err := PerStep(ok, ok, 1, 1e-5, 1); return err },
		"few":     func() error { _, err := PerStep(ok[:2], ok, 1, 1e-5, 0.95); return err },
		"nan":     func() error { _, err := PerStep([]float64{0, 1, math.NaN(), 3}, ok, 1, 1e-5, 0.95); return err },
		"delta<0": func() error { _, err := PerStep(ok, ok, 1, -1, 0.95); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
