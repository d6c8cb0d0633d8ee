package dpaudit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lastIterateSpec is a small last-iterate audit on the digits (100
// training records, an MLP, full-batch DP-SGD): the blank target labelled
// 9, observed through the final model's loss. init is the audit's
// worst_case_init entry ("" for the crafter's random θ_0).
func lastIterateSpec(init, shard string) string {
	return `name: li
seed: 6
dataset: {source: digits, train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 3.5, sampling_rate: 1, steps: 50, delta: 1.0e-5, learning_rate: 0.3}
crafter: {kind: constant_input, value: 0, label: 9}
distinguisher: {kind: loss_threshold}
audit:
  threat_model: api_access
  trials: 200
  confidence: 0.9
  threshold: posthoc
` + shard + init
}

// A last-iterate audit from a worst-case θ_0 runs end to end: the summary
// describes the pre-trained θ_0 (that trials start from it is checked in
// attack, TestCraftedInitIsTheStart), the paper's estimator is reported as the
// post-hoc GDP estimate (never valid, never a violation), and the numbers
// do not depend on the shard size. (That pre-training makes the target
// stand out is checked in stages, TestWorstCaseInitShrinksOtherGradients;
// on these 100 digits and a 16-unit MLP the attack is as strong from a
// random θ_0, so the AUCs are not compared here.)
func TestLastIterateWorstCaseInit(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, res := runSpec(t, writeSpec(t, dir, "avg.yaml", lastIterateSpec("", "")), o)
	avg := summaryRow(t, res.Summary, 0)
	wcInit := "  worst_case_init: {held_out: 1000, epochs: 20, batch_size: 32, learning_rate: 0.5}\n"
	_, res = runSpec(t, writeSpec(t, dir, "wc.yaml", lastIterateSpec(wcInit, "")), o)
	wc := summaryRow(t, res.Summary, 0)
	t.Logf("average-case θ_0: auc %v, ε_gdp_lo %v, ε_lb %v; worst-case: auc %v, ε_gdp_lo %v, ε_lb %v; accountant %v",
		avg["auc"], avg["epsilon_gdp_estimate_lo"], avg["epsilon_lb"], wc["auc"], wc["epsilon_gdp_estimate_lo"], wc["epsilon_lb"], wc["epsilon_accountant"])
	// θ_0 fits the training records (small loss) and not the target.
	if !strings.HasPrefix(wc["initial_model"].(string), "worst_case: pre-trained on 1000 held-out records") || wc["init_held_out"] != int64(1000) ||
		!(wc["init_train_loss"].(float64) < 0.3 && wc["init_target_loss"].(float64) > 1) || wc["init_target_label"] != int64(9) {
		t.Errorf("θ_0: %q, held out %v, training loss %v, target loss %v (label %v)", wc["initial_model"], wc["init_held_out"], wc["init_train_loss"], wc["init_target_loss"], wc["init_target_label"])
	}
	if _, ok := avg["initial_model"]; ok {
		t.Error("the audit without worst_case_init has an initial_model column")
	}
	if wc["threshold"] == avg["threshold"] && wc["auc"] == avg["auc"] {
		t.Errorf("the worst-case θ_0 changed nothing: threshold %v, auc %v", wc["threshold"], wc["auc"])
	}
	for _, r := range []map[string]any{avg, wc} {
		if r["estimate_valid"] != false || r["violation"] != false || !(r["epsilon_gdp_estimate_lo"].(float64) < r["epsilon_accountant"].(float64)) {
			t.Errorf("valid %v, violation %v, ε_gdp_lo %v, accountant %v", r["estimate_valid"], r["violation"], r["epsilon_gdp_estimate_lo"], r["epsilon_accountant"])
		}
	}
	if wc["epsilon_gdp_estimate_lo_median"] != wc["epsilon_gdp_estimate_lo"] || wc["epsilon_gdp_estimate_lo_min"] != wc["epsilon_gdp_estimate_lo"] {
		t.Errorf("one repeat: median %v, min %v of the GDP estimate %v", wc["epsilon_gdp_estimate_lo_median"], wc["epsilon_gdp_estimate_lo_min"], wc["epsilon_gdp_estimate_lo"])
	}
	// Determinism: another shard size (and so another split of the trials
	// over nodes) gives the same numbers.
	_, res = runSpec(t, writeSpec(t, dir, "wc2.yaml", lastIterateSpec(wcInit, "  shard_size: 37\n")), o)
	wc2 := summaryRow(t, res.Summary, 0)
	for _, c := range []string{"auc", "epsilon_lb", "epsilon_gdp_estimate_lo", "threshold"} {
		if wc2[c] != wc[c] {
			t.Errorf("%s: %v with shard size 37, %v with 64", c, wc2[c], wc[c])
		}
	}
}

// A worst-case initialisation needs held-out records: none, or more than
// the training pool holds beyond the training set, is a positioned spec
// error (exit 2) and nothing is written.
func TestLastIterateHeldOutRefused(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, c := range []struct{ held, want string }{
		{"0", "bad.yaml:13:31: audit.worst_case_init.held_out: must be >= 1, got 0"},
		// digits: 1346 training-pool records, 100 of them the training set.
		{"1247", "bad.yaml:13:31: audit.worst_case_init.held_out: invalid dataset request: digits: held-out size 1247 exceeds the 1246 training-pool examples outside the training set of 100"},
	} {
		path := writeSpec(t, dir, "bad.yaml", lastIterateSpec("  worst_case_init: {held_out: "+c.held+"}\n", ""))
		_, err := Load(path, o)
		if err == nil || !IsInputError(err) {
			t.Fatalf("held_out %s: want an input error, got %v", c.held, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("held_out %s: error %q, want %q", c.held, err, c.want)
		}
		for _, d := range []string{o.Store, o.Results} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Fatalf("%s was created", d)
			}
		}
	}
	// Where no trial trains from the crafted θ_0 it is refused, never
	// ignored.
	head := "name: li\nseed: 3\ndataset: {source: digits, train_size: 100}\nmodel: {arch: mlp, hidden: [16]}\n" +
		"dpsgd: {noise_multiplier: 3.5, sampling_rate: 1, steps: 50, delta: 1.0e-5, learning_rate: 0.3}\n"
	for _, c := range []struct{ body, want string }{
		{"crafter: {kind: constant_input}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: api_access, trials: 10, random_init: true, worst_case_init: {held_out: 100}}\n",
			"bad.yaml:8:60: audit.random_init: a fresh θ_0 per trial contradicts worst_case_init"},
		{"crafter: {kind: static_poison}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: static_poison, trials: 10, worst_case_init: {held_out: 100}}\n",
			"bad.yaml:6:17: crafter.kind: static_poison with worst_case_init is not implemented yet"},
		{"audit: {threat_model: gradient, estimator: one_run, trials: 100, worst_case_init: {held_out: 100}}\n",
			"bad.yaml:6:83: audit.worst_case_init: with estimator one_run is not implemented yet"},
		{"crafter: {kind: constant_input}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: api_access, trials: 200, stop: sequential, worst_case_init: {held_out: 100}}\n",
			"audit.worst_case_init: with stop: sequential is not implemented yet"},
	} {
		_, err := Load(writeSpec(t, dir, "bad.yaml", head+c.body), o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
