package bounds

import (
	"errors"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
)

func tradeOff(t *testing.T, m DPSGD) *privacy.TradeOff {
	t.Helper()
	c, err := privacy.TradeOffCurve(privacy.AccountantPLD, privacy.SampledGaussian{NoiseMultiplier: m.NoiseMultiplier, SamplingRate: m.SamplingRate, Steps: m.Steps}, privacy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The reconstruction bound 1 − f(κ) on the added orientation is Hayes et
// al.'s B_κ(μ, ν) (Corollary 4): on a grid of σ, q, T and |π| it must lie
// inside ReRoExact's guaranteed bracket [Lower, Upper] (up to the 1e-6 at
// which its interval and the accountant's differ). The symmetric f-DP
// curve gives the same number below ᾱ (TradeOff.OrientationsAgreeBelow)
// and never less.
func TestAttackRiskAgreesWithReRo(t *testing.T) {
	agreed := 0
	priors := []int{2, 10, 100}
	kappas := make([]float64, len(priors))
	for i, n := range priors {
		kappas[i] = 1 / float64(n) // KappaUniform
	}
	for _, sigma := range []float64{0.8, 1.5, 3} {
		for _, q := range []float64{0.01, 0.1, 0.5} {
			for _, T := range []int{1, 10, 100} {
				m := DPSGD{NoiseMultiplier: sigma, SamplingRate: q, Steps: T}
				rs, err := ReRoBounds(m, kappas, ReRoOptions{Method: ReRoExact})
				if err != nil {
					t.Fatal(err)
				}
				c := tradeOff(t, m)
				for i, r := range rs {
					got, err := AttackRisk(c.Added, kappas[i])
					if err != nil {
						t.Fatal(err)
					}
					if got.Success < r.Lower-1e-9 || got.Success > r.Upper+1e-6 {
						t.Errorf("%+v |π| = %d: 1 − f(κ) = %.8f outside ReRo's bracket [%.8f, %.8f]", m, priors[i], got.Success, r.Lower, r.Upper)
					}
					sym, _ := AttackRisk(c.Symmetric, kappas[i])
					if sym.Success < got.Success-1e-12 {
						t.Errorf("%+v |π| = %d: the symmetric bound %.10f is below the added one %.10f", m, priors[i], sym.Success, got.Success)
					}
					if kappas[i] <= c.OrientationsAgreeBelow() && sym.Success-got.Success > 1e-9 {
						t.Errorf("%+v |π| = %d: symmetric %.10f and added %.10f differ below ᾱ = %v", m, priors[i], sym.Success, got.Success, c.OrientationsAgreeBelow())
					}
					if kappas[i] <= c.OrientationsAgreeBelow() {
						agreed++
					}
				}
			}
		}
	}
	t.Logf("%d of 81 grid points below ᾱ", agreed)
	if agreed < 40 { // of 81 (51 at this grid): the comparison below ᾱ must not be vacuous
		t.Errorf("only %d grid points below ᾱ", agreed)
	}
}

// At q = 1 the bound is the closed form Φ(Φ⁻¹(κ) + √T/σ) (Hayes et al.;
// ReRoFullBatch), and advantage = success − baseline.
func TestAttackRiskFullBatch(t *testing.T) {
	c, err := privacy.TradeOffCurve(privacy.AccountantGDP, privacy.SampledGaussian{NoiseMultiplier: 2, SamplingRate: 1, Steps: 10}, privacy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 10, 1000} {
		kappa := 1 / float64(n)
		r, err := AttackRisk(c.Added, kappa)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ReRoFullBatch(2, 10, kappa)
		near(t, "success at q = 1", r.Success, want, 1e-12)
		near(t, "advantage", r.Advantage, want-1/float64(n), 1e-15)
	}
}

func TestAttackRiskBaselinesAndErrors(t *testing.T) {
	b, err := ReidentificationBaseline(582328)
	if err != nil || b != 1.0/582328 {
		t.Errorf("re-identification baseline = %v, %v", b, err)
	}
	b, err = AttributeBaseline([]float64{0.2, 0.5, 0.3})
	if err != nil || b != 0.5 {
		t.Errorf("attribute baseline = %v, %v", b, err)
	}
	var c privacy.Curve // the trivial curve: no privacy
	r, err := AttackRisk(c, 0.3)
	if err != nil || r.Success != 1 {
		t.Errorf("no privacy: %+v, %v", r, err)
	}
	for _, bad := range []float64{0, 1, -0.1, 1.5, math.NaN()} {
		if _, err := AttackRisk(c, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("baseline %v: error %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ReidentificationBaseline(1); !errors.Is(err, ErrInvalid) {
		t.Errorf("population 1: %v", err)
	}
	for _, bad := range [][]float64{{1}, {0.5, 0.6}, {1, 0}, {-0.1, 1.1}} {
		if _, err := AttributeBaseline(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("prior %v: %v", bad, err)
		}
	}
}
