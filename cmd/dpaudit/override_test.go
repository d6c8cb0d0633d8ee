package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const overrideSpec = `name: ovr
dpsgd:
  noise_multiplier: 1.0
  sampling_rate: 0.01
  steps: 100
bound:
  - kind: accountant
    accountants: [rdp]
sweep:
  grid:
    dpsgd.steps: [100, 200]
`

// -s sets a key over the file: run records it in the manifest, the points
// it changes are new nodes (plan says run), and validate reports a bad
// value with the override named and exit code 2.
func TestOverrideFlag(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "ovr.yaml")
	os.WriteFile(specPath, []byte(overrideSpec), 0o644)
	store, results := filepath.Join(dir, "store"), filepath.Join(dir, "results")
	common := []string{specPath, "--store", store, "--results", results}

	if code, _, errs := cli(t, append([]string{"run"}, common...)...); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := cli(t, append([]string{"plan", "-s", "dpsgd.noise_multiplier=1.3", "--set", "sweep.grid.dpsgd.steps=[100]"}, common...)...)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "1 point(s), 2 node(s): 2 to run, 0 cached") {
		t.Fatalf("an overridden σ must make new points:\n%s", out)
	}
	if code, _, errs := cli(t, append([]string{"run", "-s", "dpsgd.noise_multiplier=1.3"}, common...)...); code != 0 {
		t.Fatal(errs)
	}
	b, err := os.ReadFile(filepath.Join(results, "ovr", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Spec struct {
			Overrides []string `json:"overrides"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Spec.Overrides) != 1 || m.Spec.Overrides[0] != "dpsgd.noise_multiplier=1.3" {
		t.Fatalf("manifest overrides %v (%v)", m.Spec.Overrides, err)
	}

	code, _, errs = cli(t, "validate", specPath, "-s", "dpsgd.steps=0")
	if code != exitInput || !strings.Contains(errs, "ovr.yaml (-s dpsgd.steps=0): dpsgd.steps: must be >= 1, got 0") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
