package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit"
)

// TestMain lets the test binary act as the dpaudit command, so tests can
// run it as a subprocess (and kill it) without building it.
func TestMain(m *testing.M) {
	if os.Getenv("DPAUDIT_TEST_AS_CLI") == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(args, &o, &e)
	return code, o.String(), e.String()
}

func TestAccountJSON(t *testing.T) {
	// Abadi et al. MNIST setting; reference values from dp_accounting on
	// this machine: RDP 2.596656, PLD 2.381779.
	code, out, errs := cli(t, "account", "--noise-multiplier", "1.1", "--sampling-rate", "0.004266666666666667",
		"--steps", "14063", "--delta", "1e-5", "--accountant", "rdp,pld", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Inputs  map[string]any     `json:"inputs"`
		Epsilon map[string]float64 `json:"epsilon"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Epsilon) != 2 {
		t.Fatalf("only the asked accountants: %v", got.Epsilon)
	}
	if d := got.Epsilon["rdp"] - 2.596656; d > 1e-5 || d < -1e-5 {
		t.Errorf("rdp ε = %v, want 2.596656", got.Epsilon["rdp"])
	}
	if d := got.Epsilon["pld"] - 2.381779; d > 1e-3 || d < -1e-3 {
		t.Errorf("pld ε = %v, want 2.381779 ± 1e-3", got.Epsilon["pld"])
	}
	if got.Inputs["steps"] != 14063.0 {
		t.Errorf("inputs %v", got.Inputs)
	}
}

func TestAccountFromEpochs(t *testing.T) {
	// TF-Privacy MNIST README: N = 60000, batch 256, 60 epochs, σ = 1.1 →
	// T = ceil(60·60000/256) = 14063 (Nasr et al. reference note §4).
	code, out, _ := cli(t, "account", "--noise-multiplier", "1.1", "--batch-size", "256", "--dataset-size", "60000",
		"--epochs", "60", "--accountant", "rdp", "--conversion", "classic", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var got struct {
		Inputs  map[string]any     `json:"inputs"`
		Epsilon map[string]float64 `json:"epsilon"`
	}
	json.Unmarshal([]byte(out), &got)
	if got.Inputs["steps"] != 14063.0 {
		t.Fatalf("steps %v", got.Inputs["steps"])
	}
	if d := got.Epsilon["rdp"] - 3.0084; d > 0.01 || d < -0.01 {
		t.Fatalf("classic RDP ε %v, want 3.0084 ± 0.01 (TF-Privacy README 3.01)", got.Epsilon["rdp"])
	}
}

func TestCalibrateJSON(t *testing.T) {
	// Reference: dp_accounting calibrates σ = 1.345899 for
	// ε = 8, δ = 1e-5, q = 0.04, T = 2250 with PLD (asked for by name: the
	// default is best, which may pick RDP).
	code, out, errs := cli(t, "calibrate", "--target-epsilon", "8", "--delta", "1e-5", "--sampling-rate", "0.04", "--steps", "2250", "--accountant", "pld", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		NoiseMultiplier map[string]float64 `json:"noise_multiplier"`
	}
	json.Unmarshal([]byte(out), &got)
	if len(got.NoiseMultiplier) != 1 {
		t.Fatalf("want only pld: %s", out)
	}
	if d := got.NoiseMultiplier["pld"] - 1.345899; d > 2e-3 || d < -2e-3 {
		t.Fatalf("σ = %v, want 1.345899", got.NoiseMultiplier["pld"])
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	cases := [][]string{
		{"account", "--noise-multiplier", "0", "--sampling-rate", "0.1", "--steps", "10"},
		{"account", "--noise-multiplier", "1", "--sampling-rate", "1.5", "--steps", "10"},
		{"account", "--noise-multiplier", "1", "--sampling-rate", "0.1", "--steps", "0"},
		{"account", "--noise-multiplier", "1", "--sampling-rate", "0.1", "--steps", "10", "--delta", "1"},
		{"account", "--noise-multiplier", "1", "--sampling-rate", "0.1", "--steps", "10", "--accountant", "moments"},
		{"account", "--bogus"},
		{"calibrate", "--sampling-rate", "0.1", "--steps", "10"},
		{"frobnicate"},
		{"run"},
		{"validate", "does-not-exist.yaml"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, c...)
		if code != 2 || strings.TrimSpace(errs) == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with a message", c, code, errs)
		}
	}
}

func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands {
		// Asked-for help is output: stdout, exit 0 (as git, go and curl do).
		code, out, errs := cli(t, c.name, "--help")
		if code != 0 || !strings.Contains(out, "Usage: dpaudit "+c.name) || errs != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", c.name, code, out, errs)
		}
	}
	_, out, _ := cli(t, "--help")
	if !strings.Contains(out, "3 a privacy violation") {
		t.Errorf("the usage does not list exit code 3: %q", out)
	}
	_, out, _ = cli(t, "run", "--help")
	for _, k := range dpaudit.KnownKinds {
		if !strings.Contains(out, k) {
			t.Errorf("run --help: --force does not list kind %s", k)
		}
	}
}

func TestValidateAndPlanJSON(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("name: good\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 10}\nbound: [{kind: accountant, accountants: [gdp]}]\n"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 10, extra: 1}\n"), 0o644)
	if code, out, _ := cli(t, "validate", good); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("validate good: %d %s", code, out)
	}
	code, _, errs := cli(t, "validate", good, bad)
	if code != 2 || !strings.Contains(errs, "bad.yaml:2:62: dpsgd.extra: unknown key (allowed:") {
		t.Fatalf("validate bad: %d %q", code, errs)
	}
	code, out, errs := cli(t, "plan", good, "--json", "--store", filepath.Join(dir, "store"))
	if code != 0 {
		t.Fatal(errs)
	}
	var plan struct {
		Run   int `json:"run"`
		Nodes []struct {
			Kind, Status, Reason string
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Run != 2 || len(plan.Nodes) != 2 || plan.Nodes[0].Reason != "new" || plan.Nodes[1].Kind != "summary" {
		t.Fatalf("plan %+v", plan)
	}
}

// TestCalibrateFullBatchHugeEpsilon: at q = 1, T = 115661, ε = 1e5 the
// calibration once returned σ = 6.8 (PLD's ε was +Inf below it) where 0.77
// suffices; the default (best) uses the exact GDP conversion at q = 1:
// μ = √T/σ.
func TestCalibrateFullBatchHugeEpsilon(t *testing.T) {
	code, out, errs := cli(t, "calibrate", "--target-epsilon", "1e5", "--sampling-rate", "1", "--steps", "115661", "--delta", "8.335e-7", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		NoiseMultiplier map[string]float64 `json:"noise_multiplier"`
	}
	json.Unmarshal([]byte(out), &got)
	if s := got.NoiseMultiplier["best"]; s < 0.768 || s > 0.770 {
		t.Fatalf("σ = %v, want ≈ 0.7686: %s", s, out)
	}
}

// TestDataLsSaysCorrupt: a data file that fails its
// digest is reported as corrupt, with the file and the digests, not as
// missing (which sent users to fetch a file they already had).
func TestDataLsSaysCorrupt(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mnist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mnist", "t10k-labels-idx1-ubyte"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "data", "ls", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "mnist ") {
			line = l
		}
	}
	if !strings.Contains(line, "corrupt") || strings.Contains(line, "missing") {
		t.Errorf("mnist line %q, want corrupt:\n%s", line, out)
	}
	if !strings.Contains(out, "t10k-labels-idx1-ubyte: corrupt") {
		t.Errorf("the corrupt file is not named:\n%s", out)
	}
	if !strings.Contains(out, "fashion-mnist  missing") {
		t.Errorf("an absent set must still say missing:\n%s", out)
	}
}

// plan --force accepts the kinds of every game, e.g. the GLM
// reconstruction's glm_fit, and replans the forced node and its
// dependents.
func TestPlanForceGLMFit(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := cli(t, "plan", "../../examples/guo2022/fig3-glm-attack.yaml", "--json", "--store", filepath.Join(dir, "store"), "--force", "glm_fit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var plan struct {
		Nodes []struct{ Kind, Status, Reason string } `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, n := range plan.Nodes {
		reasons[n.Kind] = n.Reason
	}
	if reasons["glm_fit"] != "forced" || reasons["glm_recon"] != "input forced" {
		t.Fatalf("plan --force glm_fit: %v", reasons)
	}
}
