package spec

import (
	"strings"
	"testing"
)

const overrideBase = `name: quick
vars:
  epochs: 2
dpsgd:
  noise_multiplier: 1.1
  sampling_rate: 0.01
  steps: "=epochs * 100"
bound:
  - kind: accountant
sweep:
  grid:
    dpsgd.noise_multiplier: [1, 2]
    epochs: [1, 2, 3]
`

// An override replaces the file's value, a bare variable name sets vars,
// and a swept key that is overridden takes that one value (and stays a
// column).
func TestOverridesSetValues(t *testing.T) {
	pts, cols, err := expand(t, overrideBase, Options{Overrides: []string{"dpsgd.noise_multiplier=1.5", "dpsgd.delta=1e-6", "epochs=4"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || len(cols) != 3 { // σ and epochs swept once, steps derived
		t.Fatalf("got %d points, %d columns (%v); want one point, three columns", len(pts), len(cols), cols)
	}
	d := pts[0].Exp.DPSGD
	if d.NoiseMultiplier != 1.5 || d.Delta != 1e-6 || d.Steps != 400 {
		t.Fatalf("overrides not applied: σ %v δ %v steps %v", d.NoiseMultiplier, d.Delta, d.Steps)
	}
}

// sweep.grid.KEY takes the rest of the key whole, so a dotted sweep key
// can be overridden; the values are YAML.
func TestOverrideSweepAxis(t *testing.T) {
	pts, _, err := expand(t, overrideBase, Options{Overrides: []string{"sweep.grid.dpsgd.noise_multiplier=[0.5, 0.7, 0.9, 1.1]"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("got %d points, want 4 σ × 3 epochs", len(pts))
	}
	if pts[0].Exp.DPSGD.NoiseMultiplier != 0.5 {
		t.Fatalf("first σ = %v", pts[0].Exp.DPSGD.NoiseMultiplier)
	}
}

// An override changes the identity of the points it changes, and only
// when it changes the resolved value.
func TestOverridesArePartOfPointIdentity(t *testing.T) {
	id := func(overrides ...string) string {
		pts, _, err := expand(t, base, Options{Overrides: overrides})
		if err != nil {
			t.Fatal(err)
		}
		return pts[0].ID
	}
	plain, changed, same := id(), id("dpsgd.noise_multiplier=1.2"), id("dpsgd.noise_multiplier=1.1")
	if plain == changed {
		t.Fatal("an override that changes σ kept the point's ID")
	}
	if plain != same {
		t.Fatal("an override equal to the file's value changed the point's ID")
	}
}

// Overridden values are validated like the file, and the errors name the
// override instead of a line of the file.
func TestOverrideErrorsNameTheOverride(t *testing.T) {
	_, _, err := expand(t, base, Options{Overrides: []string{
		"dpsgd.noise_multiplier=-1",
		"dpsgd.noise_multipler=2",
		"dpsgd.steps=many",
		"seed",
		"dpsgd.delta=[1, 2",
		"bound[3].kind=rdp",
	}})
	mustErr(t, err,
		"quick.yaml (-s dpsgd.noise_multiplier=-1): dpsgd.noise_multiplier: must be > 0, got -1",
		`quick.yaml (-s dpsgd.noise_multipler=2): dpsgd.noise_multipler: unknown key; did you mean "noise_multiplier"?`,
		`quick.yaml (-s dpsgd.steps=many): dpsgd.steps: expected an integer, got the string "many"`,
		"quick.yaml (-s seed): an override is key.path=value",
		`quick.yaml (-s dpsgd.delta=[1, 2): dpsgd.delta: cannot read "[1, 2" as a YAML value`,
		"quick.yaml (-s bound[3].kind=rdp): bound[3].kind: bound has no item 3",
	)
	if strings.Contains(err.Error(), "quick.yaml:") {
		t.Fatalf("an override's error points into the file:\n%v", err)
	}
}

// A zip axis that is overridden keeps its length, so the other lists of
// the zip still pair up.
func TestOverrideZipAxis(t *testing.T) {
	src := base + "sweep:\n  zip:\n    dpsgd.steps: [10, 20, 30]\n    dpsgd.noise_multiplier: [1, 2, 3]\n"
	pts, _, err := expand(t, src, Options{Overrides: []string{"dpsgd.noise_multiplier=1.5"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3 || pts[2].Exp.DPSGD.NoiseMultiplier != 1.5 || pts[2].Exp.DPSGD.Steps != 30 {
		t.Fatalf("got %d points, last σ %v steps %v", len(pts), pts[len(pts)-1].Exp.DPSGD.NoiseMultiplier, pts[len(pts)-1].Exp.DPSGD.Steps)
	}
}
