package dpaudit

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/audit"
)

// estimator: one_run on the ideal Gaussian with μ = 2 (σ = 0.5, q = 1,
// T = 1; ε = 9.9973 at δ = 1e-5) reports the three one-run bounds side by
// side with their families and claims; the order-statistics column is the
// library's bound on the reported counts, and it is the tightest (note §3:
// 9.0038 at 1000 canaries with the expected mistake count 159).
func TestOneRunThreeEstimators(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "o.yaml", `name: o
seed: 14
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.5, sampling_rate: 1, steps: 1, delta: 1.0e-5}
audit: {threat_model: malicious_dataset, estimator: one_run, trials: 1000}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	r := summaryRow(t, res.Summary, 0)
	if r["estimate_family"] != audit.FamilyOneRun || r["one_run_fdp_family"] != audit.FamilyOneRunFDP ||
		r["one_run_os_family"] != audit.FamilyOneRunOrderStats || r["one_run_os_claim"] != "gaussian (mu-GDP)" {
		t.Fatalf("families: %v %v %v %v", r["estimate_family"], r["one_run_fdp_family"], r["one_run_os_family"], r["one_run_os_claim"])
	}
	u, g := int(r["one_run_os_mistakes"].(int64)), int(r["one_run_os_guesses"].(int64))
	if g != 1000 {
		t.Fatalf("order-statistics guesses %d, want all 1000", g)
	}
	want, err := audit.OrderStatsEpsilon(audit.OSFamily{SamplingRate: 1}, 1000, g, u, 1e-5, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	st, fdp, os := r["epsilon_lb"].(float64), r["one_run_fdp_epsilon_lb"].(float64), r["one_run_os_epsilon_lb"].(float64)
	if math.Abs(os-want.EpsilonLB) > 1e-12 {
		t.Errorf("one_run_os_epsilon_lb %v, library on u = %d: %v", os, u, want.EpsilonLB)
	}
	// u ~ Bin(1000, Φ(−1)): 159 ± 12; the bound at u = 159 is 9.0038.
	if !(st < fdp && fdp < os && os > 8 && u > 120 && u < 200) {
		t.Errorf("Steinke %.3f, f-DP %.3f, order statistics %.3f (u = %d): want Steinke < f-DP < order statistics ≈ 9", st, fdp, os, u)
	}
	if p := r["one_run_os_claim_p_value"].(float64); !(p > 0 && p <= 1) || r["one_run_os_claim_mu"].(float64) != 2 {
		t.Errorf("claim μ %v, p-value %v", r["one_run_os_claim_mu"], p)
	}
	if r["one_run_os_epsilon_lb_median"].(float64) != os {
		t.Errorf("median over one repeat %v, want %v", r["one_run_os_epsilon_lb_median"], os)
	}
}

// More guesses than canaries is a positioned spec error.
func TestOneRunGuessesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ audit, want string }{
		{"estimator: one_run, trials: 100, one_run: {order_stats_guesses: 101}", "o.yaml:5:106: audit.one_run.order_stats_guesses: 101 guesses but only 100 canaries"},
		{"estimator: one_run, trials: 100, one_run: {steinke_guesses: 200}", "audit.one_run.steinke_guesses: 200 guesses but only 100 canaries"},
		{"trials: 100, one_run: {fdp_guesses: 10}", "audit.one_run: one_run guesses need estimator: one_run"},
	} {
		path := writeSpec(t, dir, "o.yaml", `name: o
seed: 14
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.5, sampling_rate: 1, steps: 1, delta: 1.0e-5}
audit: {threat_model: malicious_dataset, `+c.audit+`}
`)
		_, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.audit, err, c.want)
		}
	}
}

// Shuffled batches accounted as Poisson sampling (σ = 0.7, q = 0.01,
// T = 100: PLD ε = 2.37, shuffled ε ≥ 6.64) are a valid violation that
// says so; the same spec training with Poisson sampling is not.
func TestShuffleAccountedAsPoisson(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "s.yaml", `name: s
seed: 5
vars: {sampling: shuffle}
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.7, sampling_rate: 0.01, steps: 100, delta: 1.0e-5, sampling: "=sampling"}
audit: {threat_model: malicious_dataset, trials: 20000, claim: {sampling: poisson}}
sweep: {grid: {sampling: [shuffle, poisson]}}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	sh, po := summaryRow(t, res.Summary, 0), summaryRow(t, res.Summary, 1)
	if sh["trained_sampling"] != "shuffle" || sh["shuffle_accounted_as_poisson"] != true || sh["violation"] != true || sh["estimate_valid"] != true {
		t.Errorf("shuffled: %v %v violation %v valid %v (ε_lb %v, claim %v)", sh["trained_sampling"], sh["shuffle_accounted_as_poisson"], sh["violation"], sh["estimate_valid"], sh["epsilon_lb"], sh["epsilon_accountant"])
	}
	if lb := sh["epsilon_shuffle_lb"].(float64); math.Abs(lb-6.639) > 0.01 {
		t.Errorf("epsilon_shuffle_lb %v, want 6.639 (privacy.ShuffleEpsilonLB)", lb)
	}
	if po["trained_sampling"] != "poisson" || po["violation"] != false || po["shuffle_accounted_as_poisson"] != false || !math.IsNaN(po["epsilon_shuffle_lb"].(float64)) {
		t.Errorf("poisson: %v violation %v (ε_lb %v, claim %v)", po["trained_sampling"], po["violation"], po["epsilon_lb"], po["epsilon_accountant"])
	}
	vs, err := Violations(res.Summary)
	if err != nil || len(vs) != 1 || len(vs[0].Notes) == 0 || !strings.Contains(vs[0].Notes[0], "shuffled batches were accounted as Poisson sampling") {
		t.Errorf("violations %+v, %v", vs, err)
	}
}

