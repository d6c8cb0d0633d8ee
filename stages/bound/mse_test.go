package bound

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/spec"
)

func mseRDP(eps, diam float64) spec.Bound {
	return spec.Bound{Kind: "mse_rdp", MSE: &spec.MSERDPBound{Epsilon: eps, Diameter: diam}}
}

func TestMSERDPGivenEpsilon(t *testing.T) {
	// Guo et al. Theorem 1, unbiased, facts of
	// shared/reference/guo2022-bounding-reconstruction.md §6 (rel 1e-9).
	cases := []struct {
		what            string
		eps, diam, want float64
	}{
		{"F1: [0,1]^d at the paper's logistic-regression ε = 1.58 (\"≈ 0.1\")", 1.579155151993683, 1, 0.06492063326937275},
		{"F2: Z = [0, 100], ε = 2 (\"≈ 391\")", 2, 100, 391.29410687416413},
		{"F5: M = σ = 1, ε = M²/σ² = 1", 1, 1, 0.1454941767173316},
	}
	for _, c := range cases {
		outs := boundOutputs(t, mseRDP(c.eps, c.diam), nil, 0)
		nearRel(t, c.what, col(t, outs, "mse_lower_bound"), c.want, 1e-9)
		if col(t, outs, "mse_rdp_epsilon") != c.eps {
			t.Errorf("mse_rdp_epsilon = %v, want the given %v", outs["mse_rdp_epsilon"], c.eps)
		}
	}
}

func TestMSERDPFromDPSGD(t *testing.T) {
	// Facts F16 (MNIST, q = 0.01, soft clip σ/1.115; rel 1e-5 as the notes).
	cases := []struct {
		sigma          float64
		steps          int
		wantEps, wantB float64
	}{
		{1, 1000, 0.246647, 0.893727},   // F16a
		{1, 5000, 1.23324, 0.102783},    // F16b
		{2, 5000, 0.182259, 1.25047},    // F16d
		{10, 1000, 0.00125098, 199.718}, // F16f
	}
	for _, c := range cases {
		d := dpsgd(c.sigma, 0.01, c.steps, 1e-5)
		d.Clip = "soft"
		outs := boundOutputs(t, mseRDP(0, 1), d, 0)
		nearRel(t, "F16 ε₂", col(t, outs, "mse_rdp_epsilon"), c.wantEps, 1e-5)
		nearRel(t, "F16 MSE bound", col(t, outs, "mse_lower_bound"), c.wantB, 1e-5)
	}
	// Without the soft-clip correction F16a is ε₂ 0.171813, MSE 1.33364
	// (notes, same table).
	outs := boundOutputs(t, mseRDP(0, 1), dpsgd(1, 0.01, 1000, 1e-5), 0)
	nearRel(t, "hard clip ε₂", col(t, outs, "mse_rdp_epsilon"), 0.171813, 1e-5)
	nearRel(t, "hard clip MSE bound", col(t, outs, "mse_lower_bound"), 1.33364, 1e-5)
	// No noise: ε₂ = ∞, bound 0.
	outs = boundOutputs(t, mseRDP(0, 1), dpsgd(0, 0.01, 1000, 1e-5), 0)
	if !math.IsInf(col(t, outs, "mse_rdp_epsilon"), 1) || col(t, outs, "mse_lower_bound") != 0 {
		t.Errorf("no noise: %v", outs)
	}
}
