package dpaudit

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/privacy"
)

// The per-step white-box audit of a trained model (Nasr et al. 2023):
// 1000 Dirac canaries in one full-batch DP-SGD run of 20 steps give
// 500·20 = 10⁴ samples a side. Honest (σ = 2): the composed GDP bound is
// below the accountant's ε and its interval holds the true per-step
// μ = 1/σ; under-noised (trained σ = 1, claimed 2) it is a violation.
func TestPerStepTrainedModel(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	body := func(sigma, claim string) string {
		return `name: p
seed: 5
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [32]}
dpsgd: {noise_multiplier: ` + sigma + `, sampling_rate: 1, steps: 20, delta: 1.0e-5, learning_rate: 0.1}
audit: {threat_model: gradient, estimator: per_step, trials: 1000` + claim + `}
`
	}
	_, res := runSpec(t, writeSpec(t, dir, "h.yaml", body("2", "")), o)
	h := summaryRow(t, res.Summary, 0)
	if h["estimate_family"] != audit.FamilyPerStepGDP || h["estimate_valid"] != true || h["violation"] != false || h["threshold_method"] != "per_step" {
		t.Fatalf("honest: %v", h)
	}
	lo, hi := h["per_step_mu_lb"].(float64), h["per_step_mu_ub"].(float64)
	t.Logf("μ_step [%v, %v] point %v; ε_lb %v ε_point %v accountant %v; CP step ε %v", lo, hi, h["per_step_mu_point"], h["epsilon_lb"], h["epsilon_per_step_point"], h["epsilon_accountant"], h["per_step_cp_epsilon_lb"])
	if !(lo <= 0.5 && 0.5 <= hi) || lo < 0.4 {
		t.Errorf("per-step μ interval [%v, %v], true 0.5", lo, hi)
	}
	if n := h["per_step_samples"].(int64); n != 20000 {
		t.Errorf("%d samples, want 2·500·20", n)
	}
	// μ_total = √20·μ_step: the GDP ε of √20/2 = 2.236 at δ = 1e-5.
	want, _ := privacy.GDPEpsilon(math.Sqrt(20)/2, 1e-5)
	acc := h["epsilon_accountant"].(float64)
	lb := h["epsilon_lb"].(float64)
	if !(lb < acc && lb > 0.7*want) || math.Abs(acc-want) > 0.02*want {
		t.Errorf("ε_lb %v, accountant %v, GDP at the true μ %v", lb, acc, want)
	}
	// Two runs pooled: twice the samples, the same family.
	_, res = runSpec(t, writeSpec(t, dir, "r.yaml", body("2", ", runs: 2")), o)
	if r2 := summaryRow(t, res.Summary, 0); r2["per_step_samples"] != int64(40000) || r2["per_step_runs"] != int64(2) || r2["violation"] != false {
		t.Errorf("two runs: %v samples, %v runs, violation %v", r2["per_step_samples"], r2["per_step_runs"], r2["violation"])
	}
	_, res = runSpec(t, writeSpec(t, dir, "u.yaml", body("1", ", claim: {noise_multiplier: 2}")), o)
	if u := summaryRow(t, res.Summary, 0); u["violation"] != true || !(u["epsilon_lb"].(float64) > u["epsilon_accountant"].(float64)) {
		t.Errorf("under-noised: violation %v ε_lb %v claim %v p %v", u["violation"], u["epsilon_lb"], u["epsilon_accountant"], u["violation_p_value"])
	}
}

// With Poisson sampling the per-step μ is composed by the accountant with
// the claimed q: an honest run (σ = 1, q = 0.2, T = 50, 2000 canaries,
// ~10⁴ samples a side) lands below the accountant's ε and near it.
func TestPerStepPoisson(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, res := runSpec(t, writeSpec(t, dir, "q.yaml", `name: q
seed: 2
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [32]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 50, delta: 1.0e-5, learning_rate: 0.1}
audit: {threat_model: gradient, estimator: per_step, trials: 2000}
`), o)
	r := summaryRow(t, res.Summary, 0)
	lb, acc := r["epsilon_lb"].(float64), r["epsilon_accountant"].(float64)
	t.Logf("ε_lb %v, accountant %v, μ [%v, %v], %v samples", lb, acc, r["per_step_mu_lb"], r["per_step_mu_ub"], r["per_step_samples"])
	if !(lb < acc && lb > 0.75*acc) || r["violation"] != false || !strings.Contains(r["per_step_claim"].(string), "Poisson q = 0.2 (taken from the claim") {
		t.Errorf("ε_lb %v, accountant %v, violation %v, claim %q", lb, acc, r["violation"], r["per_step_claim"])
	}
}

// Per-step audits need white-box gradient access, a trained model, and
// their own canaries: positioned errors otherwise.
func TestPerStepBadInput(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	head := `name: b
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5, delta: 1.0e-5}
`
	for _, c := range []struct{ spec, want string }{
		{head + "audit: {threat_model: api_access, estimator: per_step, trials: 100}\n", "b.yaml:6:23: audit.threat_model: the per-step audit reads every step's privatised update, which threat model api_access does not release"},
		{head + "audit: {threat_model: gradient, estimator: per_step, trials: 1}\n", "audit.trials: the per-step audit needs at least 2 canaries"},
		{head + "audit: {threat_model: gradient, estimator: one_run, trials: 100, runs: 3}\n", "b.yaml:6:72: audit.runs: pooled training runs are for estimator per_step"},
		{head + "crafter: {kind: gradient_canary}\naudit: {threat_model: gradient, estimator: per_step, trials: 100}\n", "crafter: the per-step audit inserts its own"},
		{"name: b\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5}\naudit: {threat_model: gradient, estimator: per_step, trials: 100}\n", "audit.estimator: the per-step audit trains a model"},
	} {
		_, err := Load(writeSpec(t, dir, "b.yaml", c.spec), o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
