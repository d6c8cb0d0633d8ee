package dpaudit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/external"
	"github.com/dpaudit/dpaudit/pipeline"
)

// The test binary doubles as a trivial external trainer: with
// DPAUDIT_FAKE_TRAINER set it reads the request named by its last
// argument and writes scores without training, honest (independent of
// the world) or leaky (the world shows in the score), or one of the
// mistakes a real trainer makes.
func TestMain(m *testing.M) {
	if mode := os.Getenv("DPAUDIT_FAKE_TRAINER"); mode != "" {
		if err := fakeTrainer(mode, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, "fake trainer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeTrainer(mode, reqPath string) error {
	b, err := os.ReadFile(reqPath)
	if err != nil {
		return err
	}
	var req external.Request
	if err := json.Unmarshal(b, &req); err != nil {
		return err
	}
	switch mode {
	case "exit":
		for i := range 30 {
			fmt.Fprintf(os.Stderr, "log line %d\n", i)
		}
		return errors.New("CUDA out of memory")
	case "sleep":
		time.Sleep(time.Minute)
	case "refuse":
		return os.WriteFile(filepath.Join(req.Output, external.RefusalFile), []byte("white-box scores need a hook this trainer lacks"), 0o644)
	case "none":
		return nil
	}
	used := req.DPSGD
	if mode == "mismatch" {
		used.NoiseMultiplier /= 2
	}
	hb, _ := json.Marshal(used)
	if err := os.WriteFile(filepath.Join(req.Output, external.HyperparametersFile), hb, 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	steps, stepCol := 1, ""
	if external.PerStep(req.Report) {
		steps, stepCol = req.DPSGD.Steps, ",step"
	}
	fmt.Fprintf(&sb, "trial,canary%s,score\n", stepCol)
	for k, t := range req.Trials {
		m := 1
		if req.Game == external.GameOneRun {
			m = req.Canaries.Count
		}
		r := rand.New(rand.NewPCG(t.Seed, 1))
		for j := range m {
			in := (t.World != nil && *t.World == 1) || (t.Include != nil && t.Include[j])
			for step := range steps {
				key := fmt.Sprintf("%d,%d", t.Trial, j)
				if stepCol != "" {
					key += fmt.Sprintf(",%d", step)
				}
				s := fakeScore(req, r, mode == "leaky" && in)
				switch {
				case mode == "nan" && k == 1:
					fmt.Fprintf(&sb, "%s,NaN\n", key)
					continue
				case mode == "missing" && k == 1:
					continue
				case mode == "unknown" && k == 1:
					fmt.Fprintf(&sb, "%d,%d,%g\n", t.Trial, j+m, s)
					continue
				case mode == "extra" && k == 1:
					fmt.Fprintf(&sb, "%d,%d,%g\n", t.Trial+100000, j, s)
				}
				fmt.Fprintf(&sb, "%s,%g\n", key, s)
			}
		}
	}
	return os.WriteFile(filepath.Join(req.Output, "observations.csv"), []byte(sb.String()), 0o644)
}

// fakeScore is one score of the fake trainer: a loss around 2 (lower by
// three standard deviations when leaky), or a step's projected update,
// N(0, (σC)²) plus 3σC when leaky.
func fakeScore(req external.Request, r *rand.Rand, leak bool) float64 {
	if req.Report == external.ReportStepProjection {
		sd := req.DPSGD.NoiseMultiplier * req.DPSGD.ClipNorm
		s := sd * r.NormFloat64()
		if leak {
			s += 3 * sd
		}
		return s
	}
	s := 2 + r.NormFloat64()
	if leak {
		s -= 3
	}
	return s
}

// externalSpec is a classic audit of the fake trainer in mode.
func externalSpec(mode, extra string) string {
	exe, _ := os.Executable()
	return fmt.Sprintf(`name: ext
seed: 5
dataset: {source: digits, train_size: 200}
model: {arch: external, params: {hidden: 8}}
dpsgd: {noise_multiplier: 3, sampling_rate: 0.1, steps: 10, delta: 1.0e-5}
crafter: {kind: mislabeled_record}
distinguisher: {kind: loss_threshold}
trainer: {command: [%q], env: {DPAUDIT_FAKE_TRAINER: %s}, trials_per_call: 16%s}
audit: {threat_model: api_access, trials: 200, shard_size: 0}
`, exe, mode, extra)
}

// TestExternalTrainerClassic: an honest trainer (scores independent of
// the world) raises no violation, a leaky one (the canary's loss drops by
// three standard deviations when it is in) does; the trials table holds
// the trainer's scores in trial order with the world of trial i = i mod 2;
// the result does not depend on trials_per_call.
func TestExternalTrainerClassic(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, res := runSpec(t, writeSpec(t, dir, "honest.yaml", externalSpec("honest", "")), o)
	r := summaryRow(t, res.Summary, 0)
	if r["violation"] != false || r["estimate_valid"] != true || r["audit_score"] != "loss" {
		t.Errorf("honest: violation %v valid %v score %v (ε_lb %v)", r["violation"], r["estimate_valid"], r["audit_score"], r["epsilon_lb"])
	}
	_, res = runSpec(t, writeSpec(t, dir, "leaky.yaml", externalSpec("leaky", "")), o)
	r = summaryRow(t, res.Summary, 0)
	if r["violation"] != true || r["estimate_valid"] != true {
		t.Errorf("leaky: violation %v valid %v (ε_lb %v, claim %v)", r["violation"], r["estimate_valid"], r["epsilon_lb"], r["epsilon_accountant"])
	}
	lb := r["epsilon_lb"]
	parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "*", "*.parquet"))
	if len(parts) == 0 {
		t.Fatal("no trials parts")
	}
	tb, err := pipeline.ReadParquet(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	if tb.Col("loss") == nil || tb.Col("world").Values[1] != int64(1) || tb.Col("trial").Values[1] != int64(1) {
		t.Fatalf("trials table %v", tb.Columns)
	}
	// Another call size: other nodes, the same estimate.
	o2 := o
	o2.Store = filepath.Join(dir, "store2")
	_, res = runSpec(t, writeSpec(t, dir, "leaky.yaml", strings.Replace(externalSpec("leaky", ""), "trials_per_call: 16", "trials_per_call: 50", 1)), o2)
	if got := summaryRow(t, res.Summary, 0)["epsilon_lb"]; got != lb {
		t.Errorf("trials_per_call 50: ε_lb %v, with 16: %v", got, lb)
	}
}

// TestExternalTrainerOneRun: the one-run game through the protocol: one
// call, audit.trials canaries each in by its bit, the leaky trainer
// refutes the claim and the honest one does not.
func TestExternalTrainerOneRun(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	body := func(mode string) string {
		s := strings.Replace(externalSpec(mode, ""), "crafter: {kind: mislabeled_record}", "crafter: {kind: noise_input}", 1)
		return strings.Replace(s, "trials: 200, shard_size: 0", "trials: 200, estimator: one_run, canaries: input", 1)
	}
	for _, c := range []struct {
		mode      string
		violation bool
	}{{"honest", false}, {"leaky", true}} {
		_, res := runSpec(t, writeSpec(t, dir, c.mode+".yaml", body(c.mode)), o)
		r := summaryRow(t, res.Summary, 0)
		if r["violation"] != c.violation || r["estimate_valid"] != true || r["estimate_family"] != "one_run" {
			t.Errorf("%s: violation %v valid %v family %v (ε_lb %v)", c.mode, r["violation"], r["estimate_valid"], r["estimate_family"], r["epsilon_lb"])
		}
	}
}

// TestExternalTrainerPerStep: the classic game over per-step reports —
// every step's projected update (threat model gradient, watermark) and
// the losses of every intermediate model (intermediate_poison) — and the
// one-run game over intermediate losses: a leaky trainer refutes the
// claim, an honest one does not, and the trials table holds the
// distinguisher's scores.
func TestExternalTrainerPerStep(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, c := range []struct{ name, threat, dist, audit, score string }{
		{"gradient", "gradient", "{kind: watermark}", "", "llr"},
		{"intermediate", "intermediate_poison", "{kind: intermediate_loss, reduce: mean}", "", "mean_loss"},
		{"onerun", "intermediate_poison", "{kind: intermediate_loss}", ", estimator: one_run, canaries: input", "max_loss"},
	} {
		for _, mode := range []string{"honest", "leaky"} {
			body := strings.Replace(externalSpec(mode, ""), "api_access", c.threat, 1)
			body = strings.Replace(body, "{kind: loss_threshold}", c.dist, 1)
			body = strings.Replace(body, "shard_size: 0", "shard_size: 0"+c.audit, 1)
			if c.audit != "" {
				body = strings.Replace(body, "{kind: mislabeled_record}", "{kind: noise_input}", 1)
			}
			_, res := runSpec(t, writeSpec(t, dir, c.name+mode+".yaml", body), o)
			r := summaryRow(t, res.Summary, 0)
			if r["violation"] != (mode == "leaky") || r["estimate_valid"] != true || r["audit_score"] != c.score {
				t.Errorf("%s %s: violation %v valid %v score %v (ε_lb %v)", c.name, mode, r["violation"], r["estimate_valid"], r["audit_score"], r["epsilon_lb"])
			}
		}
	}
}

// TestExternalTrainerSequential: a sequential audit through the protocol
// (the classic game's calls, gated look by look): the leaky trainer's
// audit stops at an early look with a violation, and the calls after it
// run no trainer; the honest one uses the whole budget without one.
func TestExternalTrainerSequential(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, mode := range []string{"honest", "leaky"} {
		body := strings.Replace(externalSpec(mode, ""), "trials: 200, shard_size: 0", "trials: 800, stop: sequential, sequential: {first_look: 100}", 1)
		_, res := runSpec(t, writeSpec(t, dir, mode+".yaml", body), o)
		r := summaryRow(t, res.Summary, 0)
		used := r["sequential_trials_used"]
		t.Logf("%s: violation %v, %v trials used, ε_lb %v", mode, r["violation"], used, r["epsilon_lb"])
		if r["violation"] != (mode == "leaky") || r["estimate_valid"] != true {
			t.Errorf("%s: violation %v valid %v", mode, r["violation"], r["estimate_valid"])
		}
		if (mode == "leaky") != (used.(int64) < 800) {
			t.Errorf("%s: %v trials used of 800", mode, used)
		}
	}
}

// TestExternalTrainerInputsKey: the files trainer.inputs names are in the
// calls' cache key — editing one trains again, editing a file it does not
// name does not — and a pattern that matches nothing is a positioned
// spec error.
func TestExternalTrainerInputsKey(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, f := range []string{"helper.py", "notes.txt"} {
		writeSpec(t, dir, f, "v1\n")
	}
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSpec(t, dir, "lib/util.py", "v1\n")
	path := writeSpec(t, dir, "s.yaml", externalSpec("honest", ", inputs: [helper.py, lib]"))
	runSpec(t, path, o)
	cached := func() (hit, all int) {
		p, err := Load(path, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range p.Compiled.Graph.Nodes() {
			if n.Kind == "external_call" {
				all++
				if p.Store.Has(n.Key()) {
					hit++
				}
			}
		}
		return hit, all
	}
	if hit, all := cached(); hit != all || all == 0 {
		t.Fatalf("after the run %d of %d calls cached", hit, all)
	}
	writeSpec(t, dir, "notes.txt", "v2\n")
	if hit, all := cached(); hit != all {
		t.Errorf("an unrelated file changed: %d of %d calls cached, want all", hit, all)
	}
	for _, f := range []string{"helper.py", "lib/util.py"} {
		writeSpec(t, dir, f, "v2\n")
		if hit, _ := cached(); hit != 0 {
			t.Errorf("%s changed: %d calls still cached, want none", f, hit)
		}
		writeSpec(t, dir, f, "v1\n")
	}
	_, err := Load(writeSpec(t, dir, "typo.yaml", externalSpec("honest", ", inputs: [helpr.py]")), o)
	if err == nil || !strings.Contains(err.Error(), "trainer.inputs") || !strings.Contains(err.Error(), `"helpr.py" matches no file`) {
		t.Errorf("a pattern matching nothing: %v", err)
	}
}

// TestExternalTrainerBadInput: every mistake of a trainer is an input
// error naming the call and its trials, nothing of the failed call is
// cached, and the calls that finished stay cached.
func TestExternalTrainerBadInput(t *testing.T) {
	for _, c := range []struct{ mode, extra, want string }{
		{"exit", "", "the last 20 lines of its output"},
		{"sleep", ", timeout: 1", "ran past its timeout of 1s"},
		{"refuse", "", "cannot serve this request"},
		{"none", "", "without writing a table"},
		{"nan", "", "is not finite"},
		{"missing", "", "is missing"},
		{"extra", "", "is not in this call"},
		{"unknown", "", "unknown canary id 1"},
		{"mismatch", "", "noise_multiplier 1.5 (requested 3)"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 1}
			p, err := Load(writeSpec(t, dir, "s.yaml", externalSpec(c.mode, c.extra)), o)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Execute(t.Context(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "call 0 (trials 0–15") {
				t.Errorf("error %v", err)
			}
			if c.mode == "exit" && (!strings.Contains(msg, "log line 29") || strings.Contains(msg, "log line 9\n") || !strings.Contains(msg, "request.json")) {
				t.Errorf("stderr tail: %v", err)
			}
			for _, n := range p.Compiled.Graph.Nodes() {
				switch {
				case n.Kind == "external_call" && p.Store.Has(n.Key()):
					t.Errorf("a failed call was cached: %s", n.Label)
				case (n.Kind == "external_data" || n.Kind == "external_canaries") && !p.Store.Has(n.Key()):
					t.Errorf("a finished node was not kept: %s", n.Label)
				}
			}
		})
	}
}

// torchPython finds a python3 that imports numpy, torch and functorch
// (PATH's first, then Debian's /usr/bin/python3) and puts its folder first
// in PATH, so the example specs' [python3, torch_dpsgd.py] run it; without
// one the test skips, and fails under DPAUDIT_REQUIRE_TOOLS=1.
func torchPython(t *testing.T) {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import numpy, torch, functorch").Run() == nil {
			t.Setenv("PATH", filepath.Dir(path)+string(os.PathListSeparator)+os.Getenv("PATH"))
			return
		}
	}
	msg := "no python3 with numpy, torch and functorch (Debian: apt-get install python3-torch; scripts/ci-deps.sh installs it)"
	if os.Getenv("DPAUDIT_REQUIRE_TOOLS") == "1" {
		t.Fatal(msg + " (DPAUDIT_REQUIRE_TOOLS=1)")
	}
	t.Skip(msg)
}

