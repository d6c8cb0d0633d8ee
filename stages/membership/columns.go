package membership

import (
	"slices"

	"github.com/dpaudit/dpaudit/spec"
)

// TrialColumns are the columns of a point's trials tables, in the order
// the trial shards write them (empty when the point has no audit).
func TrialColumns(pt spec.Point) []string {
	exp := pt.Exp
	if exp.Audit == nil {
		return nil
	}
	if exp.Model != nil && exp.Model.Ideal != nil {
		return []string{"trial", "world", "projection", "watermark", "llr"}
	}
	if exp.Model != nil && exp.Model.External != nil {
		return []string{"trial", "world", "loss"}
	}
	out := []string{"trial", "world"}
	if exp.Distinguisher != nil {
		if d, err := distinguisherFor(exp.Distinguisher); err == nil {
			out = append(out, d.ScoreNames()...)
		}
	}
	return append(out, "canary_steps", "target_steps", "empty_batches", "mean_batch_size")
}

// estimateColumns are the summary columns of an audit (the summary adds
// violation and violation_familywise, see applyFamilywise).
func estimateColumns(ep estimateParams) []string {
	cols := estimatorColumns(ep.Estimator)
	cols = append(cols, "audit_training_runs")
	if ep.Headline != "" {
		cols = append(cols, headlineColumns...)
	}
	if ep.MeasureCPU {
		cols = append(cols, "audit_cpu_seconds")
	}
	return cols
}

func estimatorColumns(estimator string) []string {
	head := []string{"audit_trials", "audit_score", "threshold_method", "epsilon_lb", "estimate_family", "estimate_valid", "epsilon_lb_confidence",
		"audit_repeats", "epsilon_lb_median", "epsilon_lb_min", "epsilon_lb_max", "epsilon_lb_repeats"}
	tail := []string{"epsilon_accountant", "epsilon_shuffle_lb", "shuffle_accounted_as_poisson",
		"claim_accountant", "claim_noise_multiplier", "claim_sampling", "claim_sampling_rate", "claim_steps", "claim_clip", "claim_adjacency",
		"trained_noise_multiplier", "trained_sampling", "trained_sampling_rate", "trained_steps", "trained_clip", "trained_adjacency",
		"claim_matches_training", "claim_config", "trained_config", "violation_p_value", "violation_uncorrected", "familywise", "canary_residual",
		"estimate_delta", "estimate_lower_is_member", "estimate_split_fraction", "estimate_splits", "estimate_bonferroni_grid"}
	if estimator == "one_run" {
		return slices.Concat(head, oneRunColumns, tail)
	}
	if estimator == "per_step" {
		return slices.Concat(head, perStepColumns, tail)
	}
	return slices.Concat(head, []string{"epsilon_point", "threshold", "fpr", "fnr", "fpr_upper", "fnr_upper", "attack_accuracy", "max_accuracy", "auc",
		"tpr_at_fpr_0_1pct", "tpr_at_fpr_1pct", "gdp_mu", "gdp_mu_lo", "gdp_mu_hi",
		"epsilon_gdp_estimate", "epsilon_gdp_estimate_lo", "epsilon_gdp_estimate_hi", "split_seed"}, tail)
}
