package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
)

// estimateNode is what the runner's estimate node was given: the
// options that change its numbers.
type estimateNode struct {
	Key           string  `json:"point_key"`
	Estimator     string  `json:"estimator"`
	Threshold     string  `json:"threshold"`
	SplitFraction float64 `json:"split_fraction"`
	Splits        int     `json:"splits"`
	Confidence    float64 `json:"confidence"`
	Delta         float64 `json:"delta"`
	Score         string  `json:"score"`
	LowerWorld1   bool    `json:"lower_means_world1"`
	Seed          int64   `json:"seed"`
	Claim         struct {
		Accountant      string  `json:"accountant"`
		NoiseMultiplier float64 `json:"noise_multiplier"`
		SamplingRate    float64 `json:"sampling_rate"`
		Steps           int     `json:"steps"`
	} `json:"claim"`
	OneRun *struct { // spec.OneRun, encoded under its Go field names
		SteinkeGuesses, FDPGuesses, OrderStatsGuesses int
	} `json:"one_run"`
	RepeatKeys []string `json:"repeat_keys"`
}

// runAudit runs a spec through the runner and returns its results
// folder and the params of its one estimate node.
func runAudit(t *testing.T, spec string) (string, estimateNode) {
	t.Helper()
	dir := t.TempDir()
	p, err := dpaudit.Load(spec, dpaudit.Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []estimateNode
	for _, st := range p.Steps {
		if st.Node.Kind != "estimate" {
			continue
		}
		b, _ := json.Marshal(st.Node.Params)
		var n estimateNode
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) != 1 {
		t.Fatalf("%d estimate nodes, want 1", len(nodes))
	}
	return res.Dir, nodes[0]
}

// estimateArgs are the flags that make dpaudit estimate compute what
// the runner's estimate node computed on repeat 0, as a user reads them
// from dpaudit plan --json: the split seed is derived from the spec seed
// and the point key as the runner derives it.
func estimateArgs(trials string, n estimateNode) []string {
	acc := n.Claim.Accountant
	if acc == "" {
		acc = "best"
	}
	args := []string{"estimate", trials, "--member-column", "world", "--score-column", n.Score, "--filter", "repeat=0",
		"--confidence", fmt.Sprint(n.Confidence), "--delta", fmt.Sprint(n.Delta),
		"--noise-multiplier", fmt.Sprint(n.Claim.NoiseMultiplier), "--sampling-rate", fmt.Sprint(n.Claim.SamplingRate),
		"--steps", fmt.Sprint(n.Claim.Steps), "--accountant", acc, "--table", "summary", "--format", "json"}
	if n.LowerWorld1 {
		args = append(args, "--lower-is-member")
	}
	if n.Estimator == "per_step" {
		// Per-step samples: every row one canary's projection at one step.
		return append(args, "--step-column", "trial")
	}
	if n.Estimator == "one_run" {
		// One run: the rows are the canaries of one training run.
		args = append(args, "--canary-column", "trial", "--score-is-llr",
			"--steinke-guesses", fmt.Sprint(n.OneRun.SteinkeGuesses), "--fdp-guesses", fmt.Sprint(n.OneRun.FDPGuesses),
			"--order-stats-guesses", fmt.Sprint(n.OneRun.OrderStatsGuesses))
		return args
	}
	key := n.Key
	if len(n.RepeatKeys) > 0 {
		key = n.RepeatKeys[0]
	}
	return append(args, "--run-column", "trial", "--threshold", n.Threshold,
		"--split-fraction", fmt.Sprint(n.SplitFraction), "--splits", fmt.Sprint(n.Splits),
		"--spec-seed", fmt.Sprint(n.Seed), "--point-key", key)
}

// cellText prints a summary cell and a JSON value alike (floats at full
// precision, so equal text is equal bits).
func cellText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		f, _ := x.Float64()
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// compareWithSummary runs dpaudit estimate on the published trials of
// repeat 0 and compares every estimate column with the runner's summary
// row, exactly. want lists columns that must be among them; skip those
// that legitimately differ (the runner's test over several repeats).
// fromTable: a classic audit's split seed is read from the summary's
// split_seed column (else derived from the spec seed and the point key,
// and the column compared with what the command derives).
func compareWithSummary(t *testing.T, results string, n estimateNode, fromTable bool, want, skip []string) {
	t.Helper()
	points, _ := filepath.Glob(filepath.Join(results, "trials", "point=*"))
	if len(points) != 1 {
		t.Fatalf("%d point folders", len(points))
	}
	sum, err := pipeline.ReadParquet(filepath.Join(results, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	args := estimateArgs(points[0], n)
	if fromTable && sum.Col("split_seed") != nil {
		// The seed from the summary alone, not from the plan's key.
		i := slices.Index(args, "--spec-seed")
		args = append(args[:i:i], "--split-seed", sum.Col("split_seed").Values[0].(string))
	}
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("estimate: exit %d: %s", code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	compared := map[string]bool{}
	for name, v := range got {
		c := sum.Col(name)
		if c == nil || contains(skip, name) {
			continue
		}
		compared[name] = true
		if g, w := cellText(v), cellText(c.Values[0]); g != w {
			t.Errorf("%s: estimate %s, run %s", name, g, w)
		}
	}
	for _, w := range want {
		if !compared[w] {
			t.Errorf("column %s was not compared (estimate wrote %d columns)", w, len(got))
		}
	}
	if lb, _ := got["epsilon_lb"].(json.Number).Float64(); !(lb > 0) || math.IsInf(lb, 0) {
		t.Errorf("epsilon_lb %v: the comparison should be on a non-trivial bound", lb)
	}
}

var classicColumns = []string{"audit_trials", "audit_score", "threshold_method", "epsilon_lb", "estimate_family", "estimate_valid",
	"epsilon_lb_confidence", "epsilon_point", "threshold", "fpr", "fnr", "fpr_upper", "fnr_upper", "attack_accuracy", "max_accuracy",
	"auc", "tpr_at_fpr_0_1pct", "tpr_at_fpr_1pct", "gdp_mu", "gdp_mu_lo", "gdp_mu_hi", "epsilon_gdp_estimate",
	"epsilon_gdp_estimate_lo", "epsilon_gdp_estimate_hi", "epsilon_accountant"}

// The find-a-bug example (5 repeats): repeat 0's published trials and the
// runner's options reproduce every estimate column of its summary to the
// last digit — the split seed among them, which a user's own program did
// not have (it got ε_lb 4.03 where the run wrote 3.7896). The violation
// p-value is over the 5 repeats in the run, so it is not compared.
func TestEstimateReproducesFindABug(t *testing.T) {
	results, n := runAudit(t, "../../examples/audit/find-a-bug.yaml")
	compareWithSummary(t, results, n, true, append(classicColumns, "split_seed"), []string{"violation_p_value", "violation_uncorrected"})
}

// A one-repeat audit with Bonferroni thresholds, and a one-run audit:
// every column, the claim test's included.
func TestEstimateReproducesBonferroniAndOneRun(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "bonferroni.yaml")
	os.WriteFile(spec, []byte(`name: bonferroni
seed: 5
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.9, sampling_rate: 0.1, steps: 50, delta: 1.0e-5}
audit: {threat_model: malicious_dataset, trials: 3000, threshold: bonferroni, split_fraction: 0.3, claim: {noise_multiplier: 1.5}}
`), 0o644)
	results, n := runAudit(t, spec)
	compareWithSummary(t, results, n, false, append(classicColumns, "split_seed", "violation_p_value", "violation_uncorrected"), nil)

	spec = filepath.Join(dir, "onerun.yaml")
	os.WriteFile(spec, []byte(`name: onerun
seed: 14
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.5, sampling_rate: 0.3, steps: 1, delta: 1.0e-5}
audit: {threat_model: malicious_dataset, estimator: one_run, trials: 1000, one_run: {steinke_guesses: 300, order_stats_guesses: 200}}
`), 0o644)
	results, n = runAudit(t, spec)
	compareWithSummary(t, results, n, false, []string{"audit_trials", "threshold_method", "epsilon_lb", "estimate_family", "estimate_valid",
		"epsilon_lb_confidence", "one_run_guesses", "one_run_correct", "one_run_fdp_epsilon_lb", "one_run_fdp_mu", "one_run_fdp_guesses",
		"one_run_fdp_correct", "one_run_os_epsilon_lb", "one_run_os_mu", "one_run_os_guesses", "one_run_os_mistakes", "one_run_os_claim",
		"one_run_os_claim_mu", "one_run_os_claim_p_value", "one_run_os_at_range_end", "epsilon_accountant", "violation_p_value", "violation_uncorrected"}, nil)
}

// A per-step audit (two pooled runs): the per-step μ interval, its
// composition over the claim and the claim test. per_step_runs and
// audit_trials count what the run knows (its runs, canaries per run),
// which a table of samples does not say.
func TestEstimateReproducesPerStep(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "perstep.yaml")
	os.WriteFile(spec, []byte(`name: perstep
seed: 4
dataset: {source: digits, train_size: 500}
model: {arch: logreg}
dpsgd: {noise_multiplier: 0.8, sampling_rate: 0.1, steps: 100, delta: 1.0e-5, learning_rate: 0.5}
audit: {threat_model: gradient, estimator: per_step, trials: 200, runs: 2}
`), 0o644)
	results, n := runAudit(t, spec)
	compareWithSummary(t, results, n, false, []string{"threshold_method", "epsilon_lb", "estimate_family", "estimate_valid", "epsilon_lb_confidence",
		"per_step_samples", "per_step_threshold", "per_step_fpr_upper", "per_step_fnr_upper", "per_step_mu_lb", "per_step_mu_ub",
		"per_step_mu_point", "per_step_claim_mu", "per_step_sampling_rate", "per_step_composition", "per_step_claim",
		"epsilon_per_step_point", "epsilon_per_step_ub", "per_step_cp_epsilon_lb", "per_step_claim_step_epsilon",
		"epsilon_accountant", "violation_p_value", "violation_uncorrected"}, []string{"per_step_runs", "audit_trials"})
}
