package main

import (
	"fmt"
	"io"
	"math"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/privacy"
)

// sequentialEstimate is dpaudit estimate --sequential: the looks of a
// sequential audit (audit.Sequential) over the rows in table order, each
// row one independent trial, testing the claim's privacy profile as a run
// with audit.stop: sequential does. It prints the runner's summary
// columns of such an audit and returns whether a look refuted the claim.
func sequentialEstimate(w io.Writer, f estimateFlags, src scoreSource, o audit.ScoreOptions, claim audit.Claim, claimText string) (bool, error) {
	t := src.table
	if err := t.Check(); err != nil {
		return false, estimateError(err)
	}
	lay, err := audit.DetectLayout(t)
	if err != nil {
		return false, estimateError(err)
	}
	if lay.Layout != audit.LayoutClassic {
		return false, inputf("dpaudit estimate: --sequential needs independent trials in trial order (the classic layout); this table is %s: %s", lay.Layout, lay.Why)
	}
	so, err := f.sequentialOptions(o, claim, t.Len())
	if err != nil {
		return false, err
	}
	r, err := audit.Sequential(t.Score, t.Member, so)
	if err != nil {
		return false, estimateError(err)
	}
	if len(r.Looks) == 0 {
		return false, inputf("dpaudit estimate: --sequential: the table has %d rows, fewer than the first look's %d trials", t.Len(), so.FirstLook)
	}
	row := []audit.NamedValue{
		{Name: "audit_trials", Value: int64(so.Budget)},
		{Name: "audit_score", Value: src.info.Used["score"]},
		{Name: "threshold_method", Value: "sequential split"},
		{Name: "epsilon_lb", Value: r.EpsilonLB},
		{Name: "estimate_family", Value: audit.FamilySequential},
		{Name: "estimate_valid", Value: r.Stopped != ""},
		{Name: "epsilon_lb_confidence", Value: so.Confidence},
	}
	stopped := r.Stopped
	if stopped == "" {
		// Fewer rows than the budget and no look refuted the claim: the
		// audit has not decided; its last look's bound is still valid.
		r.Stopped = "not yet (rows end before the budget)"
	}
	row = append(row, audit.SequentialColumns(r, f.sequential, claim.Epsilon, so.Delta)...)
	row = append(row,
		audit.NamedValue{Name: "epsilon_accountant", Value: claim.Epsilon},
		audit.NamedValue{Name: "violation_p_value", Value: r.PValue},
		audit.NamedValue{Name: "violation_uncorrected", Value: r.Violation},
		audit.NamedValue{Name: "estimate_delta", Value: so.Delta},
		audit.NamedValue{Name: "estimate_split_fraction", Value: so.SplitFraction},
		audit.NamedValue{Name: "estimate_lower_is_member", Value: so.LowerMeansWorld1},
	)
	human := f.format == "table" || f.format == "md"
	if human {
		fmt.Fprintf(w, "read:       %s (%s, %d rows)\n", src.path, src.info.Format, t.Len())
		fmt.Fprintf(w, "layout:     classic, sequential — %s; looks at %v trials, α/(k(k+1)) at look k\n", lay.Why, audit.LookSchedule(so.FirstLook, so.Budget))
		fmt.Fprintf(w, "options:    --sequential %s --first-look %d --budget %d --confidence %g --delta %g --split-fraction %g --lower-is-member=%v\n",
			f.sequential, so.FirstLook, so.Budget, so.Confidence, so.Delta, so.SplitFraction, so.LowerMeansWorld1)
		fmt.Fprintf(w, "claim:      %s; %d pair(s) of its privacy profile tested\n\n", claimText, len(so.Profile))
	}
	if err := writeTable(w, f.format, summaryTable(row), []int{0}, f.digits); err != nil {
		return false, err
	}
	if human {
		switch {
		case r.Violation:
			fmt.Fprintf(w, "\nverdict:    VIOLATION — look %d (%d trials) refutes the claim (p = %.3g, over the looks)\n", len(r.Looks), r.TrialsUsed, r.PValue)
		case stopped == "":
			fmt.Fprintf(w, "\nverdict:    no decision — %d looks up to %d trials refute nothing and the rows end before the budget of %d\n", len(r.Looks), r.TrialsUsed, so.Budget)
		default:
			fmt.Fprintf(w, "\nverdict:    no violation — the budget of %d trials was spent (p = %.3g)\n", so.Budget, r.PValue)
		}
	}
	return r.Violation, nil
}

// sequentialOptions are the sequential audit's options from the flags:
// the claim's profile (a mechanism's, or the pair of --claim-epsilon),
// the look schedule and the split fraction.
func (f *estimateFlags) sequentialOptions(o audit.ScoreOptions, claim audit.Claim, rows int) (audit.SequentialOptions, error) {
	switch {
	case f.sequential != "profile" && f.sequential != "epsilon":
		return audit.SequentialOptions{}, inputf("dpaudit estimate: --sequential must be profile or epsilon, got %q", f.sequential)
	case math.IsInf(claim.Epsilon, 1):
		return audit.SequentialOptions{}, inputf("dpaudit estimate: --sequential tests a claim: give --claim-epsilon and --delta, or the mechanism")
	case f.plan != "" || f.group != "" || f.results != "":
		return audit.SequentialOptions{}, inputf("dpaudit estimate: --sequential does not go with --plan, --group or --results")
	}
	budget := f.budget
	if budget == 0 {
		budget = rows
	}
	m := privacy.SampledGaussian{NoiseMultiplier: f.sigma, SamplingRate: f.q, Steps: f.steps}
	prof, err := audit.SequentialProfile(f.sequential, privacy.Accountant(f.accountant), m, claim.Epsilon, o.Delta)
	if err != nil {
		return audit.SequentialOptions{}, estimateError(err)
	}
	return audit.SequentialOptions{Confidence: o.Confidence, Delta: o.Delta, Profile: prof, FirstLook: f.firstLook, Budget: budget,
		SplitFraction: o.SplitFraction, LowerMeansWorld1: o.LowerMeansWorld1}, nil
}
