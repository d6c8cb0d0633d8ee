package audit

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
)

func TestGDPFromCountsExactRates(t *testing.T) {
	// Rates on the μ = 2 trade-off curve: FPR = 1 − Φ(1) = FNR = Φ(1 − 2) =
	// 0.158655254, as counts out of 10⁹ (rounding moves μ by < 1e-8). μ̂ must
	// be 2; ε(δ = 1e-5) of 2-GDP is just below 10 (note §8 item 8: μ =
	// 2.000446 gives ε = 10), and equal to privacy.GDPEpsilon(2, 1e-5).
	const n = 1000000000
	k := int(math.Round(0.158655253931457 * n))
	g, err := GDPFromCounts(Counts{N0: n, FP: k, N1: n, FN: k}, 1e-5, 0.95, TwoSided)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(g.Mu-2) > 1e-7 {
		t.Errorf("μ̂ = %.10f, want 2", g.Mu)
	}
	want, _ := privacy.GDPEpsilon(2, 1e-5)
	if math.Abs(g.Epsilon-want) > 1e-6 || !(g.Epsilon < 10 && g.Epsilon > 9.99) {
		t.Errorf("ε(μ̂) = %v, want %v (just below 10)", g.Epsilon, want)
	}
	if !(g.MuLower < g.Mu && g.Mu < g.MuUpper && g.MuUpper-g.MuLower < 1e-3) {
		t.Errorf("interval [%v, %v] around %v too wide or misordered at n = 1e9", g.MuLower, g.MuUpper, g.Mu)
	}
	if !(g.EpsilonLower < g.Epsilon && g.Epsilon < g.EpsilonUpper) {
		t.Errorf("ε interval [%v, %v] does not contain %v", g.EpsilonLower, g.EpsilonUpper, g.Epsilon)
	}
}

func TestGDPEstimateOnGaussianShift(t *testing.T) {
	// Simulated Gaussian shift μ = 1 (exact: 1-GDP, ε(1e-5) = 4.37718 by
	// note §8 item 8), 10⁵ trials per world, split thresholds: the fitted μ
	// lies in its interval, the interval contains the true μ, and μ̂ is within
	// 0.06 of it: 4 standard errors of the fit (the 95% interval's half-width
	// is about 0.03 at the chosen threshold, so one standard error ≈ 0.015).
	scores, worlds := gaussianShift(23, 0, 100000, 1)
	r, err := Estimate(scores, worlds, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	g := r.GDP
	if !(g.MuLower <= g.Mu && g.Mu <= g.MuUpper) {
		t.Errorf("μ̂ = %v outside its interval [%v, %v]", g.Mu, g.MuLower, g.MuUpper)
	}
	if !(g.MuLower <= 1 && 1 <= g.MuUpper) {
		t.Errorf("true μ = 1 outside [%v, %v]", g.MuLower, g.MuUpper)
	}
	if math.Abs(g.Mu-1) > 0.06 {
		t.Errorf("μ̂ = %v, want 1 ± 0.06", g.Mu)
	}
	if c := g.Counts; c.N0+c.N1 != 160000 {
		t.Errorf("GDP fitted on %d trials, want the 1.6·10⁵ held-out ones (DefaultSplitFraction 0.2)", c.N0+c.N1)
	}
	if !(g.EpsilonLower <= 4.37718 && 4.37718 <= g.EpsilonUpper) {
		t.Errorf("exact ε = 4.37718 outside the GDP interval [%v, %v]", g.EpsilonLower, g.EpsilonUpper)
	}
	// The GDP lower end uses the same CP bounds as ε_lb; on a Gaussian
	// trade-off curve it is the tighter of the two (it uses the curve's shape).
	if g.EpsilonLower < r.EpsilonLB {
		t.Errorf("GDP lower ε %v below the Eq. 5 bound %v", g.EpsilonLower, r.EpsilonLB)
	}
}

func TestGDPEdgeCases(t *testing.T) {
	// No errors: μ̂ = +Inf; never guessing world 1: μ = 0; δ = 0: ε = +Inf.
	g, _ := GDPFromCounts(Counts{N0: 100, N1: 100}, 1e-5, 0.95, TwoSided)
	if !math.IsInf(g.Mu, 1) || !math.IsInf(g.Epsilon, 1) || math.IsInf(g.MuLower, 0) {
		t.Errorf("zero errors: %+v, want μ̂ = +Inf with a finite lower end", g)
	}
	g, _ = GDPFromCounts(Counts{N0: 100, FP: 0, N1: 100, FN: 100}, 1e-5, 0.95, TwoSided)
	if g.Mu != 0 || g.Epsilon != 0 {
		t.Errorf("never guessing world 1: %+v, want μ = ε = 0", g)
	}
	g, _ = GDPFromCounts(Counts{N0: 100, FP: 70, N1: 100, FN: 70}, 1e-5, 0.95, TwoSided)
	if g.Mu != 0 || g.MuLower != 0 {
		t.Errorf("worse than chance: %+v, want μ clamped to 0", g)
	}
	g, _ = GDPFromCounts(Counts{N0: 100, FP: 10, N1: 100, FN: 10}, 0, 0.95, TwoSided)
	if !math.IsInf(g.Epsilon, 1) {
		t.Errorf("δ = 0: ε = %v, want +Inf", g.Epsilon)
	}
}
