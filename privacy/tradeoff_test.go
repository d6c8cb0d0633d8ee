package privacy

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/mathext"
)

// mnist is the quickstart's DP-SGD schedule: 60000 examples, batch 256,
// 60 epochs, σ = 1.1.
var mnist = SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 256.0 / 60000, Steps: 14063}

func mustTradeOff(t *testing.T, acc Accountant, m SampledGaussian, o Options) *TradeOff {
	t.Helper()
	c, err := TradeOffCurve(acc, m, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fprGrid spans the FPRs the risk panel and the GDP fit use.
var fprGrid = []float64{1e-8, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.9, 0.99}

// Full batch (q = 1): T Gaussian steps are exactly (√T/σ)-GDP (Dong, Roth &
// Su 2022, Cor. 3.3), so the PLD curve must lie on or below G_μ and within
// the discretisation error of it.
func TestTradeOffPLDFullBatchMatchesGDP(t *testing.T) {
	for _, m := range []SampledGaussian{{NoiseMultiplier: 1, SamplingRate: 1, Steps: 1}, {NoiseMultiplier: 2, SamplingRate: 1, Steps: 10}, {NoiseMultiplier: 0.5, SamplingRate: 1, Steps: 3}} {
		c := mustTradeOff(t, AccountantPLD, m, Options{})
		mu := math.Sqrt(float64(m.Steps)) / m.NoiseMultiplier
		for _, a := range fprGrid {
			got, want := c.Symmetric.Beta(a), gdpBeta(mu, a)
			if got > want+1e-12 {
				t.Errorf("%+v: β(%g) = %.12g above the exact G_μ %.12g (not pessimistic)", m, a, got, want)
			}
			if want-got > 1e-5 {
				t.Errorf("%+v: β(%g) = %.12g, exact %.12g: more than 1e-5 below", m, a, got, want)
			}
			near(t, "added = symmetric at q = 1", c.Added.Beta(a), got, 0)
		}
		adv := c.Symmetric.Advantage()
		if exact := gdpAdvantage(mu); adv < exact-1e-12 || adv > exact+1e-6 {
			t.Errorf("%+v: advantage %.12g, exact %.12g", m, adv, exact)
		}
	}
}

// exactRemoveBeta and exactAddBeta are the single-step curves of the
// Poisson-subsampled Gaussian (sensitivity 1): the likelihood ratio of
// P = (1−q)N(0,σ²) + qN(1,σ²) to Q = N(0,σ²) increases with x, so every
// Neyman–Pearson test is a threshold on x.
func exactRemoveBeta(q, s, alpha float64) float64 { // H0: P, reject when x ≤ t
	f := func(x float64) float64 { return (1-q)*numeric.NormCDF(x/s) + q*numeric.NormCDF((x-1)/s) - alpha }
	br, _ := numeric.Brent(f, numeric.Bracket{A: -60, B: 60, FA: f(-60), FB: f(60)}, 1e-15, 1e-15, 500)
	return numeric.NormSF(br.B / s)
}

func exactAddBeta(q, s, alpha float64) float64 { // H0: Q, reject when x > t
	x := -s * mathext.NormalQuantile(alpha)
	return (1-q)*numeric.NormCDF(x/s) + q*numeric.NormCDF((x-1)/s)
}

// One step at q < 1: the two orientations differ, and both PLD curves must
// lie on or below their exact curves (closed forms above).
func TestTradeOffPLDSingleStepMatchesExact(t *testing.T) {
	for _, m := range []SampledGaussian{{NoiseMultiplier: 0.5, SamplingRate: 0.1, Steps: 1}, {NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1}, {NoiseMultiplier: 2, SamplingRate: 0.5, Steps: 1}} {
		c := mustTradeOff(t, AccountantPLD, m, Options{})
		for _, a := range fprGrid[2:] {
			add := exactAddBeta(m.SamplingRate, m.NoiseMultiplier, a)
			rem := exactRemoveBeta(m.SamplingRate, m.NoiseMultiplier, a)
			got := c.Added.Beta(a)
			if got > add+1e-12 {
				t.Errorf("%+v: added β(%g) = %.12g above the exact %.12g", m, a, got, add)
			}
			near(t, "added β, one step", got, add, 2e-6)
			if s := c.Symmetric.Beta(a); s > math.Min(add, rem)+1e-12 {
				t.Errorf("%+v: symmetric β(%g) = %.12g above min(add %.12g, remove %.12g)", m, a, s, add, rem)
			}
		}
	}
}

// The MNIST schedule against Google's dp_accounting (source checkout at
// commit b5b0286, h = 1e-4): 1 − PrivacyLossDistribution.
// get_true_positive_rates(α), a valid bound built from 3001 (ε(δ), δ)
// pairs of its PLD; our curve is the same bound without the δ grid, so it
// lies on or a little above theirs (up to the 1e-6 at which the two PLDs
// differ). Advantage: its get_delta_for_epsilon(0)
// (riskcal's get_advantage_from_pld).
func TestTradeOffPLDMNISTMatchesDPAccounting(t *testing.T) {
	c := mustTradeOff(t, AccountantPLD, mnist, Options{})
	for _, ref := range []struct{ alpha, beta float64 }{
		{1e-3, 1 - 6.05098483e-03},
		{0.01, 1 - 4.02082663e-02},
		{0.1, 1 - 2.39629059e-01},
		{0.5, 1 - 7.16127232e-01},
	} {
		got := c.Symmetric.Beta(ref.alpha)
		if got < ref.beta-1e-7 || got > ref.beta+2e-6 {
			t.Errorf("β(%g) = %.10g, dp_accounting %.10g (want within [−1e-7, +2e-6] of it)", ref.alpha, got, ref.beta)
		}
	}
	near(t, "advantage vs dp_accounting δ(0)", c.Symmetric.Advantage(), 0.22447845790174842, 2e-6)
}

// Halving the interval moves a pessimistic curve up (towards the truth):
// at the MNIST schedule by at most 2.4e-5 from h = 2e-4 to 1e-4 (ε moves
// by 2.7e-4 there; see PMF).
func TestTradeOffPLDConvergesFromBelow(t *testing.T) {
	coarse := mustTradeOff(t, AccountantPLD, mnist, Options{PLDInterval: 2e-4})
	fine := mustTradeOff(t, AccountantPLD, mnist, Options{PLDInterval: 1e-4})
	for _, a := range fprGrid[2:] {
		bc, bf := coarse.Symmetric.Beta(a), fine.Symmetric.Beta(a)
		if bc > bf+1e-12 || bf-bc > 5e-5 {
			t.Errorf("β(%g): h = 2e-4 gives %.10g, h = 1e-4 %.10g (want a small rise)", a, bc, bf)
		}
	}
}

// The advantage and Bayes accuracy read off the curve are the privacy
// profile's δ(0) and p + (1 − p)·δ(log(p/(1 − p))) of the same PLD.
func TestTradeOffPLDMatchesPrivacyProfile(t *testing.T) {
	c := mustTradeOff(t, AccountantPLD, mnist, Options{})
	d, _, err := pldOf([]SampledGaussian{mnist}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "advantage = δ(0)", c.Symmetric.Advantage(), d.Delta(0), 1e-9)
	for _, prior := range []float64{0.5, 0.9, 0.1, 0.99} {
		p := math.Max(prior, 1-prior)
		near(t, "Bayes accuracy", c.Symmetric.BayesAccuracy(prior), p+(1-p)*d.Delta(math.Log(p/(1-p))), 1e-8)
	}
}

// RDP and GDP curves: the RDP curve is valid (below the exact curve at
// q = 1, below the PLD's at q < 1); GDP at q = 1 is exact; best is the
// larger of the valid ones.
func TestTradeOffOtherAccountants(t *testing.T) {
	full := SampledGaussian{NoiseMultiplier: 2, SamplingRate: 1, Steps: 10}
	mu := math.Sqrt(10) / 2
	r := mustTradeOff(t, AccountantRDP, full, Options{})
	g := mustTradeOff(t, AccountantGDP, full, Options{})
	b := mustTradeOff(t, AccountantBest, full, Options{})
	if !g.Exact || !g.Valid || !b.Valid || !r.Valid {
		t.Errorf("flags: gdp exact %v valid %v, best valid %v, rdp valid %v", g.Exact, g.Valid, b.Valid, r.Valid)
	}
	for _, a := range fprGrid {
		exact := gdpBeta(mu, a)
		if rb := r.Symmetric.Beta(a); rb > exact+1e-12 || rb < exact-0.2 {
			t.Errorf("rdp β(%g) = %.10g, exact %.10g", a, rb, exact)
		}
		near(t, "gdp β", g.Symmetric.Beta(a), exact, 1e-15)
		near(t, "best β at q = 1", b.Symmetric.Beta(a), exact, 1e-15)
	}
	if adv := r.Symmetric.Advantage(); adv < gdpAdvantage(mu) {
		t.Errorf("rdp advantage %.10g below the exact %.10g", adv, gdpAdvantage(mu))
	}

	p := mustTradeOff(t, AccountantPLD, mnist, Options{})
	r = mustTradeOff(t, AccountantRDP, mnist, Options{})
	b = mustTradeOff(t, AccountantBest, mnist, Options{})
	clt := mustTradeOff(t, AccountantGDP, mnist, Options{})
	if clt.Valid || clt.Exact {
		t.Errorf("the CLT GDP curve is an approximation: valid %v exact %v", clt.Valid, clt.Exact)
	}
	for _, a := range fprGrid[2:] {
		pb, rb, bb := p.Symmetric.Beta(a), r.Symmetric.Beta(a), b.Symmetric.Beta(a)
		if rb > pb+1e-9 {
			t.Errorf("rdp β(%g) = %.10g above the pld's %.10g", a, rb, pb)
		}
		near(t, "best = max(pld, rdp)", bb, math.Max(pb, rb), 0)
	}
	near(t, "best advantage", b.Symmetric.Advantage(), math.Min(p.Symmetric.Advantage(), r.Symmetric.Advantage()), 0)
	for _, prior := range []float64{0.5, 0.9} {
		if ra, pa := r.Symmetric.BayesAccuracy(prior), p.Symmetric.BayesAccuracy(prior); ra < pa {
			t.Errorf("rdp Bayes accuracy at %v = %.10g below the pld's %.10g (a looser bound must be larger)", prior, ra, pa)
		}
	}
}

// The GDP fit recovers μ where the curve is G_μ, and is labelled with its
// grid.
func TestFitGDP(t *testing.T) {
	for _, mu := range []float64{0.3, 1, 3} {
		fit, err := Curve{shape: shapeGDP, mu: mu}.FitGDP(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "fit of G_μ", fit.Mu, mu, 1e-9)
		if fit.MinFPR != DefaultGDPFitMinFPR || fit.Points != DefaultGDPFitPoints || fit.MaxFPR != 0.5 {
			t.Errorf("fit grid %+v", fit)
		}
	}
	c := mustTradeOff(t, AccountantPLD, SampledGaussian{NoiseMultiplier: 2, SamplingRate: 1, Steps: 10}, Options{})
	fit, err := c.Symmetric.FitGDP(1e-4, 50)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "fit of the q = 1 PLD curve", fit.Mu, math.Sqrt(10)/2, 1e-4)
	for _, bad := range []struct {
		min float64
		n   int
	}{{-1, 10}, {0.5, 10}, {1e-3, 1}} {
		if _, err := c.Symmetric.FitGDP(bad.min, bad.n); err == nil {
			t.Errorf("FitGDP(%v, %d): no error", bad.min, bad.n)
		}
	}
}

// Edge cases: no noise is no privacy; huge noise is random guessing; the
// optimistic PLD gives no valid curve.
func TestTradeOffEdges(t *testing.T) {
	none := mustTradeOff(t, AccountantPLD, SampledGaussian{NoiseMultiplier: 0, SamplingRate: 0.1, Steps: 10}, Options{})
	if none.Symmetric.TPR(1e-6) != 1 || none.Symmetric.Advantage() != 1 || none.Symmetric.BayesAccuracy(0.3) != 1 {
		t.Errorf("σ = 0: TPR %v, advantage %v, Bayes %v; want 1", none.Symmetric.TPR(1e-6), none.Symmetric.Advantage(), none.Symmetric.BayesAccuracy(0.3))
	}
	quiet := mustTradeOff(t, AccountantBest, SampledGaussian{NoiseMultiplier: 1e3, SamplingRate: 0.01, Steps: 10}, Options{})
	for _, a := range []float64{0, 1e-3, 0.5, 1} {
		near(t, "β with huge noise", quiet.Symmetric.Beta(a), 1-a, 1e-4) // TV ≈ 0.4·q√T/σ
	}
	near(t, "Bayes accuracy with huge noise", quiet.Symmetric.BayesAccuracy(0.2), 0.8, 1e-4)
	opt := mustTradeOff(t, AccountantPLD, mnist, Options{Optimistic: true})
	if opt.Valid {
		t.Error("an optimistic PLD curve reported as valid")
	}
	if _, err := TradeOffCurve(AccountantPLD, SampledGaussian{NoiseMultiplier: 1, SamplingRate: 1.5, Steps: 1}, Options{}); err == nil {
		t.Error("q = 1.5: no error")
	}
}

// ᾱ at the MNIST schedule: riskcal's symmetrisation point for the same
// schedule is α_bar = 0.38533 (its Pr[X > 0] at h = 1e-4, computed here
// from a source checkout); below it the two orientations agree.
func TestOrientationsAgreeBelow(t *testing.T) {
	c := mustTradeOff(t, AccountantPLD, mnist, Options{})
	ab := c.OrientationsAgreeBelow()
	near(t, "ᾱ", ab, 0.38533, 1e-3)
	for _, a := range []float64{1e-4, 0.01, 0.1, ab * 0.999} {
		near(t, "symmetric = added below ᾱ", c.Symmetric.Beta(a), c.Added.Beta(a), 1e-12)
	}
	if d := c.Added.Beta(0.5) - c.Symmetric.Beta(0.5); !(d > 1e-4) {
		t.Errorf("at α = 0.5, on the segment, added − symmetric = %v; want > 1e-4", d)
	}
	g := mustTradeOff(t, AccountantGDP, mnist, Options{})
	if g.OrientationsAgreeBelow() != 1 {
		t.Errorf("a GDP curve is symmetric: ᾱ = %v, want 1", g.OrientationsAgreeBelow())
	}
}
