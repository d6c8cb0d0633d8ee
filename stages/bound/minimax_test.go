package bound

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

func minimax(eps, delta float64, n int, diam float64, d int) spec.Bound {
	return spec.Bound{Kind: "minimax_mse", Minimax: &spec.MinimaxBound{Epsilon: eps, Delta: delta, Models: n, Diameter: diam,
		Dimension: d, EffectiveDimension: "low", Alpha: 2, MDPConstant: "paper", Accountant: "rdp", Conversion: "classic"}}
}

func TestMinimaxGivenEpsilon(t *testing.T) {
	// Mukherjee & Lokam, facts of shared/reference/mukherjee2023-
	// reconstruction-lower-bounds.md §6 (derived to 10 digits; rel 1e-9).
	outs := boundOutputs(t, minimax(1, 0, 1, 1, 784), nil, 0)
	for _, c := range []struct {
		col, what string
		want      float64
	}{
		{"minimax_dp", "fact 2: Theorem 4.1 at ε = 1, diam = 1, n = 1", 0.03937178329},
		{"minimax_rdp", "fact 7: Corollary E.2 at α = 2, ε = 1", 0.02299246507},
		{"minimax_mdp", "fact 8: Theorem E.4 at ε_L = 1", 0.1839397206},
		{"minimax_high_dim", "fact 11: Theorem 4.4, d = 784, d̃ = d·ln 2", 135.5104948},
		{"minimax_guo_total", "fact 12: Guo et al. with Σ diam_i² = 784, ε = 1", 114.0674345},
		{"minimax_guo_vacuity_epsilon", "fact 13 / A1: ln(1 + 784/4) (paper: 5.28)", 5.283203729},
	} {
		nearRel(t, c.what, col(t, outs, c.col), c.want, 1e-9)
	}
	more := []struct {
		what string
		b    spec.Bound
		col  string
		want float64
	}{
		{"fact 3: Theorem 4.1, δ = 1e-5", minimax(1, 1e-5, 1, 1, 0), "minimax_dp", 0.03937138957},
		{"fact 3: Theorem 4.1, n = 10", minimax(1, 0, 10, 1, 0), "minimax_dp", 6.150787222e-4},
		{"fact 3: Theorem 4.1, diam = 2", minimax(1, 0, 1, 2, 0), "minimax_dp", 0.1574871331},
		{"fact 7: Corollary E.2 at ε = 1/3 (the switch)", minimax(1.0/3, 0, 1, 1, 0), "minimax_rdp", 0.04478320691},
		{"fact 8: Theorem E.4, n = 10", minimax(1, 0, 10, 1, 0), "minimax_mdp", 0.01839397206},
		{"fact 8: Theorem E.4, ε_L = 0.5, δ = 1e-5", minimax(0.5, 1e-5, 1, 1, 0), "minimax_mdp", 0.7357515248},
	}
	for _, c := range more {
		nearRel(t, c.what, col(t, boundOutputs(t, c.b, nil, 0), c.col), c.want, 1e-9)
	}
	b := minimax(1, 0, 1, 1, 784)
	b.Minimax.EffectiveDimension, b.Minimax.MDPConstant = "high", "separation_corrected"
	outs = boundOutputs(t, b, nil, 0)
	nearRel(t, "fact 11: Theorem 4.4, d̃ = d·ln 5", col(t, outs, "minimax_high_dim"), 315.1033524, 1e-9)
	nearRel(t, "fact 10: separation-corrected Theorem E.4", col(t, outs, "minimax_mdp"), 0.04598493015, 1e-9)
	// Without a dimension the columns that need it are left out.
	outs = boundOutputs(t, minimax(1, 0, 1, 1, 0), nil, 0)
	for _, c := range []string{"minimax_high_dim", "minimax_guo_total"} {
		if _, ok := outs[c]; ok {
			t.Errorf("%s written without a dimension", c)
		}
	}
}

// With ε accounted from DP-SGD, the DP bound uses the accountant's ε at
// dpsgd.delta, the RDP bound the run's RDP at α, and there are no
// metric-DP columns (DP-SGD has no metric-DP guarantee of its own).
func TestMinimaxFromDPSGD(t *testing.T) {
	d := dpsgd(1, 0.01, 1000, 1e-5)
	outs := boundOutputs(t, minimax(0, 0, 1, 1, 784), d, 0)
	m := privacy.SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 1000}
	eps, err := privacy.Epsilon(privacy.AccountantRDP, m, 1e-5, privacy.Options{Conversion: privacy.ConversionClassic})
	if err != nil {
		t.Fatal(err)
	}
	nearRel(t, "accounted ε", col(t, outs, "minimax_epsilon"), eps, 1e-12)
	// Theorem 4.1's formula at that ε and δ.
	want := (1 - 1e-5) / 16 * math.Exp(-eps*math.Tanh(eps/2))
	nearRel(t, "Theorem 4.1 at the accounted ε", col(t, outs, "minimax_dp"), want, 1e-12)
	// Order-2 RDP of the run is F16a without the soft clip: 0.171813
	// (shared/reference/guo2022-bounding-reconstruction.md §6).
	nearRel(t, "run's order-2 RDP", col(t, outs, "minimax_rdp_epsilon"), 0.171813, 1e-5)
	if _, ok := outs["minimax_mdp"]; ok {
		t.Error("metric-DP bound written for DP-SGD")
	}
	if col(t, outs, "minimax_delta") != 1e-5 {
		t.Errorf("δ = %v, want dpsgd.delta", outs["minimax_delta"])
	}
}
