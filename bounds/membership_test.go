package bounds

import (
	"math"
	"testing"
)

func TestMembershipAdvantage(t *testing.T) {
	// Guo et al. fact F8 (Humphries et al. bound): ε = 0.1 → Adv 0.049958…,
	// success (Adv+1)/2 = 0.524979… (paper "≈ 53%"); ε = 2 → tanh 1 = 0.76159…,
	// success 0.880797… (paper "> 88%"). rel 1e-9.
	a := f64(t)(MembershipAdvantage(0.1))
	nearRel(t, "Adv(0.1)", a, 0.04995837495787997, 1e-9)
	nearRel(t, "success(0.1)", (a+1)/2, 0.52497918747894, 1e-9)
	a = f64(t)(MembershipAdvantage(2))
	nearRel(t, "Adv(2)", a, 0.7615941559557649, 1e-9)
	nearRel(t, "success(2)", (a+1)/2, 0.8807970779778824, 1e-9)
	// Large ε stays finite: → 1.
	near(t, "Adv(800)", f64(t)(MembershipAdvantage(800)), 1, 0)
}

func TestTradeOffCurves(t *testing.T) {
	// G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2019), reference values
	// from Python's statistics.NormalDist (independent implementation), 1e-12.
	nearRel(t, "G_1(0.05)", f64(t)(GDPTradeOff(1, 0.05)), 0.7404889771585556, 1e-12)
	nearRel(t, "G_2(0.01)", f64(t)(GDPTradeOff(2, 0.01)), 0.6279194145645055, 1e-12)
	nearRel(t, "G_0.5(1e-6)", f64(t)(GDPTradeOff(0.5, 1e-6)), 0.9999894736939743, 1e-12)
	nearRel(t, "GDP advantage μ = 1", f64(t)(GDPAdvantage(1)), 0.38292492254802624, 1e-12)
	nearRel(t, "GDP advantage μ = 2", f64(t)(GDPAdvantage(2)), 0.6826894921370859, 1e-12)
	// The advantage is the maximum of 1 − α − f(α) over α (definition); a
	// grid of 10⁵ points gets within 1e-6 of it, for GDP and for (ε, δ)-DP.
	for _, mu := range []float64{0.3, 1, 3} {
		best := 0.0
		for i := 0; i <= 100000; i++ {
			a := float64(i) / 100000
			best = math.Max(best, 1-a-f64(t)(GDPTradeOff(mu, a)))
		}
		near(t, "max_α of 1 − α − G_μ(α)", best, f64(t)(GDPAdvantage(mu)), 1e-6)
	}
	for _, c := range []struct{ eps, delta float64 }{{1, 0}, {2, 1e-3}, {0.3, 0.1}} {
		best := 0.0
		for i := 0; i <= 100000; i++ {
			a := float64(i) / 100000
			best = math.Max(best, 1-a-f64(t)(DPTradeOff(c.eps, c.delta, a)))
		}
		near(t, "max_α of 1 − α − f_{ε,δ}(α)", best, f64(t)(MembershipAdvantageApprox(c.eps, c.delta)), 1e-5)
	}
	// With δ = 0 the (ε, δ) advantage is the pure one.
	nearRel(t, "Adv(ε, 0)", f64(t)(MembershipAdvantageApprox(1.3, 0)), f64(t)(MembershipAdvantage(1.3)), 1e-15)
}
