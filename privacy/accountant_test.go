package privacy

import (
	"errors"
	"math"
	"testing"
)

func TestAccountantDeltaInvertsEpsilon(t *testing.T) {
	// For each accountant δ(ε(δ)) = δ: exactly for PLD and GDP (ε is the
	// root of δ(ε) = δ; 1e-9 relative), and δ(ε(δ)) ≤ δ for RDP, where both
	// directions minimise over orders and the optimal order of δ(ε) can only
	// do better than the one that produced ε.
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	for _, acc := range []Accountant{AccountantPLD, AccountantGDP, AccountantRDP} {
		for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
			o := Options{Conversion: conv}
			e := mustF(t)(Epsilon(acc, m, 1e-5, o))
			d := mustF(t)(Delta(acc, m, e, o))
			if acc == AccountantRDP {
				if !(d <= 1e-5*(1+1e-9) && d > 1e-6) {
					t.Errorf("%s/%s: δ(ε(1e-5)) = %v", acc, conv, d)
				}
			} else {
				nearRel(t, string(acc)+" δ(ε(δ))", d, 1e-5, 1e-9)
			}
		}
	}
}

func TestAccountantInputs(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 10}
	// σ = 0 is "no noise": ε = +Inf, δ = 1 for every accountant.
	for _, acc := range []Accountant{AccountantRDP, AccountantPLD, AccountantGDP} {
		z := m
		z.NoiseMultiplier = 0
		if d := mustF(t)(Delta(acc, z, 1, Options{})); d != 1 {
			t.Errorf("%s: δ(σ=0) = %v, want 1", acc, d)
		}
	}
	bad := []struct {
		name string
		err  error
	}{
		{"unknown accountant", func() error { _, err := Epsilon("moments", m, 1e-5, Options{}); return err }()},
		{"δ = 0", func() error { _, err := Epsilon(AccountantPLD, m, 0, Options{}); return err }()},
		{"ε < 0", func() error { _, err := Delta(AccountantRDP, m, -1, Options{}); return err }()},
		{"ε = +Inf", func() error { _, err := Delta(AccountantGDP, m, math.Inf(1), Options{}); return err }()},
		{"no mechanisms", func() error { _, err := ComposedEpsilon(AccountantRDP, nil, 1e-5, Options{}); return err }()},
		{"q = 0", func() error {
			_, err := ComposedEpsilon(AccountantRDP, []SampledGaussian{m, {NoiseMultiplier: 1, SamplingRate: 0, Steps: 10}}, 1e-5, Options{})
			return err
		}()},
		{"σ < 0", func() error {
			_, err := Epsilon(AccountantGDP, SampledGaussian{NoiseMultiplier: -1, SamplingRate: 0.1, Steps: 1}, 1e-5, Options{})
			return err
		}()},
		{"steps = 0", func() error {
			_, err := Epsilon(AccountantRDP, SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.1, Steps: 0}, 1e-5, Options{})
			return err
		}()},
		{"order ≤ 1", func() error { _, err := Epsilon(AccountantRDP, m, 1e-5, Options{Orders: []float64{1}}); return err }()},
		{"conversion", func() error { _, err := Epsilon(AccountantRDP, m, 1e-5, Options{Conversion: 5}); return err }()},
		{"interval", func() error { _, err := Epsilon(AccountantPLD, m, 1e-5, Options{PLDInterval: math.NaN()}); return err }()},
	}
	for _, b := range bad {
		if !errors.Is(b.err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", b.name, b.err)
		}
	}
	if ConversionClassic.String() != "classic" || ConversionImproved.String() != "improved" {
		t.Error("Conversion.String")
	}
}