// A one-run audit of a trained model: audit.trials Dirac gradient canaries
// in ONE DP-SGD run, each included with probability ½. Under-noising
// (trained σ = 0.3, claimed σ = 2) is flagged by Steinke et al.'s valid
// bound from that single run; an honest claim is not.
func TestOneRunTrainedModel(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	body := func(claim string) string {
		return `name: t
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 0.3, sampling_rate: 0.1, steps: 30, delta: 1.0e-5, learning_rate: 0.1}
audit: {threat_model: gradient, estimator: one_run, trials: 400` + claim + `}
`
	}
	_, res := runSpec(t, writeSpec(t, dir, "t.yaml", body(", claim: {noise_multiplier: 2}")), o)
	r := summaryRow(t, res.Summary, 0)
	if r["violation"] != true || r["estimate_family"] != audit.FamilyOneRun || r["audit_trials"] != int64(400) || r["one_run_guesses"] != int64(40) {
		t.Errorf("under-noised: violation %v family %v trials %v guesses %v (ε_lb %v, claim %v)", r["violation"], r["estimate_family"], r["audit_trials"], r["one_run_guesses"], r["epsilon_lb"], r["epsilon_accountant"])
	}
	if !(r["one_run_fdp_epsilon_lb"].(float64) >= r["epsilon_lb"].(float64)) {
		t.Errorf("f-DP %v below Steinke %v", r["one_run_fdp_epsilon_lb"], r["epsilon_lb"])
	}
	_, res = runSpec(t, writeSpec(t, dir, "h.yaml", body("")), o)
	if h := summaryRow(t, res.Summary, 0); h["violation"] != false || !(h["epsilon_lb"].(float64) < h["epsilon_accountant"].(float64)) {
		t.Errorf("honest: violation %v, ε_lb %v, claim %v", h["violation"], h["epsilon_lb"], h["epsilon_accountant"])
	}
}

// Bad one-run setups of trained models are positioned spec errors.
func TestOneRunTrainedBadInput(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	head := `name: b
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5, delta: 1.0e-5}
`
	for _, c := range []struct{ rest, want string }{
		{"audit: {threat_model: api_access, estimator: one_run, trials: 100}\n", "audit.threat_model: the one-run audit of a trained model"},
		{"crafter: {kind: gradient_canary}\naudit: {threat_model: gradient, estimator: one_run, trials: 100}\n", "b.yaml:6:10: crafter: the one-run audit of a trained model inserts its own"},
	} {
		_, err := Load(writeSpec(t, dir, "b.yaml", head+c.rest), o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	// More canaries than parameters: TestOneRunCanariesBadInput.
}
