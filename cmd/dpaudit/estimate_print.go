package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
)

// printEstimates writes the result: for the table and md formats a
// header (what was read, the layout and why, which estimators ran, the
// options, the claim), the table, and the verdict; for csv and json the
// table alone, whose columns then carry the layout and options.
func printEstimates(w io.Writer, f estimateFlags, src scoreSource, e *audit.ScoreEstimates, ct audit.ClaimTest, claimText string) error {
	human := f.format == "table" || f.format == "md"
	var cols []*pipeline.Column
	if f.table == "summary" {
		cols = summaryTable(e.SummaryColumns(src.info.Used["score"], ct))
	} else {
		cols = estimatesTable(e, ct, human)
	}
	if human {
		fmt.Fprint(w, estimateHeader(src, e, claimText))
	}
	if err := writeTable(w, f.format, cols, rowsOf(rowCount(cols)), f.digits); err != nil {
		return err
	}
	if human {
		fmt.Fprint(w, estimateFooter(e, ct, f.table == "summary"))
	}
	return nil
}

func rowCount(cols []*pipeline.Column) int {
	if len(cols) == 0 {
		return 0
	}
	return len(cols[0].Values)
}

// rowsOf lists row indices 0..n−1.
func rowsOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func estimateHeader(src scoreSource, e *audit.ScoreEstimates, claimText string) string {
	var b strings.Builder
	o := e.Options
	var used []string
	for _, k := range []string{"member", "score", "canary", "run", "user", "step"} {
		if c, ok := src.info.Used[k]; ok {
			used = append(used, k+"="+c)
		}
	}
	fmt.Fprintf(&b, "read:       %s (%s, %d rows; %s)\n", src.path, src.info.Format, src.table.Len(), strings.Join(used, ", "))
	if p := src.plan; p != nil {
		m := p.Manifest
		fmt.Fprintf(&b, "plan:       %s — %d %s canaries, %d members, seed %d; every canary scored, bits as planned; plan digest %s\n",
			p.Path, m.Count, m.Canaries, m.Members, m.Seed, m.MembershipSHA256)
	}
	switch {
	case o.Aggregate != "":
		fmt.Fprintf(&b, "unit:       user — %d records aggregated into %d users by %s; the estimates are for user-level adjacency\n",
			src.table.Len(), e.Layout.Rows, o.Aggregate)
	case src.info.Used["user"] != "":
		fmt.Fprintf(&b, "note:       the user column is not used; with --group user --aggregate the records of each user become one unit\n")
	}
	fmt.Fprintf(&b, "layout:     %s — %s\n", e.Layout.Layout, e.Layout.Why)
	if e.Classic != nil {
		fmt.Fprintf(&b, "classic:    eps_delta_cp, gdp_fit on %s\n", e.ClassicRows)
	}
	if e.PerStep != nil {
		fmt.Fprintf(&b, "per step:   per_step_gdp on %d samples (Nasr et al. 2023; one step's threshold test, composed over the claim)\n", e.PerStep.Samples)
	}
	if e.OneRun != nil {
		fmt.Fprintf(&b, "one run:    one_run, one_run_fdp, one_run_order_stats on %d canaries (independent inclusion with probability 1/2 assumed)\n", e.OneRunCanaries)
	}
	for _, s := range e.Skipped {
		fmt.Fprintf(&b, "skipped:    %s — %s\n", s.Family, s.Why)
	}
	fmt.Fprintf(&b, "options:    %s\n", optionText(e))
	fmt.Fprintf(&b, "claim:      %s\n\n", claimText)
	return b.String()
}

// optionText lists every option that changes a number, as flags.
func optionText(e *audit.ScoreEstimates) string {
	o := e.Options
	parts := []string{
		fmt.Sprintf("--confidence %g", o.Confidence), fmt.Sprintf("--delta %g", o.Delta),
	}
	if e.Classic != nil {
		parts = append(parts, fmt.Sprintf("--threshold %s", o.Method), fmt.Sprintf("--split-fraction %g", o.SplitFraction),
			fmt.Sprintf("--splits %d", max(o.Splits, 1)), fmt.Sprintf("--split-seed %d", o.Seed))
		if o.Grid != nil {
			g := floatList(o.Grid)
			parts = append(parts, "--bonferroni-grid "+g.String())
		}
	}
	if r := e.OneRun; r != nil {
		parts = append(parts, fmt.Sprintf("--steinke-guesses %d", r.Guesses), fmt.Sprintf("--fdp-guesses %d", e.FDP.Guesses))
		if e.OrderStats != nil {
			parts = append(parts, fmt.Sprintf("--order-stats-guesses %d", e.OrderStats.Guesses))
		}
		parts = append(parts, fmt.Sprintf("--score-is-llr=%v", o.ScoreIsLLR))
	}
	parts = append(parts, fmt.Sprintf("--lower-is-member=%v", o.LowerMeansWorld1))
	return strings.Join(parts, " ")
}

