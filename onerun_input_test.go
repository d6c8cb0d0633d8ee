package dpaudit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
)

// A one-run audit with INPUT canaries (Steinke, Nasr & Jagielski 2023, §7,
// black box): audit.trials uniform-noise records with random labels, each
// in the training set with probability ½, ONE DP-SGD run, scored by the
// final model's loss. Nearly noise-free training (σ = 0.05) that claims
// σ = 20 (ε = 0.91) memorises the included canaries, and Steinke et al.'s valid bound
// from that single run refutes the claim; the honest claim is not refuted.
func TestOneRunInputCanaries(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	body := func(claim string) string {
		return `name: t
seed: 3
dataset: {source: digits, train_size: 300}
model: {arch: mlp, hidden: [128]}
dpsgd: {noise_multiplier: 0.05, sampling_rate: 0.2, steps: 600, delta: 1.0e-5, learning_rate: 1}
crafter: {kind: noise_input}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, estimator: one_run, canaries: input, trials: 200` + claim + `}
`
	}
	_, res := runSpec(t, writeSpec(t, dir, "t.yaml", body(", claim: {noise_multiplier: 20}")), o)
	r := summaryRow(t, res.Summary, 0)
	t.Logf("under-noised: ε_lb %v (%v/%v), f-DP %v, claim %v", r["epsilon_lb"], r["one_run_correct"], r["one_run_guesses"], r["one_run_fdp_epsilon_lb"], r["epsilon_accountant"])
	if r["violation"] != true || r["estimate_family"] != audit.FamilyOneRun || r["estimate_valid"] != true || r["audit_score"] != "loss" ||
		r["one_run_guesses"] != int64(20) || r["one_run_canaries"] != "input: noise_input on [0, 1], random labels" {
		t.Errorf("under-noised: violation %v family %v valid %v score %v guesses %v canaries %q (ε_lb %v, claim %v)", r["violation"], r["estimate_family"],
			r["estimate_valid"], r["audit_score"], r["one_run_guesses"], r["one_run_canaries"], r["epsilon_lb"], r["epsilon_accountant"])
	}
	// Lower loss means "included": with memorised canaries nearly every
	// guess is right (a flipped score direction would get nearly all wrong).
	if c := r["one_run_correct"].(int64); c < 18 {
		t.Errorf("%d of 20 guesses right", c)
	}
	if !(r["one_run_fdp_epsilon_lb"].(float64) >= r["epsilon_lb"].(float64)) {
		t.Errorf("f-DP %v below Steinke %v", r["one_run_fdp_epsilon_lb"], r["epsilon_lb"])
	}
	// The trial table: one row per canary with its loss before and after.
	parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "*", "*.parquet"))
	if len(parts) != 1 {
		t.Fatalf("trial parts %v", parts)
	}
	tb, err := pipeline.ReadParquet(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	if tb.Col("loss") == nil || tb.Col("initial_loss") == nil || tb.Col("canary_label") == nil || len(tb.Col("loss").Values) != 200 {
		t.Fatalf("trial table columns %v", tb.Columns)
	}
	if a := tb.Col("test_accuracy").Float(0); !(a > 0.5 && a <= 1) {
		t.Errorf("test accuracy %v", a)
	}
	_, res = runSpec(t, writeSpec(t, dir, "h.yaml", body("")), o)
	if h := summaryRow(t, res.Summary, 0); h["violation"] != false || !(h["epsilon_lb"].(float64) < h["epsilon_accountant"].(float64)) {
		t.Errorf("honest: violation %v, ε_lb %v, claim %v", h["violation"], h["epsilon_lb"], h["epsilon_accountant"])
	}
}

// Mislabelled records taken out of the training set (source train) run
// end to end, and results do not depend on -j.
func TestOneRunInputMislabeledTrain(t *testing.T) {
	dir := t.TempDir()
	spec := `name: m
seed: 5
dataset: {source: digits, classes: [0, 1], train_size: 200}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 50, delta: 1.0e-5, learning_rate: 0.5}
crafter: {kind: mislabeled_record, source: train}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, estimator: one_run, canaries: input, trials: 100, repeats: 2}
`
	var lbs []any
	for _, j := range []int{1, 2} {
		o := Options{Store: filepath.Join(dir, "store", string(rune('0'+j))), Results: filepath.Join(dir, "results"), Jobs: j}
		_, res := runSpec(t, writeSpec(t, dir, "m.yaml", spec), o)
		r := summaryRow(t, res.Summary, 0)
		if r["one_run_canaries"] != "input: mislabeled_record from the training set" || r["audit_repeats"] != int64(2) || math.IsNaN(r["epsilon_lb"].(float64)) {
			t.Fatalf("canaries %q, repeats %v, ε_lb %v", r["one_run_canaries"], r["audit_repeats"], r["epsilon_lb"])
		}
		lbs = append(lbs, r["epsilon_lb_repeats"])
	}
	if lbs[0] != lbs[1] {
		t.Errorf("-j 1 gave %v, -j 2 gave %v", lbs[0], lbs[1])
	}
}

