package dpaudit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seqSpec is find-a-bug (examples/audit/find-a-bug.yaml) as a sequential
// audit, with the budget, the claimed σ and the shard size to fill in.
const seqSpec = `name: seq
seed: 11
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.6, sampling_rate: 0.1, steps: 100, delta: 1.0e-5}
audit:
  threat_model: malicious_dataset
  trials: %d
  shard_size: %d
  stop: sequential
  claim: {noise_multiplier: %g}
`

// The find-a-bug example as a sequential audit stops with a violation
// within 1000 trials, computes no trial past its
// stopping look, and the result does not depend on the shard size or -j
// (shards are cut at the looks); a cached re-run computes nothing and
// gives the same bytes.
func TestSequentialFindABug(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"epsilon_lb", "sequential_trials_used", "sequential_looks", "sequential_stopped", "threshold", "fpr", "fnr",
		"violation_p_value", "profile_epsilon", "profile_delta_lb", "violation_detail", "epsilon_accountant"}
	var first map[string]any
	for i, c := range []struct{ shard, jobs int }{{-1, 1}, {333, 2}, {1000, 1}} {
		path := filepath.Join("examples", "audit", "find-a-bug-sequential.yaml")
		if c.shard > 0 {
			path = writeSpec(t, dir, fmt.Sprintf("s%d.yaml", i), fmt.Sprintf(seqSpec, 20000, c.shard, 1.6267))
		}
		o := Options{Store: filepath.Join(dir, fmt.Sprint("store", i)), Results: filepath.Join(dir, fmt.Sprint("results", i)), Jobs: c.jobs}
		_, res := runSpec(t, path, o)
		row := summaryRow(t, res.Summary, 0)
		used := row["sequential_trials_used"].(int64)
		if row["sequential_stopped"] != "violation" || row["violation"] != true || used > 1000 {
			t.Fatalf("shard %d: stopped %v after %d trials, violation %v; want a violation within 1000 trials", c.shard, row["sequential_stopped"], used, row["violation"])
		}
		if row["estimate_family"] != "eps_delta_cp_sequential" || row["estimate_valid"] != true {
			t.Errorf("family %v valid %v", row["estimate_family"], row["estimate_valid"])
		}
		if p := row["violation_p_value"].(float64); !(p < 0.05) {
			t.Errorf("p-value %v of a violation at 95%%", p)
		}
		if !strings.Contains(row["violation_detail"].(string), "privacy profile is refuted") {
			t.Errorf("violation_detail %q", row["violation_detail"])
		}
		// Only the trials up to the stopping look were computed.
		if n := len(trialTable(t, res.Dir)["trial"]); int64(n) != used {
			t.Errorf("shard %d: %d trials in the tables, %d used", c.shard, n, used)
		}
		if i == 0 {
			first = row
			b, _ := os.ReadFile(res.Summary)
			_, res2 := runSpec(t, path, o)
			if res2.Run != 0 {
				t.Errorf("a re-run computed %d nodes", res2.Run)
			}
			b2, _ := os.ReadFile(res2.Summary)
			if !bytes.Equal(b, b2) {
				t.Error("a cached re-run changed the summary")
			}
			continue
		}
		for _, col := range cols {
			if row[col] != first[col] {
				t.Errorf("shard %d, -j %d: %s = %v, default sharding gave %v", c.shard, c.jobs, col, row[col], first[col])
			}
		}
	}
}

// Without the bug (the claim is what was trained) the sequential audit
// spends its budget and flags nothing.
func TestSequentialHonestSpendsBudget(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "h.yaml", fmt.Sprintf(seqSpec, 3000, 0, 0.6))
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	row := summaryRow(t, res.Summary, 0)
	if row["sequential_stopped"] != "budget" || row["violation"] != false || row["sequential_trials_used"] != int64(3000) || row["sequential_looks"] != int64(6) {
		t.Fatalf("honest audit: stopped %v after %v trials (%v looks), violation %v", row["sequential_stopped"], row["sequential_trials_used"], row["sequential_looks"], row["violation"])
	}
	if lb, acc := row["epsilon_lb"].(float64), row["epsilon_accountant"].(float64); !(lb < acc) {
		t.Errorf("ε_lb %v ≥ accountant ε %v on an honest audit", lb, acc)
	}
}

// What a sequential audit cannot do validly, or does not implement, is
// refused with positioned errors and nothing written.
func TestSequentialRefusals(t *testing.T) {
	base := "name: r\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}\naudit:\n  threat_model: malicious_dataset\n  stop: sequential\n"
	for _, c := range []struct{ audit, want string }{
		{"  trials: 1000\n  threshold: posthoc\n", "r.yaml:8:14: audit.threshold: stop: sequential cannot use posthoc thresholds"},
		{"  trials: 1000\n  threshold: bonferroni\n", "audit.threshold: stop: sequential with threshold: bonferroni is not implemented yet"},
		{"  trials: 1000\n  estimator: one_run\n", "audit.estimator: stop: sequential supports estimator clopper_pearson only"},
		{"  trials: 1000\n  repeats: 3\n", "audit.repeats: stop: sequential audits are not repeated"},
		{"  trials: 1000\n  splits: 2\n", "audit.splits:"},
		{"  trials: 1000\n  sequential: {first_look: 10}\n", "audit.sequential.first_look: must be ≥ 20"},
		{"  trials: 1000\n  sequential: {first_look: 2000}\n", "audit.sequential.first_look: the first look (2000 trials) exceeds the budget"},
		{"  trials: 50\n", "audit.trials: the budget (50 trials) is below the default first look"},
	} {
		dir := t.TempDir()
		path := writeSpec(t, dir, "r.yaml", base+c.audit)
		o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
		_, err := Load(path, o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an input error containing %q", c.audit, err, c.want)
		}
		for _, d := range []string{o.Store, o.Results} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s was created", d)
			}
		}
	}
	// sequential settings without stop: sequential.
	dir := t.TempDir()
	path := writeSpec(t, dir, "r.yaml", strings.Replace(base, "  stop: sequential\n", "", 1)+"  trials: 1000\n  sequential: {first_look: 200}\n")
	if _, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}); err == nil || !strings.Contains(err.Error(), "audit.sequential: sequential settings need audit.stop: sequential") {
		t.Errorf("sequential block without stop: %v", err)
	}
}
