package dpaudit

import "github.com/dpaudit/dpaudit/pipeline"

// ReconViolation is a point whose reconstruction attack succeeded more
// often than the ReRo bound allows: the lower end of the success interval
// lies above the bound's upper end. The trainer, the accountant's claim
// (the noise multiplier the bound was computed for) or the bound is wrong.
type ReconViolation struct {
	PointIndex int64
	PointID    string
	Success    float64 // the attack's success rate
	SuccessLo  float64 // lower end of its Clopper–Pearson interval
	Confidence float64
	Bound      float64 // rero_gamma_hi
	PriorSize  int64
}

// ReconViolations reads the rero_violation column of a finished run.
func ReconViolations(summary string) ([]ReconViolation, error) {
	t, err := pipeline.ReadParquet(summary)
	if err != nil {
		return nil, err
	}
	vc := t.Col("rero_violation")
	if vc == nil {
		return nil, nil
	}
	var out []ReconViolation
	for i, v := range vc.Values {
		if v != true {
			continue
		}
		out = append(out, ReconViolation{
			PointIndex: t.Col("point_index").Values[i].(int64), PointID: t.Col("point_id").Values[i].(string),
			Success: t.Col("reconstruction_success").Float(i), SuccessLo: t.Col("reconstruction_success_lo").Float(i),
			Confidence: t.Col("reconstruction_confidence").Float(i), Bound: t.Col("rero_gamma_hi").Float(i),
			PriorSize: t.Col("recon_prior_size").Values[i].(int64),
		})
	}
	return out, nil
}
