package dpaudit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// tightnessFamilies are the rows examples/audit/tightness.yaml must hold
// per ε, with the headline estimate each shows and how many DP-SGD
// trainings it costs. Dropping a family from the example fails
// TestTightnessTable.
var tightnessFamilies = []struct {
	family, headline string
	runs             int64 // in the shrunk spec below
}{
	{"classic_cp", "eps_delta_cp", 40}, {"classic_cp", "eps_delta_cp", 80},
	{"classic_gdp", "gdp_fit", 40}, {"classic_gdp", "gdp_fit", 80},
	{"one_run", "one_run", 1}, {"one_run_fdp", "one_run_fdp", 1}, {"one_run_os", "one_run_order_stats", 1},
	{"per_step", "per_step_gdp", 1}, {"per_step", "per_step_gdp", 10},
	{"last_iterate_cp", "eps_delta_cp", 40}, {"last_iterate_cp", "eps_delta_cp", 80},
	{"last_iterate_gdp", "gdp_fit", 40}, {"last_iterate_gdp", "gdp_fit", 80},
}

// The tightness comparison, shrunk to seconds: the example spec itself,
// on the embedded digits instead of MNIST (64 + 1 logistic-regression
// parameters, so 60 canaries), 200 steps, ε = 4 only and 40/80 classic
// trials, 60 held-out records for the last iterate's θ_0. Every family gives one row with the headline columns filled
// alike, its training count and a measured CPU time, and the figure is
// drawn.
func TestTightnessTable(t *testing.T) {
	src, err := os.ReadFile("examples/audit/tightness.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, r := range []struct {
		old, new string
		n        int
	}{
		{"source: mnist", "source: digits", 1},
		{"train_size: 1000", "train_size: 200", 1},
		{"steps: 1000", "steps: 200", 1},
		{"target_epsilon: [1, 2, 4, 8, 10]", "target_epsilon: [4]", 1},
		// digits has 69 training-pool records outside 200 training ones.
		{"{held_out: 5000}", "{held_out: 60}", 4},
	} {
		if c := strings.Count(s, r.old); c != r.n {
			t.Fatalf("the example has %d × %q, want %d: update this test with the example", c, r.old, r.n)
		}
		s = strings.ReplaceAll(s, r.old, r.new)
	}
	// The zip's trial counts: 10³ → 40, 10⁴ → 80 classic trials, 784 → 60
	// canaries.
	lines := strings.Split(s, "\n")
	found := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "audit.trials:") {
			found = true
			lines[i] = strings.NewReplacer("10000,", "80,", "10000]", "80]", "1000,", "40,", "784,", "60,", "784]", "60]").Replace(l)
		}
	}
	if !found {
		t.Fatal("the example's zip has no audit.trials: update this test with the example")
	}
	s = strings.Join(lines, "\n")
	// The example's expect block names points of the full sweep, which
	// this shrunk copy no longer has.
	if i := strings.Index(s, "\nexpect:\n"); i >= 0 {
		s = s[:i+1]
	}
	dir := t.TempDir()
	_, res := runSpec(t, writeSpec(t, dir, "tightness.yaml", s), Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	tb, err := pipeline.ReadParquet(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows() != len(tightnessFamilies) {
		t.Fatalf("%d rows, want one per family and compute level: %d", tb.Rows(), len(tightnessFamilies))
	}
	for _, c := range []string{"family", "target_epsilon", "epsilon_accountant", "headline_family", "headline_claim", "headline_valid",
		"headline_epsilon_lb", "headline_epsilon_point", "headline_epsilon_hi", "headline_ratio", "audit_training_runs", "audit_cpu_seconds"} {
		if tb.Col(c) == nil {
			t.Fatalf("no column %s", c)
		}
	}
	for i, want := range tightnessFamilies {
		r := summaryRow(t, res.Summary, i)
		if r["family"] != want.family || r["headline_family"] != want.headline || r["audit_training_runs"] != want.runs {
			t.Errorf("row %d: family %v headline %v runs %v, want %v %v %v", i, r["family"], r["headline_family"], r["audit_training_runs"], want.family, want.headline, want.runs)
			continue
		}
		lb, acc, ratio := r["headline_epsilon_lb"].(float64), r["epsilon_accountant"].(float64), r["headline_ratio"].(float64)
		cpu, _ := r["audit_cpu_seconds"].(float64)
		t.Logf("%-12s %-20s runs %3d  ε_lb %.3f / %.3f = %.3f  valid %v  CPU %.2f s  (%v)", want.family, want.headline, want.runs, lb, acc, ratio, r["headline_valid"], cpu, r["headline_claim"])
		if math.Abs(acc-4) > 0.01 || !(cpu > 0) {
			t.Errorf("%s: accountant ε %v (want 4), CPU %v s", want.family, acc, cpu)
		}
		if strings.HasPrefix(want.family, "last_iterate") && r["init_held_out"] != int64(60) {
			t.Errorf("%s: init_held_out %v, want 60: the last iterate must start from the worst-case θ_0", want.family, r["init_held_out"])
		}
		if want.headline == "one_run_order_stats" {
			// T = 200 steps at q = 0.01: no order-statistics family.
			if !math.IsNaN(lb) || r["headline_valid"] != false {
				t.Errorf("order statistics: ε_lb %v valid %v, want NaN, false", lb, r["headline_valid"])
			}
			continue
		}
		if !(lb >= 0 && lb < acc) || math.Abs(ratio-lb/acc) > 1e-12 || r["headline_valid"] != true || r["headline_claim"] == "" {
			t.Errorf("%s: ε_lb %v, ratio %v, valid %v, claim %q", want.family, lb, ratio, r["headline_valid"], r["headline_claim"])
		}
	}
	// The two GDP rows are the classic rows' own trials: equal work.
	cp, gdp := summaryRow(t, res.Summary, 1), summaryRow(t, res.Summary, 3)
	if cp["epsilon_gdp_estimate_lo"] != gdp["headline_epsilon_lb"] || cp["audit_cpu_seconds"] != gdp["audit_cpu_seconds"] {
		t.Errorf("GDP row %v (CPU %v) is not the classic row's fit %v (CPU %v)", gdp["headline_epsilon_lb"], gdp["audit_cpu_seconds"], cp["epsilon_gdp_estimate_lo"], cp["audit_cpu_seconds"])
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "figures", "ratio-vs-compute.png")); err != nil {
		t.Errorf("figure: %v", err)
	}
}

