package membership

import (
	"fmt"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// alarm is how a membership violation is worded.
var alarm = stages.Alarm{
	Title:    "PRIVACY VIOLATION",
	Breaks:   "break their claimed guarantee",
	Meaning:  "The training leaks more than the claim allows: the implementation or its analysis is wrong (only valid estimates flag; a violation proves the claim false at the stated confidence, not where the bug is).",
	Evidence: "Trials",
}

// violations reads the violation column (the point's valid test rejects
// the claim, after the family-wise correction) of the rows that game made.
func violations(game string, sum *pipeline.Table) ([]stages.Violation, error) {
	var out []stages.Violation
	for _, v := range stages.Flagged(sum, "violation", game, alarm, readViolation) {
		if v.Game == game {
			out = append(out, v)
		}
	}
	return out, nil
}

// readViolation fills in what a membership row says: the ε lower bound
// against the claim's ε (or, for a sequential audit's profile test, its
// detail), what was claimed and trained, and the notes.
func readViolation(r stages.Row, v *stages.Violation) {
	v.Game = rowVariant(r)
	v.Value, v.Limit, v.Confidence = r.Float("epsilon_lb"), r.Float("epsilon_accountant"), r.Float("epsilon_lb_confidence")
	p := r.Float("violation_p_value")
	if d := r.Str("violation_detail"); d != "" {
		v.Message = fmt.Sprintf("%s (%.0f%% confidence, p = %.3g)", d, 100*v.Confidence, p)
	} else {
		v.Message = fmt.Sprintf("empirical ε lower bound %.4g > claimed ε %.4g (%.0f%% confidence, %s thresholds, p = %.3g)",
			v.Value, v.Limit, 100*v.Confidence, r.Str("threshold_method"), p)
	}
	v.Claimed, v.Trained = r.Str("claim_config"), r.Str("trained_config")
	if r.Bool("shuffle_accounted_as_poisson") {
		v.Notes = append(v.Notes, fmt.Sprintf("shuffled batches were accounted as Poisson sampling; the shuffled training's true ε is at least %.4g (epsilon_shuffle_lb)", r.Float("epsilon_shuffle_lb")))
	}
	if f := r.Str("violation_familywise"); f != "" {
		v.Notes = append(v.Notes, "family-wise correction: "+f)
	}
}

// rowVariant is the membership game that wrote a summary row, from its
// estimate family (and a worst-case θ_0's description).
func rowVariant(r stages.Row) string {
	if r.Str("scores_sha256") != "" {
		return "" // a score table's row: stages/scores reads it
	}
	switch r.Str("estimate_family") {
	case audit.FamilySequential:
		return variantSequential
	case audit.FamilyOneRun:
		return variantOneRun
	case audit.FamilyPerStepGDP:
		return variantPerStep
	}
	if r.Str("initial_model") != "" {
		return variantLastIterate
	}
	return variantClassic
}
