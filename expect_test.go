package dpaudit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// expectSpec is a fast accounting sweep (two points) with an expect block.
const expectSpec = `name: expect
dpsgd:
  noise_multiplier: 1.0
  sampling_rate: 0.01
  steps: 100
bound:
  - kind: accountant
    accountants: [rdp]
sweep:
  grid:
    dpsgd.noise_multiplier: [1.0, 2.0]
expect:
`

// A column or a point that does not exist is a positioned spec error
// before anything runs, naming the entry.
func TestExpectBadInput(t *testing.T) {
	for _, c := range []struct {
		name, block, want string
	}{
		{"unknown column", "  - {column: epsilon_rpd, at: {noise_multiplier: 1.0}, value: 1, tolerance: 0.1}\n",
			`expect.yaml:13:14: expect[0].column: no summary column "epsilon_rpd"; did you mean "epsilon_rdp"?`},
		{"unknown selector column", "  - {column: epsilon_rdp, at: {sigma: 1.0}, value: 1, tolerance: 0.1}\n",
			`expect.yaml:13:39: expect[0].at.sigma: no swept or derived column "sigma" (columns: noise_multiplier)`},
		{"no such point", "  - {column: epsilon_rdp, at: {noise_multiplier: 3}, value: 1, tolerance: 0.1}\n",
			`expect.yaml:13:31: expect[0].at: selects no point (noise_multiplier = 3)`},
		{"ambiguous", "  - {column: epsilon_rdp, value: 1, tolerance: 0.1}\n",
			`expect.yaml:13:5: expect[0].at: selects 2 points (no selector); name more of the columns noise_multiplier`},
		{"negative tolerance", "  - {column: epsilon_rdp, at: {noise_multiplier: 1}, value: 1, tolerance: -1}\n",
			`expect.yaml:13:75: expect[0].tolerance: must be >= 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeSpec(t, dir, "expect.yaml", expectSpec+c.block)
			_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
			if err == nil {
				t.Fatal("no error")
			}
			if !IsInputError(err) {
				t.Errorf("not an input error: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got\n  %v\nwant it to contain\n  %s", err, c.want)
			}
		})
	}
}

// The expect block is not part of a point's identity: editing a stated
// number re-runs nothing.
func TestExpectNotInPointIdentity(t *testing.T) {
	dir := t.TempDir()
	a, err := Load(writeSpec(t, dir, "a.yaml", expectSpec+"  - {column: epsilon_rdp, at: {noise_multiplier: 1}, value: 1, tolerance: 0.1}\n"), Options{Store: filepath.Join(dir, "store")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(writeSpec(t, dir, "b.yaml", strings.TrimSuffix(expectSpec, "expect:\n")), Options{Store: filepath.Join(dir, "store")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Points {
		if a.Points[i].ID != b.Points[i].ID {
			t.Errorf("point %d: id %s with an expect block, %s without", i, a.Points[i].ID, b.Points[i].ID)
		}
	}
}

// A drifted number names the entry, the column, the point, the expected
// and the measured value; a kept one passes.
func TestCheckExpectDrift(t *testing.T) {
	dir := t.TempDir()
	// RDP ε of σ = 1, q = 0.01, T = 100 at δ = 1e-5 is about 1.3; σ = 2 is
	// about 0.5: the first entry holds, the second is off on purpose.
	path := writeSpec(t, dir, "expect.yaml", expectSpec+
		"  - {column: epsilon_rdp, at: {noise_multiplier: 1}, value: 1.3, tolerance: 0.2}\n"+
		"  - {column: epsilon_rdp, at: {noise_multiplier: 2.0}, value: 5, tolerance: 0.01}\n")
	p, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	drifts, checked, err := p.CheckExpect(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if checked != 2 || len(drifts) != 1 {
		t.Fatalf("checked %d, drifts %v; want 2 checked, 1 drift", checked, drifts)
	}
	msg := drifts[0].String()
	for _, want := range []string{"expect[1]", "epsilon_rdp", "noise_multiplier = 2", "expected 5 ± 0.01", "measured 0."} {
		if !strings.Contains(msg, want) {
			t.Errorf("drift %q does not say %q", msg, want)
		}
	}
}
