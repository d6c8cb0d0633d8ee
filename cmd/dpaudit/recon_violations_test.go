package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A reconstruction attack above the ReRo bound of the claimed σ is
// reported as loudly as a membership violation, and --fail-on-violation
// ends the run with exit code 3.
func TestRunReportsReconViolation(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "v.yaml")
	os.WriteFile(spec, []byte(`name: v
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 3, sampling_rate: 1, steps: 100}
reconstruction: {attack: prior_aware, prior_size: 10, trials: 2000, claimed_noise_multiplier: 10}
`), 0o644)
	args := []string{"run", spec, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "r")}
	code, _, errs := cli(t, args...)
	if code != 0 || !strings.Contains(errs, "RECONSTRUCTION BOUND VIOLATED: 1 of 1 point(s)") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, _, _ := cli(t, append(args, "--fail-on-violation")...); code != exitViolation {
		t.Fatalf("--fail-on-violation: exit %d, want %d", code, exitViolation)
	}
}
