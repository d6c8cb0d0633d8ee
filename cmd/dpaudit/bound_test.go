package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// boundJSON runs "dpaudit bound ... --json" and decodes the flat object.
func boundJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := cli(t, append(append([]string{"bound"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("dpaudit bound %v: exit %d: %s", args, code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return m
}

func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("key %q = %v (%T) in %v", key, m[key], m[key], m)
	}
	return v
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tol)
	}
}

func TestBoundRero(t *testing.T) {
	// Hayes et al. Table 2, T = 1, q = 1, σ = 1, n = 10: closed form
	// γ = 0.38914, advantage 0.3213 (notes §7; paper 0.322).
	m := boundJSON(t, "rero", "--noise-multiplier", "1", "--sampling-rate", "1", "--steps", "1", "--prior-size", "10", "--compare", "guo_fano")
	within(t, "gamma", num(t, m, "gamma"), 0.38914, 1e-5)
	within(t, "advantage", num(t, m, "advantage"), 0.3213, 1e-4)
	within(t, "guo_fano_advantage (Table 2: 0.593)", num(t, m, "guo_fano_advantage"), 0.593, 1e-3)
	if m["kappa"] != 0.1 || m["method"] != "exact" || m["prior_size"] != 10.0 || m["kind"] != "rero" {
		t.Errorf("inputs/outputs: %v", m)
	}
	for _, k := range []string{"gamma_lo", "gamma_hi", "confidence"} {
		num(t, m, k)
	}
	// Fig. 5 setting (q = 0.01, T = 100, σ = 0.5908, |π| = 10): 0.187
	// (notes §5.3, PLD-calibrated σ; paper ≈ 0.20).
	m = boundJSON(t, "rero", "--noise-multiplier", "0.5908", "--sampling-rate", "0.01", "--steps", "100", "--kappa", "0.1")
	within(t, "Fig. 5 bound", num(t, m, "gamma"), 0.187, 0.002)
	// Text output names the values.
	code, out, _ := cli(t, "bound", "rero", "--noise-multiplier", "1", "--sampling-rate", "1", "--steps", "1", "--prior-size", "10")
	if code != 0 || !strings.Contains(out, "gamma") || !strings.Contains(out, "0.389144") || !strings.Contains(out, "advantage") {
		t.Errorf("text output:\n%s", out)
	}
}

func TestBoundBelief(t *testing.T) {
	// Bernau et al. Table 2(f): ρ_β = 0.9 → ε = ln 9, ρ_α(δ = 0.01) = 0.276312
	// (notes §6.1; paper 0.28).
	m := boundJSON(t, "belief", "--target-rho-beta", "0.9", "--delta", "0.01")
	within(t, "rho_beta", num(t, m, "rho_beta"), 0.9, 1e-12)
	within(t, "rho_alpha", num(t, m, "rho_alpha"), 0.276312, 1e-6)
	within(t, "epsilon", num(t, m, "epsilon"), math.Log(9), 1e-12)
	// ε given directly: ρ_β(2) = 0.8807970779778823 (notes §6.1).
	m = boundJSON(t, "belief", "--epsilon", "2", "--delta", "1e-6")
	within(t, "rho_beta(2)", num(t, m, "rho_beta"), 0.8807970779778823, 1e-12)
	within(t, "rho_alpha(2, 1e-6) (Fig. 3(b) grid)", num(t, m, "rho_alpha"), 0.149689, 1e-6)
	// From DP-SGD: full batch, k = 30, z = 8.380227 (RDP-calibrated to
	// ln 9 at δ = 0.01): RDP-form advantage 0.2561767 (notebook).
	m = boundJSON(t, "belief", "--noise-multiplier", "8.380227", "--sampling-rate", "1", "--steps", "30", "--delta", "0.01")
	within(t, "rho_alpha_rdp", num(t, m, "rho_alpha_rdp"), 0.2561767421042713, 1e-6)
	within(t, "rho_beta", num(t, m, "rho_beta"), 0.9, 1e-3)
}

