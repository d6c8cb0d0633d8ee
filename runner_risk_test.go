package dpaudit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// report.html's "What this means" panel shows, per point, the accountant's
// ε and the risk bound's columns as the summary holds them (here at q = 1,
// where they are closed forms of μ = √T/σ: advantage 2Φ(μ/2) − 1, TPR at
// FPR α Φ(Φ⁻¹(α) + μ)); a spec with an accountant and no risk bound gets
// the hint to add one.
func TestReportRiskPanel(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "risk.yaml", `name: risk
dpsgd: {noise_multiplier: 2, sampling_rate: 1, steps: 16}
bound: [{kind: accountant, accountants: [best]}, {kind: risk, fpr: [0.01], prior_size: 10}]
sweep: {grid: {dpsgd.noise_multiplier: [2, 4]}}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 1})
	html, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	sum, err := pipeline.ReadParquet(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, `id="what-this-means"`) || !strings.Contains(page, "<th>TPR at 1% FPR</th>") {
		t.Fatal("no risk panel with a TPR at 1% FPR column in report.html")
	}
	for i, sigma := range []float64{2, 4} {
		mu := 4 / sigma
		adv := sum.Col("risk_advantage").Values[i].(float64)
		if want := math.Erf(mu / 2 / math.Sqrt2); math.Abs(adv-want) > 1e-9 {
			t.Fatalf("σ = %v: risk_advantage %v, want %v", sigma, adv, want)
		}
		row := "<td>" + number(sum.Col("epsilon_best").Values[i]) + " (best)</td><td>≤ " + number(adv) + "</td><td>≤ " +
			number(sum.Col("risk_tpr_at_fpr_0p01").Values[i]) + "</td><td>≤ " + number(sum.Col("risk_reconstruction_success").Values[i]) +
			" at baseline 0.1 (|π| = 10)</td><td>" + number(mu) + "</td>"
		if !strings.Contains(page, row) {
			t.Errorf("σ = %v: the panel has no row %q", sigma, row)
		}
	}

	plain := writeSpec(t, dir, "eps.yaml", "name: eps\ndpsgd: {noise_multiplier: 2, sampling_rate: 1, steps: 16}\nbound: [{kind: accountant, accountants: [best]}]\n")
	_, res = runSpec(t, plain, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 1})
	if html, _ = os.ReadFile(res.Report); !strings.Contains(string(html), "Add a bound entry {kind: risk}") {
		t.Error("an accountant without a risk bound: no hint in the panel")
	}
}
