package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// argsFromSummary are the flags of dpaudit estimate that recompute a
// run's summary row, read from that row alone: the options that change a
// number are its columns (the estimate_* ones, split_seed, the guesses,
// the claim's mechanism, the sequential test and its looks).
func argsFromSummary(t *testing.T, sum *pipeline.Table, trials string) []string {
	t.Helper()
	cell := func(name string) string {
		c := sum.Col(name)
		if c == nil {
			t.Fatalf("the summary has no column %s", name)
		}
		return cellText(c.Values[0])
	}
	args := []string{"estimate", trials, "--member-column", "world", "--score-column", cell("audit_score"), "--filter", "repeat=0",
		"--confidence", cell("epsilon_lb_confidence"), "--delta", cell("estimate_delta"),
		"--noise-multiplier", cell("claim_noise_multiplier"), "--sampling-rate", cell("claim_sampling_rate"),
		"--steps", cell("claim_steps"), "--accountant", cell("claim_accountant"),
		"--lower-is-member=" + cell("estimate_lower_is_member"), "--table", "summary", "--format", "json"}
	switch cell("threshold_method") {
	case "sequential split":
		var looks []int
		if err := json.Unmarshal([]byte(cell("sequential_look_trials")), &looks); err != nil || len(looks) == 0 {
			t.Fatalf("sequential_look_trials %q: %v", cell("sequential_look_trials"), err)
		}
		return append(args, "--sequential", cell("sequential_test"), "--first-look", fmt.Sprint(looks[0]),
			"--budget", cell("audit_trials"), "--split-fraction", cell("estimate_split_fraction"))
	case "one_run":
		return append(args, "--canary-column", "trial", "--score-is-llr="+cell("estimate_score_is_llr"),
			"--steinke-guesses", cell("one_run_guesses"), "--fdp-guesses", cell("one_run_fdp_guesses"),
			"--order-stats-guesses", cell("one_run_os_guesses"))
	}
	return append(args, "--run-column", "trial", "--threshold", cell("threshold_method"),
		"--split-fraction", cell("estimate_split_fraction"), "--splits", cell("estimate_splits"), "--split-seed", cell("split_seed"))
}

// fromTablesAlone runs a spec, then dpaudit estimate on its published
// trials with the options read from its published summary, and compares
// every column both have, exactly. want must be among them; with several
// repeats the run's violation test is over all of them and is skipped.
func fromTablesAlone(t *testing.T, spec string, want []string) {
	t.Helper()
	results, _ := runAudit(t, spec)
	points, _ := filepath.Glob(filepath.Join(results, "trials", "point=*"))
	if len(points) != 1 {
		t.Fatalf("%d point folders", len(points))
	}
	sum, err := pipeline.ReadParquet(filepath.Join(results, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	args := argsFromSummary(t, sum, points[0])
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	skip := map[string]bool{}
	if r := sum.Col("audit_repeats"); r != nil && r.Values[0].(int64) > 1 {
		skip["violation_p_value"], skip["violation_uncorrected"] = true, true
	}
	compared := map[string]bool{}
	for name, v := range got {
		c := sum.Col(name)
		if c == nil || skip[name] {
			continue
		}
		compared[name] = true
		if g, w := cellText(v), cellText(c.Values[0]); g != w {
			t.Errorf("%s: %s: estimate %s, run %s", filepath.Base(spec), name, g, w)
		}
	}
	for _, w := range want {
		if !compared[w] {
			t.Errorf("%s: column %s was not compared", filepath.Base(spec), w)
		}
	}
}

// Every estimate column of a run is recomputed by dpaudit estimate from
// the published tables alone — the trials, and the summary's columns for
// the options — to the last digit: the find-a-bug, one-run and sequential
// examples. The one-run example is run at its first configuration only
// (10³ canaries, q = 1, 5 repeats; its other two have 10⁵ canaries and
// take minutes): the same estimators and options, fewer canaries.
func TestEstimateFromTablesAlone(t *testing.T) {
	fromTablesAlone(t, "../../examples/audit/find-a-bug.yaml", append(classicColumns, "split_seed"))

	b, err := os.ReadFile("../../examples/audit/one-run-ideal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	for old, first := range map[string]string{"[1000, 100000, 100000]": "[1000]", "[1, 1, 0.2]": "[1]", "[1000, 100000, 10000]": "[1000]"} {
		if !strings.Contains(spec, old) {
			t.Fatalf("one-run-ideal.yaml's sweep has no %s: update this test's shrinking", old)
		}
		spec = strings.Replace(spec, old, first, 1)
	}
	// The example's expect block names points of the full sweep; the
	// shrunk sweep has only the first.
	if i := strings.Index(spec, "\nexpect:\n"); i >= 0 {
		spec = spec[:i+1]
	}
	path := filepath.Join(t.TempDir(), "one-run-ideal.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	fromTablesAlone(t, path, []string{"audit_trials", "epsilon_lb", "estimate_family", "epsilon_lb_confidence", "one_run_guesses",
		"one_run_correct", "one_run_fdp_epsilon_lb", "one_run_fdp_mu", "one_run_fdp_guesses", "one_run_fdp_correct",
		"one_run_os_epsilon_lb", "one_run_os_mu", "one_run_os_guesses", "one_run_os_mistakes", "one_run_os_claim",
		"one_run_os_claim_mu", "one_run_os_claim_p_value", "one_run_os_at_range_end", "epsilon_accountant"})

	fromTablesAlone(t, "../../examples/audit/find-a-bug-sequential.yaml", []string{"audit_trials", "threshold_method", "epsilon_lb",
		"estimate_family", "estimate_valid", "epsilon_lb_confidence", "sequential_test", "sequential_trials_used", "sequential_looks",
		"sequential_stopped", "sequential_look_trials", "sequential_look_alpha", "sequential_epsilon_lb_max", "threshold", "fpr", "fnr",
		"fpr_upper", "fnr_upper", "profile_epsilon", "profile_delta_lb", "profile_delta_claim", "violation_detail",
		"epsilon_accountant", "violation_p_value", "violation_uncorrected"})
}