func estimateFooter(e *audit.ScoreEstimates, ct audit.ClaimTest, summary bool) string {
	var b strings.Builder
	if !summary {
		fmt.Fprintln(&b)
		for _, r := range e.Rows() {
			fmt.Fprintf(&b, "%-20s tests %s; %s\n", r.Family, r.Tests, r.Detail)
		}
	}
	fmt.Fprintln(&b)
	switch {
	case math.IsInf(ct.Claim.Epsilon, 1):
		fmt.Fprintln(&b, "verdict:    no claim given")
	case ct.Violation:
		fmt.Fprintf(&b, "verdict:    VIOLATION — a valid estimate refutes the claim ε = %.6g (p = %.3g, %s)\n", ct.Claim.Epsilon, ct.PValue, ct.Correction)
	case ct.Tests == 0:
		fmt.Fprintf(&b, "verdict:    no estimate here can refute an (ε, δ) claim (%s)\n", ct.Correction)
	default:
		fmt.Fprintf(&b, "verdict:    no violation of ε = %.6g (p = %.3g, %s)\n", ct.Claim.Epsilon, ct.PValue, ct.Correction)
	}
	return b.String()
}

// estimatesTable is one row per estimate. The human formats leave out
// the long text columns, which the footer prints in full.
func estimatesTable(e *audit.ScoreEstimates, ct audit.ClaimTest, human bool) []*pipeline.Column {
	rows := e.Rows()
	col := func(name string, t pipeline.ColType, f func(i int, r audit.EstimateRow) any) *pipeline.Column {
		c := &pipeline.Column{Name: name, Type: t}
		for i, r := range rows {
			c.Values = append(c.Values, f(i, r))
		}
		return c
	}
	cols := []*pipeline.Column{
		col("estimate", pipeline.String, func(_ int, r audit.EstimateRow) any { return r.Family }),
		col("valid", pipeline.Bool, func(_ int, r audit.EstimateRow) any { return r.Valid }),
		col("epsilon_lb", pipeline.Float64, func(_ int, r audit.EstimateRow) any { return r.EpsilonLB }),
		col("epsilon_point", pipeline.Float64, func(_ int, r audit.EstimateRow) any { return r.EpsilonPoint }),
		col("epsilon_hi", pipeline.Float64, func(_ int, r audit.EstimateRow) any { return r.EpsilonHi }),
		col("confidence", pipeline.Float64, func(_ int, r audit.EstimateRow) any { return r.Confidence }),
		col("rows_used", pipeline.Int64, func(_ int, r audit.EstimateRow) any { return int64(r.Used) }),
		col("above_claim", pipeline.Bool, func(i int, _ audit.EstimateRow) any { return ct.Above[i] }),
		col("can_refute_claim", pipeline.Bool, func(_ int, r audit.EstimateRow) any { return r.RaisesViolation() }),
	}
	if human {
		return cols
	}
	cols = append(cols,
		col("tests", pipeline.String, func(_ int, r audit.EstimateRow) any { return r.Tests }),
		col("detail", pipeline.String, func(_ int, r audit.EstimateRow) any { return r.Detail }),
		col("epsilon_claim", pipeline.Float64, func(int, audit.EstimateRow) any { return ct.Claim.Epsilon }),
		col("violation", pipeline.Bool, func(int, audit.EstimateRow) any { return ct.Violation }),
		col("violation_p_value", pipeline.Float64, func(int, audit.EstimateRow) any { return ct.PValue }),
		col("violation_correction", pipeline.String, func(int, audit.EstimateRow) any { return ct.Correction }),
	)
	for _, nv := range e.SummaryColumns("", ct) {
		if isOptionColumn(nv.Name) {
			v := nv.Value
			cols = append(cols, col(nv.Name, typeOf(v), func(int, audit.EstimateRow) any { return v }))
		}
	}
	return cols
}

// isOptionColumn: the option and layout columns of SummaryColumns.
func isOptionColumn(name string) bool {
	switch name {
	case "estimate_delta", "split_seed", "estimate_split_fraction", "estimate_splits", "bonferroni_grid_size", "estimate_lower_is_member",
		"estimate_score_is_llr", "estimate_aggregate", "score_unit", "layout", "layout_reason", "classic_rows":
		return true
	}
	return false
}

// summaryTable is the one-row summary as columns.
func summaryTable(nvs []audit.NamedValue) []*pipeline.Column {
	cols := make([]*pipeline.Column, len(nvs))
	for i, nv := range nvs {
		cols[i] = &pipeline.Column{Name: nv.Name, Type: typeOf(nv.Value), Values: []any{nv.Value}}
	}
	return cols
}

func typeOf(v any) pipeline.ColType {
	switch v.(type) {
	case int64:
		return pipeline.Int64
	case string:
		return pipeline.String
	case bool:
		return pipeline.Bool
	}
	return pipeline.Float64
}