// TestExternalTorchTrainer audits examples/external/torch_dpsgd.py, DP-SGD
// in PyTorch, through the protocol: the honest trainer raises no
// violation, each planted bug a valid one. The margins this machine
// printed (torch-honest.yaml): p-values 6.2e-04 (clip_after_sum) and
// 1.0e-03 (noise_unscaled), 3.3e-07 (unnoised_bias) against α = 0.05; the honest trainer's ε_lb 0
// against a claim of 1.034. Two calls of 100 trials per spec (torch
// imports twice), about 10 s of CPU each; and the numpy-only minimal
// trainer of docs/external-trainers.md, honest.
func TestExternalTorchTrainer(t *testing.T) {
	torchPython(t)
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, c := range []struct {
		spec      string
		violation bool
	}{{"torch-honest.yaml", false}, {"torch-clip-after-sum.yaml", true}, {"torch-noise-unscaled.yaml", true},
		{"torch-unnoised-bias.yaml", true}, {"minimal.yaml", false}} {
		_, res := runSpec(t, filepath.Join("examples", "external", c.spec), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s: ε_lb %v, AUC %v, p %v, claim %v", c.spec, r["epsilon_lb"], r["auc"], r["violation_p_value"], r["epsilon_accountant"])
		if r["violation"] != c.violation || r["estimate_valid"] != true {
			t.Errorf("%s: violation %v valid %v (ε_lb %v, claim %v)", c.spec, r["violation"], r["estimate_valid"], r["epsilon_lb"], r["epsilon_accountant"])
		}
	}
}

// TestExternalTorchPerStep: torch_dpsgd.py serves the per-step reports.
// On torch-honest.yaml's and torch-noise-unscaled.yaml's configurations
// (200 trials of 10 steps), audited white box (every step's update
// projected on the canary's gradient, the watermark's LLR) and through the
// losses of every intermediate model: the honest trainer raises no
// violation, the one whose noise ignores C (C = 20) a valid one.
func TestExternalTorchPerStep(t *testing.T) {
	torchPython(t)
	dir := t.TempDir()
	abs, err := filepath.Abs(filepath.Join("examples", "external"))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, c := range []struct {
		spec, threat, dist, score string
		violation                 bool
	}{
		{"torch-honest.yaml", "gradient", "{kind: watermark}", "llr", false},
		{"torch-noise-unscaled.yaml", "gradient", "{kind: watermark}", "llr", true},
		{"torch-honest.yaml", "intermediate_poison", "{kind: intermediate_loss}", "max_loss", false},
	} {
		b, err := os.ReadFile(filepath.Join(abs, c.spec))
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(b), "trainer:\n", fmt.Sprintf("trainer:\n  workdir: %q\n", abs), 1)
		body = strings.Replace(body, "threat_model: api_access", "threat_model: "+c.threat, 1)
		body = strings.Replace(body, "{kind: loss_threshold}", c.dist, 1)
		_, res := runSpec(t, writeSpec(t, dir, c.threat+"-"+c.spec, body), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s %s: ε_lb %v, AUC %v, p %v, claim %v", c.spec, c.threat, r["epsilon_lb"], r["auc"], r["violation_p_value"], r["epsilon_accountant"])
		if r["violation"] != c.violation || r["estimate_valid"] != true || r["audit_score"] != c.score {
			t.Errorf("%s %s: violation %v valid %v score %v (ε_lb %v, claim %v)", c.spec, c.threat, r["violation"], r["estimate_valid"], r["audit_score"], r["epsilon_lb"], r["epsilon_accountant"])
		}
	}
}

// TestExternalTorchShuffleBatches audits torch_dpsgd.py's shuffled epochs
// accounted as Poisson (examples/external/torch-shuffle-batches.yaml) and
// the honest trainer on the same audit (torch-shuffle-honest.yaml): 8000
// trials of 20 white-box steps on a dataset of 100 identical records whose
// clipped gradients are the canary's reversed, so that a fixed-size batch
// holding the canary stands out. The shuffled trainer must raise a valid
// violation, the honest one none. About 6 minutes of CPU per spec, so it
// runs only when asked for, like the long examples:
// DPAUDIT_EXAMPLES=long go test -run TestExternalTorchShuffleBatches .
// (the spec's comment has the numbers this machine printed).
func TestExternalTorchShuffleBatches(t *testing.T) {
	if m := os.Getenv("DPAUDIT_EXAMPLES"); m != "long" && m != "all" {
		t.Skip("8000 PyTorch trials per spec: set DPAUDIT_EXAMPLES=long")
	}
	torchPython(t)
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, c := range []struct {
		spec      string
		violation bool
	}{{"torch-shuffle-batches.yaml", true}, {"torch-shuffle-honest.yaml", false}} {
		_, res := runSpec(t, filepath.Join("examples", "external", c.spec), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s: ε_lb %v, AUC %v, p %v, claim %v", c.spec, r["epsilon_lb"], r["auc"], r["violation_p_value"], r["epsilon_accountant"])
		if r["violation"] != c.violation || r["estimate_valid"] != true {
			t.Errorf("%s: violation %v valid %v (ε_lb %v, claim %v)", c.spec, r["violation"], r["estimate_valid"], r["epsilon_lb"], r["epsilon_accountant"])
		}
	}
}

// TestExternalTorchMatchesGo audits the same configuration trained by
// dpaudit's Go trainer and by torch_dpsgd.py (examples/external/crosscheck-
// *.yaml, 400 trials each): two independent implementations of DP-SGD
// must leak alike. Their GDP μ intervals (95%) must overlap and their AUCs
// differ by less than 0.15 (four standard deviations of the difference of
// two AUCs of 400 trials near 0.7). This machine printed AUC 0.698 and
// 0.686175, μ 0.752 [0.288, 1.223] and 0.522 [0.104, 0.943]. (A trial's
// seeds derive from the point's key, which holds the trainer script's
// SHA-256: an edited torch_dpsgd.py draws other seeds and prints other
// numbers, within these intervals.)
func TestExternalTorchMatchesGo(t *testing.T) {
	torchPython(t)
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	var rows []map[string]any
	for _, spec := range []string{"crosscheck-go.yaml", "crosscheck-torch.yaml"} {
		_, res := runSpec(t, filepath.Join("examples", "external", spec), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s: AUC %v, μ %v [%v, %v], ε_lb %v", spec, r["auc"], r["gdp_mu"], r["gdp_mu_lo"], r["gdp_mu_hi"], r["epsilon_lb"])
		rows = append(rows, r)
	}
	g, p := rows[0], rows[1]
	if g["gdp_mu_lo"].(float64) > p["gdp_mu_hi"].(float64) || p["gdp_mu_lo"].(float64) > g["gdp_mu_hi"].(float64) {
		t.Errorf("GDP μ intervals do not overlap: Go [%v, %v], PyTorch [%v, %v]", g["gdp_mu_lo"], g["gdp_mu_hi"], p["gdp_mu_lo"], p["gdp_mu_hi"])
	}
	if d := g["auc"].(float64) - p["auc"].(float64); d > 0.15 || d < -0.15 {
		t.Errorf("AUC Go %v, PyTorch %v", g["auc"], p["auc"])
	}
	// The same pair under intermediate_poison: both trainers' losses of
	// every intermediate model, reduced by their max (dpaudit's
	// intermediate_loss distinguisher on its own trainer's models, and on
	// the losses torch_dpsgd.py reports per step). This machine printed
	// AUC 0.70655 and 0.631775, μ 0.574 [0.164, 0.985] and 0.313 [0, 0.769].
	abs, err := filepath.Abs(filepath.Join("examples", "external"))
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[:0]
	for _, spec := range []string{"crosscheck-go.yaml", "crosscheck-torch.yaml"} {
		b, err := os.ReadFile(filepath.Join(abs, spec))
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(b), "trainer: {", fmt.Sprintf("trainer: {workdir: %q, ", abs), 1)
		body = strings.Replace(body, "threat_model: api_access", "threat_model: intermediate_poison", 1)
		body = strings.Replace(body, "{kind: loss_threshold}", "{kind: intermediate_loss}", 1)
		_, res := runSpec(t, writeSpec(t, dir, "intermediate-"+spec, body), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s, intermediate models: AUC %v, μ %v [%v, %v], ε_lb %v", spec, r["auc"], r["gdp_mu"], r["gdp_mu_lo"], r["gdp_mu_hi"], r["epsilon_lb"])
		if r["audit_score"] != "max_loss" {
			t.Errorf("%s: score %v, want max_loss", spec, r["audit_score"])
		}
		rows = append(rows, r)
	}
	g, p = rows[0], rows[1]
	if g["gdp_mu_lo"].(float64) > p["gdp_mu_hi"].(float64) || p["gdp_mu_lo"].(float64) > g["gdp_mu_hi"].(float64) {
		t.Errorf("intermediate models: GDP μ intervals do not overlap: Go [%v, %v], PyTorch [%v, %v]", g["gdp_mu_lo"], g["gdp_mu_hi"], p["gdp_mu_lo"], p["gdp_mu_hi"])
	}
	if d := g["auc"].(float64) - p["auc"].(float64); d > 0.15 || d < -0.15 {
		t.Errorf("intermediate models: AUC Go %v, PyTorch %v", g["auc"], p["auc"])
	}
	// The one-run game: one under-noised run (σ 0.05, claimed 20) of each
	// trainer with 200 canaries; both must refute the claim with nearly
	// every guess right (this machine: 20 of 20 each, ε_lb 1.817 against
	// a claim of 1.362).
	for _, spec := range []string{"onerun-go.yaml", "onerun-torch.yaml"} {
		_, res := runSpec(t, filepath.Join("examples", "external", spec), o)
		r := summaryRow(t, res.Summary, 0)
		t.Logf("%s: %v of %v right, ε_lb %v, f-DP %v", spec, r["one_run_correct"], r["one_run_guesses"], r["epsilon_lb"], r["one_run_fdp_epsilon_lb"])
		if r["violation"] != true || r["estimate_valid"] != true || r["one_run_correct"].(int64) < 18 {
			t.Errorf("%s: violation %v valid %v, %v of %v right", spec, r["violation"], r["estimate_valid"], r["one_run_correct"], r["one_run_guesses"])
		}
	}
}
