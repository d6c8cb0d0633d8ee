package dpaudit

import "github.com/dpaudit/dpaudit/pipeline"

// IdentifiabilityViolation is a point of an identifiability game (Bernau et
// al. 2021) whose posterior belief exceeded ρ_β more often than δ allows:
// the Clopper–Pearson lower end of δ′ is above δ. Theorem 1 says β_k ≤ ρ_β
// with probability ≥ 1 − δ, so the training leaks more than its (ε, δ).
type IdentifiabilityViolation struct {
	PointIndex   int64
	PointID      string
	Exceed, N    int64
	DeltaPrime   float64
	DeltaPrimeLo float64
	Delta        float64
	RhoBeta      float64
}

// IdentifiabilityViolations reads the summary of a finished run.
func IdentifiabilityViolations(summary string) ([]IdentifiabilityViolation, error) {
	t, err := pipeline.ReadParquet(summary)
	if err != nil {
		return nil, err
	}
	vc := t.Col("identify_violation")
	if vc == nil {
		return nil, nil
	}
	var out []IdentifiabilityViolation
	for i, v := range vc.Values {
		if v != true {
			continue
		}
		out = append(out, IdentifiabilityViolation{
			PointIndex: t.Col("point_index").Values[i].(int64), PointID: t.Col("point_id").Values[i].(string),
			Exceed: t.Col("identify_exceed").Values[i].(int64), N: t.Col("identify_repetitions").Values[i].(int64),
			DeltaPrime: t.Col("identify_delta_prime").Float(i), DeltaPrimeLo: t.Col("identify_delta_prime_lo").Float(i),
			Delta: t.Col("identify_delta").Float(i), RhoBeta: t.Col("identify_rho_beta").Float(i),
		})
	}
	return out, nil
}