// audit.headline must name an estimate the estimator makes; a sweep over
// families must not leave the classic game's blocks on a one-run point.
func TestHeadlineBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"audit: {threat_model: gradient, estimator: one_run, trials: 50, headline: gdp_fit}\n",
			"h.yaml:5:75: audit.headline: estimator one_run does not make a gdp_fit estimate; it offers one_run, one_run_fdp, one_run_order_stats"},
		{"audit: {threat_model: gradient, trials: 50, headline: per_step_gdp}\ncrafter: {kind: gradient_canary}\ndistinguisher: {kind: watermark}\n",
			"audit.headline: estimator clopper_pearson does not make a per_step_gdp estimate; it offers eps_delta_cp, gdp_fit"},
		{"audit: {threat_model: gradient, trials: 50}\ncrafter: {kind: gradient_canary}\ndistinguisher: {kind: watermark}\nsweep: {zip: {audit.estimator: [clopper_pearson, one_run]}}\n",
			"crafter: the one-run audit of a trained model inserts its own Dirac gradient canaries"},
		{"audit: {threat_model: gradient, trials: 50}\nsweep: {zip: {audit.estimator: [clopper_pearson, one_run], crafter: [null, null]}}\n",
			"audit: an audit of a trained model needs a crafter block"},
	} {
		path := writeSpec(t, dir, "h.yaml", `name: h
dataset: {source: digits, classes: [0, 1], train_size: 100}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
`+c.body)
		_, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
}
