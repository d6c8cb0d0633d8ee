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

// A membership violation names what was measured against the claim, what
// was claimed and what was trained, and the family-wise correction.
func TestRunReportsMembershipViolation(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "bug.yaml")
	os.WriteFile(spec, []byte(`name: bug
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.6, sampling_rate: 1, steps: 4}
audit: {threat_model: gradient, trials: 2000, claimed_noise_multiplier: 6}
`), 0o644)
	code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "r"))
	for _, want := range []string{"PRIVACY VIOLATION: 1 of 1 point(s) of bug break their claimed guarantee", "empirical ε lower bound",
		"    claimed: ", "σ=6,", "    trained: σ=0.6,", "family-wise correction: ", "Trials: "} {
		if code != 0 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errs)
		}
	}
}
