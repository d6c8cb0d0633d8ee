package dpaudit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tradeoff figure draws the audit against its claim's curve: an
// implementation that trains with σ = 0.6 but claims 6 has operating
// points whose joint boxes lie entirely beyond the claimed curve (the
// figure's note says how many), and the honest one has none.
func TestTradeoffFigureFlagsTheBug(t *testing.T) {
	dir := t.TempDir()
	spec := func(name, claim string) string {
		return writeSpec(t, dir, name+".yaml", `name: `+name+`
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.6, sampling_rate: 1, steps: 4}
audit: {threat_model: gradient, trials: 2000`+claim+`}
report:
  figures:
    - {kind: tradeoff, name: curve, formats: [svg]}
`)
	}
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	for _, c := range []struct {
		name, claim, note string
		refutes           bool
	}{
		{"bug", ", claim: {noise_multiplier: 6}", "(claimed best σ=6 q=1 T=4, trained σ=0.6 q=1 T=4): ", true},
		{"honest", "", "(claimed best σ=0.6 q=1 T=4): 0 of ", false},
	} {
		_, res := runSpec(t, spec(c.name, c.claim), o)
		m, err := os.ReadFile(filepath.Join(res.Dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		refutes := strings.Contains(string(m), "lie entirely beyond the claimed curve: the audit refutes the claim")
		if refutes != c.refutes || !strings.Contains(string(m), c.note) {
			t.Errorf("%s: manifest notes %s; want the figure to refute the claim: %v", c.name, m, c.refutes)
		}
		svg, err := os.ReadFile(filepath.Join(res.Dir, "figures", "curve.svg"))
		if err != nil || !strings.Contains(string(svg), "claimed curve") || strings.Contains(string(svg), "beyond the claimed curve") != c.refutes {
			t.Errorf("%s: the figure does not draw the claimed curve, or draws the violation legend when it should not (%v)", c.name, err)
		}
	}
}

// A tradeoff figure on points without a membership audit is an error at
// the figure's kind, before anything runs.
func TestTradeoffFigureNeedsAnAudit(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "noaudit.yaml", `name: noaudit
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
bound: [{kind: accountant}]
report:
  figures:
    - kind: tradeoff
      name: curve
`)
	_, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	if err == nil || !strings.Contains(err.Error(), "noaudit.yaml:6:13: report.figures[0].kind: a tradeoff figure draws a membership audit") || !IsInputError(err) {
		t.Fatalf("error %v, want one at noaudit.yaml:6:13 (an input error)", err)
	}
}
