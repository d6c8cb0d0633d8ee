package dpaudit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/report"
)

// riskTPRPrefix starts the names of a risk bound's TPR columns
// (risk_tpr_at_fpr_0p01 for FPR 0.01; stages/bound.RiskTPRColumn).
const riskTPRPrefix = "risk_tpr_at_fpr_"

// riskPanel composes report.html's "What this means" panel from the
// summary alone: per point, the accountant's ε beside the attack-risk
// bounds a `risk` bound entry read off the same accountant's curve. A
// summary with ε columns but no risk columns gets a panel that says how to
// add them; one with neither, none.
func riskPanel(sum *pipeline.Table, params map[int64]string) *report.PagePanel {
	p := &report.PagePanel{ID: "what-this-means", Title: "What this means for an attacker"}
	if sum.Col("risk_advantage") == nil {
		if !hasEpsilon(sum) {
			return nil
		}
		p.Intro = "Add a bound entry {kind: risk} to the spec to see, per point, what the accountant's ε means for an attacker: " +
			"membership advantage, TPR at a low FPR, reconstruction success at a baseline (docs/what-epsilon-means.md)."
		return p
	}
	p.Intro = "Bounds on the strongest attacker of the DP-SGD threat model (who sees every noisy gradient and knows every other record), " +
		"read off the trade-off curve of the accountant whose ε is shown: no membership attack has TPR − FPR above the advantage, " +
		"nor a TPR above the one shown at that FPR; no reconstruction, attribute-inference or re-identification attack whose blind guess " +
		"succeeds with the baseline probability succeeds more often than shown (docs/what-epsilon-means.md)."
	tprCols := riskTPRColumns(sum)
	p.Header = []string{"point", "parameters", "ε (accountant)", "advantage"}
	for _, c := range tprCols {
		p.Header = append(p.Header, "TPR at "+percent(c.fpr)+" FPR")
	}
	p.Header = append(p.Header, "reconstruction success", "μ-GDP fit (approximation)")
	for i := range sum.Rows() {
		p.Rows = append(p.Rows, riskPanelRow(sum, i, params, tprCols))
	}
	p.Notes = []string{"The μ-GDP fit is the smallest μ whose Gaussian trade-off curve lies below the accountant's at 200 FPRs from 1e-6 to 0.5: " +
		"an approximation, not a bound. A curve marked \"not a bound\" (gdp at q < 1, the CLT approximation) may claim less attack power than is possible."}
	return p
}

type riskTPRColumn struct {
	name string
	fpr  float64
}

// riskTPRColumns lists the risk bound's TPR columns with their FPRs, read
// back from the names.
func riskTPRColumns(sum *pipeline.Table) []riskTPRColumn {
	var out []riskTPRColumn
	for _, c := range sum.Columns {
		rest, ok := strings.CutPrefix(c.Name, riskTPRPrefix)
		if !ok {
			continue
		}
		if fpr, err := strconv.ParseFloat(strings.Replace(rest, "p", ".", 1), 64); err == nil {
			out = append(out, riskTPRColumn{c.Name, fpr})
		}
	}
	return out
}

func riskPanelRow(sum *pipeline.Table, i int, params map[int64]string, tprCols []riskTPRColumn) []string {
	idx, _ := cellAt(sum, "point_index", i).(int64)
	acc, _ := cellAt(sum, "risk_accountant", i).(string)
	eps := "—"
	if v, ok := cellAt(sum, "epsilon_"+acc, i).(float64); ok {
		eps = fmt.Sprintf("%.4g", v)
	}
	eps += " (" + acc
	if valid, ok := cellAt(sum, "risk_valid", i).(bool); ok && !valid {
		eps += ", not a bound"
	}
	eps += ")"
	row := []string{strconv.FormatInt(idx, 10), params[idx], eps, bounded(cellAt(sum, "risk_advantage", i))}
	for _, c := range tprCols {
		row = append(row, bounded(cellAt(sum, c.name, i)))
	}
	success := bounded(cellAt(sum, "risk_reconstruction_success", i))
	if b, ok := cellAt(sum, "risk_baseline", i).(float64); ok {
		success += fmt.Sprintf(" at baseline %.4g", b)
		if n := 1 / b; math.Abs(n-math.Round(n)) < 1e-6 {
			success += fmt.Sprintf(" (|π| = %.0f)", n)
		}
	}
	return append(row, success, number(cellAt(sum, "risk_mu_gdp_approx", i)))
}

// cellAt is row i of a column, nil when the column is absent or the cell
// null.
func cellAt(sum *pipeline.Table, name string, i int) any {
	if c := sum.Col(name); c != nil && i < len(c.Values) {
		return c.Values[i]
	}
	return nil
}

func bounded(v any) string {
	if _, ok := v.(float64); ok {
		return "≤ " + number(v)
	}
	return "—"
}

func number(v any) string {
	if x, ok := v.(float64); ok {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return "—"
}

// percent writes an FPR as a percentage: 0.01 → 1%, 0.001 → 0.1%.
func percent(fpr float64) string {
	return strconv.FormatFloat(fpr*100, 'g', 4, 64) + "%"
}

// hasEpsilon reports an accountant's ε column (a bound's epsilon_<name> or
// an audit's epsilon_accountant).
func hasEpsilon(sum *pipeline.Table) bool {
	for _, c := range sum.Columns {
		switch c.Name {
		case "epsilon_best", "epsilon_pld", "epsilon_rdp", "epsilon_gdp", "epsilon_accountant":
			return true
		}
	}
	return false
}
