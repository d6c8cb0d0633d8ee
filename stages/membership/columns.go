package membership

import "github.com/dpaudit/dpaudit/spec"

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
	out := []string{"trial", "world"}
	if exp.Distinguisher != nil {
		if d, err := distinguisherFor(exp.Distinguisher); err == nil {
			out = append(out, d.ScoreNames()...)
		}
	}
	return append(out, "canary_steps", "target_steps", "empty_batches", "mean_batch_size")
}
