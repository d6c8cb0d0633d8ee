package audit

import (
	"math"
	"strconv"
)

// NamedValue is one cell of a summary row: a float64, int64, string or
// bool value under its column name.
type NamedValue struct {
	Name  string
	Value any
}

// SummaryColumns returns the estimates as one summary row, under the
// column names and with the values the runner's estimate stage writes
// for the same estimators (docs/tables.md: `audit_trials` …
// `epsilon_gdp_estimate_hi` for the classic ones, `one_run_guesses` …
// `one_run_os_at_range_end` for the one-run ones, then
// `epsilon_accountant`, `violation_p_value` and `violation_uncorrected`),
// so that the two can be compared cell by cell. A multi-run table has
// both groups; there `epsilon_lb` is the classic bound and
// `one_run_epsilon_lb` Steinke et al.'s. The options that change a
// number follow, then the layout and why it was chosen. score names the
// score column.
func (e *ScoreEstimates) SummaryColumns(score string, ct ClaimTest) []NamedValue {
	var out []NamedValue
	add := func(name string, v any) { out = append(out, NamedValue{name, v}) }
	switch {
	case e.Classic != nil:
		r := e.Classic
		add("audit_trials", int64(r.Trials0+r.Trials1))
		add("audit_score", score)
		add("threshold_method", r.Method)
		add("epsilon_lb", r.EpsilonLB)
		add("estimate_family", r.Family)
		add("estimate_valid", r.Valid)
		add("epsilon_lb_confidence", r.Confidence)
		out = append(out, classicColumns(r)...)
	case e.PerStep != nil:
		ps := e.PerStep
		add("audit_trials", int64(ps.Samples))
		add("audit_score", score)
		add("threshold_method", "per_step")
		add("epsilon_lb", ps.EpsilonLB)
		add("estimate_family", FamilyPerStepGDP)
		add("estimate_valid", ps.Claim != nil)
		add("epsilon_lb_confidence", ps.Confidence)
		out = append(out, e.perStepColumns()...)
	case e.OneRun != nil:
		r := e.OneRun
		add("audit_trials", int64(r.Canaries))
		add("audit_score", score)
		add("threshold_method", "one_run")
		add("epsilon_lb", r.EpsilonLB)
		add("estimate_family", FamilyOneRun)
		add("estimate_valid", true)
		add("epsilon_lb_confidence", r.Confidence)
	}
	if e.OneRun != nil {
		out = append(out, e.oneRunColumns(ct)...)
	}
	add("epsilon_accountant", ct.Claim.Epsilon)
	add("violation_p_value", ct.PValue)
	add("violation_uncorrected", ct.Violation)
	add("violation_correction", ct.Correction)
	return append(out, e.optionColumns()...)
}

func classicColumns(r *Result) []NamedValue {
	return []NamedValue{
		{"epsilon_point", r.EpsilonPoint},
		{"threshold", r.Threshold},
		{"fpr", r.FPR},
		{"fnr", r.FNR},
		{"fpr_upper", r.FPRUpper},
		{"fnr_upper", r.FNRUpper},
		{"attack_accuracy", r.Accuracy},
		{"max_accuracy", r.MaxAccuracy},
		{"auc", r.AUC},
		{"tpr_at_fpr_0_1pct", r.TPRAtFPR1e3},
		{"tpr_at_fpr_1pct", r.TPRAtFPR1e2},
		{"gdp_mu", r.GDP.Mu},
		{"gdp_mu_lo", r.GDP.MuLower},
		{"gdp_mu_hi", r.GDP.MuUpper},
		{"epsilon_gdp_estimate", r.GDP.Epsilon},
		{"epsilon_gdp_estimate_lo", r.GDP.EpsilonLower},
		{"epsilon_gdp_estimate_hi", r.GDP.EpsilonUpper},
	}
}

