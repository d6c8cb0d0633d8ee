package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits' reproducers from the command line: each is refused at once,
// exit 2, with the position, the count, the limit and the flag.
func TestPlanRefusesSpecsBeyondTheLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	trials := write("trials.yaml", "name: t\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 20}\naudit: {threat_model: malicious_dataset, trials: 9223372036854775807}\n")
	code, _, e := cli(t, "plan", trials, "--store", filepath.Join(dir, "s"))
	if code != 2 || !strings.Contains(e, "trials.yaml:4:") || !strings.Contains(e, "audit.trials: 9223372036854775807 trials") || !strings.Contains(e, "--max-trials") {
		t.Fatalf("exit %d: %s", code, e)
	}
	grid := write("grid.yaml", "name: g\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 20}\nbound: [{kind: accountant}]\nsweep:\n  grid:\n    dpsgd.steps: {linspace: [1, 1000000, 1000000]}\n    dpsgd.noise_multiplier: {linspace: [1, 2, 1000000]}\n")
	code, _, e = cli(t, "plan", grid, "--allow-large", "--store", filepath.Join(dir, "s"))
	if code != 2 || !strings.Contains(e, "grid.yaml:5:3: sweep: expands to 1000000000000 points, more than the limit of 1000000") {
		t.Fatalf("exit %d: %s", code, e)
	}
	code, _, e = cli(t, "validate", trials, "--max-trials", "100")
	if code != 2 || !strings.Contains(e, "limit of 100 per point") {
		t.Fatalf("validate: exit %d: %s", code, e)
	}
}
