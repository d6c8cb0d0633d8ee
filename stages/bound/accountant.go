package bound

import (
	"cmp"
	"fmt"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// accountantVersion changes when the accountant stage computes differently.
const accountantVersion = 2 // 2: PLD coarsening, rounding bounds, tilted tails; best

// accountantParams is everything one accountant's ε depends on, and nothing
// else, so points with the same DP-SGD configuration share the node.
type accountantParams struct {
	Accountant      string  `json:"accountant"`
	NoiseMultiplier float64 `json:"noise_multiplier"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
	Delta           float64 `json:"delta"`
	Conversion      string  `json:"conversion,omitempty"`   // rdp only
	PLDInterval     float64 `json:"pld_interval,omitempty"` // pld only
	PLDMemory       int64   `json:"pld_memory,omitempty"`   // pld and best only: bytes (pldMemory)
	Epsilon         float64 `json:"epsilon,omitempty"`      // also report δ(ε)
	// Sampling and Adjacency are left out at their defaults (poisson,
	// add_remove), so the nodes of a spec that does not set them keep
	// their keys.
	Sampling  string `json:"sampling,omitempty"`
	Adjacency string `json:"adjacency,omitempty"`
	// Matrix marks the DP-SGD equivalent of a matrix mechanism
	// (matrixParams); left out otherwise.
	Matrix string `json:"matrix,omitempty"`
}

// mechanism is the mechanism the node accounts.
func (p accountantParams) mechanism() privacy.SampledGaussian {
	return privacy.SampledGaussian{NoiseMultiplier: p.NoiseMultiplier, SamplingRate: p.SamplingRate, Steps: p.Steps,
		Sampling: privacy.Sampling(p.Sampling), Adjacency: privacy.Adjacency(p.Adjacency)}
}

// form is the sampler and adjacency for a label, empty at the defaults.
func (p accountantParams) form() string {
	f := ""
	if p.Sampling != "" {
		f += " " + p.Sampling
	}
	if p.Adjacency != "" {
		f += " " + p.Adjacency
	}
	if p.Matrix != "" {
		f += " (" + p.Matrix + ", as DP-SGD)"
	}
	return f
}

// nonDefault is v, or "" when it is the default def (or empty).
func nonDefault(v, def string) string {
	if v == def {
		return ""
	}
	return v
}

// accountantCalcs makes one calc per requested accountant of an entry;
// the summary sees their union. An accountant that cannot account the
// point's sampler and adjacency (RDP and balls-in-bins, fixed-size under
// add/remove, …) is refused here, with the reason, before anything runs.
func accountantCalcs(exp *spec.Experiment, a *spec.AccountantBound, path string) ([]stages.Calc, error) {
	d := exp.DPSGD
	var out []stages.Calc
	for _, acc := range a.Accountants {
		p := accountantParams{
			Accountant:      acc,
			NoiseMultiplier: d.NoiseMultiplier,
			SamplingRate:    d.SamplingRate,
			Steps:           d.Steps,
			Delta:           d.Delta,
			Epsilon:         a.Epsilon,
			Sampling:        nonDefault(d.Sampling, "poisson"),
			Adjacency:       nonDefault(cmp.Or(a.Adjacency, d.Adjacency), "add_remove"),
		}
		if err := matrixParams(&p, d); err != nil {
			return nil, &stages.PathError{Path: path, Err: fmt.Errorf("accountant %s of dpsgd: %w", acc, err)}
		}
		if err := privacy.CheckAccountable(privacy.Accountant(acc), p.mechanism()); err != nil {
			return nil, &stages.PathError{Path: path, Err: fmt.Errorf("accountant %s of dpsgd (%s sampling, %s adjacency): %w", acc, cmp.Or(d.Sampling, "poisson"), cmp.Or(p.Adjacency, "add_remove"), err)}
		}
		switch acc {
		case "rdp":
			p.Conversion = a.Conversion
		case "pld":
			p.PLDInterval, p.PLDMemory = a.PLDInterval, pldMemory(a)
		case "best":
			p.Conversion, p.PLDInterval, p.PLDMemory = a.Conversion, a.PLDInterval, pldMemory(a)
		}
		out = append(out, stages.Calc{
			Kind:    "accountant",
			Version: accountantVersion,
			Params:  p,
			Label:   fmt.Sprintf("%s%s σ=%.4g q=%.4g T=%d δ=%.3g", acc, p.form(), p.NoiseMultiplier, p.SamplingRate, p.Steps, p.Delta),
			Sub:     acc,
			Columns: accountantColumns(p),
			Compute: func() ([]stages.Output, error) { return runAccountant(p) },
		})
	}
	return out, nil
}

// matrixParams replaces, for cyclic sampling or matrix-factorization
// noise, the mechanism of p by the DP-SGD mechanism its matrix mechanism
// is equivalent to (stages.Accounted); Matrix labels the node.
func matrixParams(p *accountantParams, d *spec.DPSGD) error {
	eq, mf, err := stages.Accounted(d.NoiseMultiplier, d.SamplingRate, d.Steps, d.Sampling, d.Groups, stages.CorrelatedOf(d.Correlated))
	if !mf {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Adjacency != "" {
		return fmt.Errorf("%w: matrix-factorization noise and cyclic sampling are accounted under add_remove adjacency only", privacy.ErrInvalid)
	}
	p.NoiseMultiplier, p.SamplingRate, p.Steps, p.Sampling = eq.NoiseMultiplier, eq.SamplingRate, eq.Steps, ""
	p.Matrix = "matrix mechanism"
	return nil
}

// pldMemory is the memory cap in bytes the PLD of an entry runs under: the
// spec's pld_memory_mib, else this machine's default (a quarter of its
// RAM). The interval the PLD coarsens to, and so its ε, depends on the
// cap, so the node keys on the cap it uses: machines with different RAM
// sharing a store compute their own nodes instead of storing different
// values under one key.
func pldMemory(a *spec.AccountantBound) int64 {
	if a.PLDMemMiB > 0 {
		return a.PLDMemMiB << 20
	}
	return privacy.DefaultPLDMemory()
}

func accountantColumns(p accountantParams) []string {
	cols := []string{"epsilon_" + p.Accountant}
	switch p.Accountant {
	case "rdp":
		cols = append(cols, "rdp_order")
	case "pld":
		cols = append(cols, "pld_interval_used")
	case "best":
		cols = append(cols, "best_accountant", "best_pld_interval_used")
	}
	if p.Epsilon > 0 {
		cols = append(cols, "delta_"+p.Accountant)
	}
	return cols
}

func accountantOptions(p accountantParams) privacy.Options {
	o := privacy.Options{PLDInterval: p.PLDInterval, PLDMemory: p.PLDMemory}
	if p.Conversion == "classic" {
		o.Conversion = privacy.ConversionClassic
	}
	return o
}

// runAccountant computes the outputs of one accountant node.
func runAccountant(p accountantParams) ([]stages.Output, error) {
	acc := privacy.Accountant(p.Accountant)
	m := p.mechanism()
	o := accountantOptions(p)
	var outs []stages.Output
	if acc == privacy.AccountantRDP {
		eps, order, err := privacy.RDPEpsilon(m, p.Delta, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("epsilon_rdp", eps), stages.F64("rdp_order", order))
	} else {
		r, err := privacy.EpsilonDetail(acc, m, p.Delta, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("epsilon_"+p.Accountant, r.Value))
		// The interval the PLD actually used: coarser than pld_interval
		// where the requested grid would exceed 2^23 points.
		switch acc {
		case privacy.AccountantPLD:
			outs = append(outs, stages.F64("pld_interval_used", r.PLDInterval))
		case privacy.AccountantBest:
			outs = append(outs, stages.Str("best_accountant", string(r.Accountant)),
				stages.F64("best_pld_interval_used", nonZero(r.PLDInterval)))
		}
	}
	if p.Epsilon > 0 {
		delta, err := privacy.Delta(acc, m, p.Epsilon, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("delta_"+p.Accountant, delta))
	}
	return outs, nil
}

// nonZero returns nil (a null cell) for 0: no PLD was run.
func nonZero(x float64) any {
	if x == 0 {
		return nil
	}
	return x
}