// The white-box variant: intermediate_loss (threat model
// intermediate_poison) scores each canary by its loss over every
// intermediate model θ_1 … θ_T; the trial table holds both reductions
// (the max at least the final loss and the mean), the score is the one
// reduce names.
func TestOneRunInputIntermediateLoss(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, res := runSpec(t, writeSpec(t, dir, "w.yaml", `name: w
seed: 5
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 20, delta: 1.0e-5, learning_rate: 0.5}
crafter: {kind: noise_input}
distinguisher: {kind: intermediate_loss, reduce: mean}
audit: {threat_model: intermediate_poison, estimator: one_run, canaries: input, trials: 50}
`), o)
	if r := summaryRow(t, res.Summary, 0); r["audit_score"] != "mean_loss" || r["estimate_valid"] != true {
		t.Errorf("score %v, valid %v", r["audit_score"], r["estimate_valid"])
	}
	parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "*", "*.parquet"))
	tb, err := pipeline.ReadParquet(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	mx, mean, final := tb.Col("max_loss"), tb.Col("mean_loss"), tb.Col("loss")
	if mx == nil || mean == nil {
		t.Fatalf("columns %v", tb.Columns)
	}
	for i := range final.Values {
		if !(mx.Float(i) >= final.Float(i) && mx.Float(i) >= mean.Float(i) && mean.Float(i) > 0) {
			t.Fatalf("canary %d: max %v, mean %v, final %v", i, mx.Float(i), mean.Float(i), final.Float(i))
		}
	}
}

// Bad one-run setups are positioned spec errors at
// load time, exit code 2, nothing written.
func TestOneRunCanariesBadInput(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	head := `name: b
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: mlp, hidden: [16]}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5, delta: 1.0e-5}
`
	rec := "crafter: {kind: mislabeled_record}\ndistinguisher: {kind: loss_threshold}\n"
	in := func(rest string) string {
		return "audit: {threat_model: api_access, estimator: one_run, canaries: input" + rest + "}\n"
	}
	for _, c := range []struct{ rest, want string }{
		// m < 2 canaries: audit.trials is at least 4 for every audit.
		{rec + in(", trials: 1"), "b.yaml:8:80: audit.trials: must be >= 4, got 1"},
		// More canaries than the data holds (the digits 0/1 test split
		// has 91 records; 100 are in the training set).
		{rec + in(", trials: 92"), "b.yaml:8:80: audit.trials: 92 input canaries, but mislabeled_record gives 91 records of the pool (the test split)"},
		{"crafter: {kind: mislabeled_record, source: train}\ndistinguisher: {kind: loss_threshold}\n" + in(", trials: 100"),
			"audit.trials: 100 input canaries, but mislabeled_record gives 99 records of the training set (one must stay that is not a canary)"},
		{"audit: {threat_model: gradient, estimator: one_run, trials: 5000}\n", "b.yaml:6:61: audit.trials: the one-run audit's 5000 gradient canaries need as many parameters, the model has 1074"},
		{"audit: {threat_model: gradient, estimator: per_step, trials: 5000}\n", "audit.trials: the per-step audit's 5000 gradient canaries need as many parameters"},
		// More guesses than canaries.
		{rec + in(", trials: 100, one_run: {steinke_guesses: 101}"), "audit.one_run.steinke_guesses: 101 guesses but only 100 canaries"},
		// Per-step audits need the privatised updates.
		{"audit: {threat_model: api_access, estimator: per_step, trials: 100}\n", "audit.threat_model: the per-step audit reads every step's privatised update, which threat model api_access does not release"},
		// Input canaries: what makes and scores them.
		{in(", trials: 100"), "b.yaml:6:65: audit.canaries: input canaries need a crafter block"},
		{"crafter: {kind: mislabeled_record}\n" + in(", trials: 100"), "audit.canaries: input canaries need a distinguisher block"},
		{"crafter: {kind: constant_input}\ndistinguisher: {kind: loss_threshold}\n" + in(", trials: 100"), "b.yaml:6:17: crafter.kind: constant_input makes one record; 100 identical canaries"},
		{"crafter: {kind: gradient_canary}\ndistinguisher: {kind: loss_threshold}\n" + in(", trials: 100"), "crafter.kind: input canaries are records: use crafter random_record, mislabeled_record or noise_input, got gradient_canary"},
		{"crafter: {kind: random_record, per_trial: true}\ndistinguisher: {kind: loss_threshold}\n" + in(", trials: 100"), "crafter.per_trial: with input canaries every canary is its own record already"},
		{"crafter: {kind: noise_input}\ndistinguisher: {kind: watermark}\n" + in(", trials: 100"), "distinguisher.kind: input canaries of a one-run audit are scored by loss_threshold"},
		{"crafter: {kind: noise_input, label: 2}\ndistinguisher: {kind: loss_threshold}\n" + in(", trials: 100"), "crafter.label: label 2, the data has 2 classes"},
		{"crafter: {kind: noise_input}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: gradient, estimator: one_run, canaries: input, trials: 100}\n",
			"audit.threat_model: attack: invalid input: crafter noise_input needs observe=nothing, modify=insert_record, more than the threat model grants"},
		{rec + "audit: {threat_model: api_access, canaries: input, trials: 100}\n", "audit.canaries: input canaries (many canary records in one run) are for estimator one_run, got clopper_pearson"},
		{rec + "audit: {threat_model: gradient, estimator: one_run, trials: 100}\n", "crafter: the one-run audit of a trained model inserts its own Dirac gradient canaries (audit.trials of them): remove the crafter block, or set audit.canaries: input"},
	} {
		_, err := Load(writeSpec(t, dir, "b.yaml", head+c.rest), o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\nerror %v\nwant  %q", c.rest, err, c.want)
		}
	}
	ideal := "name: b\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5}\naudit: {threat_model: gradient, estimator: one_run, canaries: input, trials: 100}\n"
	if _, err := Load(writeSpec(t, dir, "i.yaml", ideal), o); err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "audit.canaries: input canaries are records in a training set: they need a trained model") {
		t.Errorf("ideal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("results written: %v", err)
	}
}
