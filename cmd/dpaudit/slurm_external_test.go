package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An external trainer's calls run as Slurm array tasks unchanged: the
// request and the observations travel through the shared store, and the
// tables are byte-identical to a local run's. The spec, the trainer and
// the store sit under a folder whose name has a space and a quote, so
// every path on the way (the worker command in the sbatch script, the
// trainer's command, the request path) must be quoted or passed as an
// argument. The trainer is examples/external/minimal_trainer.py (numpy);
// without a python3 that imports numpy the test skips.
func TestSlurmExternalTrainer(t *testing.T) {
	needSlurm(t)
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		if os.Getenv("DPAUDIT_REQUIRE_TOOLS") == "1" {
			t.Fatal("no /usr/bin/python3 with numpy (DPAUDIT_REQUIRE_TOOLS=1)")
		}
		t.Skip("no /usr/bin/python3 with numpy (Debian: python3-numpy)")
	}
	dir := filepath.Join(t.TempDir(), "it's a dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "external", "minimal_trainer.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "my trainer.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "ext.yaml")
	body := `name: slurmext
seed: 2
dataset: {source: digits, train_size: 60, l2_ball: 0.1}
model: {arch: external}
dpsgd: {noise_multiplier: 2, sampling_rate: 0.5, steps: 4, clip_norm: 1, learning_rate: 1}
crafter: {kind: noise_input, low: 0, high: 2, label: 0}
distinguisher: {kind: loss_threshold}
trainer: {command: [` + py + `, my trainer.py], trials_per_call: 10}
audit: {threat_model: api_access, trials: 40}
`
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "ls"), "--results", filepath.Join(dir, "lr"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	args := append([]string{"run", spec, "--store", filepath.Join(dir, "ss"), "--results", filepath.Join(dir, "sr")}, slurmFast...)
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "8 computed by another process, 0 cached") {
		t.Fatalf("unexpected run:\n%s\n%s", out, errs)
	}
	sameResults(t, resultFiles(t, filepath.Join(dir, "lr", "slurmext")), resultFiles(t, filepath.Join(dir, "sr", "slurmext")))
}