func TestBoundMSEAndMinimax(t *testing.T) {
	// Guo et al. F2: Z = [0, 100], ε = 2 → 391.29410687416413.
	m := boundJSON(t, "mse_rdp", "--epsilon", "2", "--diameter", "100")
	within(t, "mse_lower_bound", num(t, m, "mse_lower_bound"), 391.29410687416413, 1e-9)
	// F16a: q = 0.01, σ = 1, T = 1000, soft clip → ε₂ 0.246647, 0.893727.
	m = boundJSON(t, "mse_rdp", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "1000", "--soft-clip")
	within(t, "ε₂", num(t, m, "epsilon"), 0.246647, 1e-6)
	within(t, "mse_lower_bound", num(t, m, "mse_lower_bound"), 0.893727, 1e-6)
	// Mukherjee & Lokam facts 2, 8, 11, 12 at ε = 1, d = 784.
	m = boundJSON(t, "minimax_mse", "--epsilon", "1", "--dimension", "784")
	within(t, "dp", num(t, m, "dp"), 0.03937178329, 1e-11)
	within(t, "mdp", num(t, m, "mdp"), 0.1839397206, 1e-10)
	within(t, "high_dim", num(t, m, "high_dim"), 135.5104948, 1e-7)
	within(t, "guo_total", num(t, m, "guo_total"), 114.0674345, 1e-7)
	// δ defaults to 0 with --epsilon; fact 3: δ = 1e-5 → 0.03937138957.
	m = boundJSON(t, "minimax_mse", "--epsilon", "1", "--delta", "1e-5")
	within(t, "dp with δ", num(t, m, "dp"), 0.03937138957, 1e-11)
}

// Bad input is exit 2 with a message that says what and why.
func TestBoundBadInput(t *testing.T) {
	dp := []string{"--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "100"}
	cases := []struct {
		args []string
		want string
	}{
		{nil, "give one KIND"},
		{[]string{"nope"}, `unknown kind "nope"`},
		{append([]string{"rero", "--kappa", "1.5"}, dp...), "--kappa must be in (0, 1)"},
		{append([]string{"rero", "--kappa", "0"}, dp...), "--kappa must be in (0, 1)"},
		{append([]string{"rero", "--prior-size", "1"}, dp...), "--prior-size must be ≥ 2"},
		{append([]string{"rero", "--prior-size", "10", "--kappa", "0.1"}, dp...), "--prior-size n or --kappa κ"},
		{append([]string{"rero", "--kappa", "0.001", "--method", "robust", "--samples", "10000"}, dp...), "use samples ≥ 100000"},
		{append([]string{"rero", "--kappa", "0.1", "--compare", "guo_fano"}, dp...), "needs --prior-size"},
		{[]string{"rero", "--prior-size", "10"}, "needs the DP-SGD flags"},
		{append([]string{"rero", "--prior-size", "10", "--epsilon", "1"}, dp...), "--epsilon does not apply"},
		{[]string{"rero", "--prior-size", "10", "--noise-multiplier", "-1", "--sampling-rate", "0.1", "--steps", "1"}, "--noise-multiplier must be > 0"},
		{[]string{"minimax_mse", "--epsilon", "1", "--dimension", "0"}, "--dimension must be ≥ 1"},
		{[]string{"minimax_mse", "--epsilon", "1", "--diameter", "0"}, "--diameter must be > 0"},
		{[]string{"minimax_mse"}, "give --epsilon or the DP-SGD flags"},
		{[]string{"mse_rdp", "--epsilon", "1", "--diameter", "-2"}, "--diameter must be > 0"},
		{append([]string{"mse_rdp", "--epsilon", "1"}, dp...), "not both"},
		{[]string{"belief", "--target-rho-beta", "0.5"}, "--target-rho-beta must be in (0.5, 1)"},
		{[]string{"belief", "--target-rho-beta", "1"}, "--target-rho-beta must be in (0.5, 1)"},
		{[]string{"belief", "--target-rho-alpha", "0"}, "--target-rho-alpha must be in (0, 1)"},
		{[]string{"belief", "--epsilon", "1", "--target-rho-beta", "0.9"}, "at most one of"},
		{[]string{"belief", "--epsilon", "1", "--delta", "0"}, "--delta must be in (0, 1)"},
		{[]string{"belief", "--epsilon", "1", "--pld-interval", "0.001"}, "--pld-interval does not apply"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, append([]string{"bound"}, c.args...)...)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("dpaudit bound %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// The quick calculator and a spec run compute the same numbers, including
// Monte Carlo seeded from --seed as from a spec's seed.
func TestBoundAgreesWithSpecRun(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "r.yaml")
	os.WriteFile(specPath, []byte(`name: r
seed: 3
dpsgd: {noise_multiplier: 0.8, sampling_rate: 0.05, steps: 20}
bound: [{kind: rero, prior_size: 10, method: robust, samples: 20000}]
`), 0o644)
	if code, _, errs := cli(t, "run", specPath, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "res")); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	tb, err := pipeline.ReadParquet(filepath.Join(dir, "res", "r", "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	m := boundJSON(t, "rero", "--noise-multiplier", "0.8", "--sampling-rate", "0.05", "--steps", "20", "--prior-size", "10",
		"--method", "robust", "--samples", "20000", "--seed", "3")
	for _, c := range []string{"gamma", "gamma_lo", "gamma_hi", "advantage"} {
		if got, want := num(t, m, c), tb.Col("rero_"+c).Float(0); got != want {
			t.Errorf("%s: CLI %v, spec run %v", c, got, want)
		}
	}
}
