package stages

import (
	"context"
	"fmt"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
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
	PLDMemory       int64   `json:"pld_memory,omitempty"`   // pld only: bytes (0: a quarter of RAM)
	Epsilon         float64 `json:"epsilon,omitempty"`      // also report δ(ε)
}

// accountantStage makes one node per requested accountant of a point; the
// "stage" the summary sees is their union.
func accountantStages(name string, pt spec.Point, b int, a *spec.AccountantBound) []pointStage {
	d := pt.Exp.DPSGD
	var out []pointStage
	for _, acc := range a.Accountants {
		p := accountantParams{
			Accountant:      acc,
			NoiseMultiplier: d.NoiseMultiplier,
			SamplingRate:    d.SamplingRate,
			Steps:           d.Steps,
			Delta:           d.Delta,
			Epsilon:         a.Epsilon,
		}
		switch acc {
		case "rdp":
			p.Conversion = a.Conversion
		case "pld":
			p.PLDInterval, p.PLDMemory = a.PLDInterval, a.PLDMemMiB<<20
		case "best":
			p.Conversion, p.PLDInterval, p.PLDMemory = a.Conversion, a.PLDInterval, a.PLDMemMiB<<20
		}
		node := &pipeline.Node{
			Kind:    "accountant",
			Version: accountantVersion,
			Params:  p,
			Label:   fmt.Sprintf("%s σ=%.4g q=%.4g T=%d δ=%.3g", acc, p.NoiseMultiplier, p.SamplingRate, p.Steps, p.Delta),
			Slot:    fmt.Sprintf("%s/accountant/%d/%d/%s", name, pt.Index, b, acc),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				outs, err := runAccountant(p)
				if err != nil {
					return err
				}
				return WriteValues(w.Dir, outs)
			},
		}
		out = append(out, pointStage{node: node, columns: accountantColumns(p)})
	}
	return out
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
func runAccountant(p accountantParams) ([]Output, error) {
	acc := privacy.Accountant(p.Accountant)
	m := privacy.SampledGaussian{NoiseMultiplier: p.NoiseMultiplier, SamplingRate: p.SamplingRate, Steps: p.Steps}
	o := accountantOptions(p)
	var outs []Output
	if acc == privacy.AccountantRDP {
		eps, order, err := privacy.RDPEpsilon(m, p.Delta, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, Output{"epsilon_rdp", pipeline.Float64, eps}, Output{"rdp_order", pipeline.Float64, order})
	} else {
		r, err := privacy.EpsilonDetail(acc, m, p.Delta, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, Output{"epsilon_" + p.Accountant, pipeline.Float64, r.Value})
		// The interval the PLD actually used: coarser than pld_interval
		// where the requested grid would exceed 2^23 points.
		switch acc {
		case privacy.AccountantPLD:
			outs = append(outs, Output{"pld_interval_used", pipeline.Float64, r.PLDInterval})
		case privacy.AccountantBest:
			outs = append(outs, Output{"best_accountant", pipeline.String, string(r.Accountant)},
				Output{"best_pld_interval_used", pipeline.Float64, nonZero(r.PLDInterval)})
		}
	}
	if p.Epsilon > 0 {
		delta, err := privacy.Delta(acc, m, p.Epsilon, o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, Output{"delta_" + p.Accountant, pipeline.Float64, delta})
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