func (e *ScoreEstimates) oneRunColumns(ct ClaimTest) []NamedValue {
	r, f := e.OneRun, e.FDP
	out := []NamedValue{
		{"one_run_epsilon_lb", r.EpsilonLB},
		{"one_run_guesses", int64(r.Guesses)},
		{"one_run_correct", int64(r.Correct)},
		{"one_run_fdp_epsilon_lb", f.EpsilonLB},
		{"one_run_fdp_mu", e.FDPMu},
		{"one_run_fdp_guesses", int64(f.Guesses)},
		{"one_run_fdp_correct", int64(f.Correct)},
		{"one_run_fdp_family", FamilyOneRunFDP},
		{"one_run_fdp_claim", "gaussian (mu-GDP)"},
	}
	os := e.OrderStats
	if os == nil {
		why := "none"
		for _, s := range e.Skipped {
			if s.Family == FamilyOneRunOrderStats {
				why = "none (" + s.Why + ")"
			}
		}
		nan := math.NaN()
		return append(out,
			NamedValue{"one_run_os_epsilon_lb", nan}, NamedValue{"one_run_os_mu", nan},
			NamedValue{"one_run_os_guesses", int64(0)}, NamedValue{"one_run_os_mistakes", int64(0)},
			NamedValue{"one_run_os_family", FamilyOneRunOrderStats}, NamedValue{"one_run_os_claim", why},
			NamedValue{"one_run_os_claim_mu", nan}, NamedValue{"one_run_os_claim_p_value", nan},
			NamedValue{"one_run_os_at_range_end", false})
	}
	claimMu := math.NaN()
	if ct.Claim.FamilyMu > 0 {
		claimMu = ct.Claim.FamilyMu
	}
	return append(out,
		NamedValue{"one_run_os_epsilon_lb", os.EpsilonLB}, NamedValue{"one_run_os_mu", os.Mu},
		NamedValue{"one_run_os_guesses", int64(os.Guesses)}, NamedValue{"one_run_os_mistakes", int64(os.Mistakes)},
		NamedValue{"one_run_os_family", FamilyOneRunOrderStats}, NamedValue{"one_run_os_claim", os.Family},
		NamedValue{"one_run_os_claim_mu", claimMu}, NamedValue{"one_run_os_claim_p_value", ct.OSClaimPValue},
		NamedValue{"one_run_os_at_range_end", os.AtRangeEnd})
}

// optionColumns are the options that change a number, and the layout.
// The options are named estimate_* as in a membership audit's summary:
// a spec that sweeps audit.split_fraction (or dpsgd.delta,
// audit.source.aggregate, …) has a column of that key's own name.
func (e *ScoreEstimates) optionColumns() []NamedValue {
	o := e.Options
	d := o.Options.withDefaults()
	agg := string(o.Aggregate)
	if agg == "" {
		agg = "none"
	}
	return []NamedValue{
		{"estimate_delta", o.Delta},
		{"split_seed", strconv.FormatUint(o.Seed, 10)},
		{"estimate_split_fraction", d.SplitFraction},
		{"estimate_splits", int64(max(d.Splits, 1))},
		{"bonferroni_grid_size", int64(d.GridSize)},
		{"estimate_lower_is_member", o.LowerMeansWorld1},
		{"estimate_score_is_llr", o.ScoreIsLLR},
		{"estimate_aggregate", agg},
		{"score_unit", e.Unit},
		{"layout", string(e.Layout.Layout)},
		{"layout_reason", e.Layout.Why},
		{"classic_rows", e.ClassicRows},
	}
}

// ScoreSummaryColumns lists every column SummaryColumns may write, for
// any layout, in the order a multi-run table writes them (then the
// per-step ones): what a stage declares before the table is read.
func ScoreSummaryColumns() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range []*ScoreEstimates{
		{Classic: &Result{}, OneRun: &OneRunResult{}, FDP: &OneRunResult{}},
		{PerStep: &PerStepEstimate{}},
	} {
		for _, nv := range e.SummaryColumns("", ClaimTest{}) {
			if !seen[nv.Name] {
				seen[nv.Name] = true
				out = append(out, nv.Name)
			}
		}
	}
	return out
}
