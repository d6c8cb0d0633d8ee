package bound

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// mseRDPVersion changes when the mse_rdp stage computes differently.
const mseRDPVersion = 1

// mseRDPParams is what Guo et al.'s Theorem 1 depends on: ε₂ given
// directly, or the DP-SGD run it is accounted from.
type mseRDPParams struct {
	Epsilon  float64           `json:"epsilon,omitempty"`
	DPSGD    *stages.Mechanism `json:"dpsgd,omitempty"`
	SoftClip bool              `json:"soft_clip,omitempty"`
	Diameter float64           `json:"diameter"`
}

var mseRDPColumns = []string{"mse_rdp_epsilon", "mse_lower_bound"}

func mseRDPCalc(exp *spec.Experiment, m *spec.MSERDPBound) stages.Calc {
	p := mseRDPParams{Epsilon: m.Epsilon, Diameter: m.Diameter}
	label := fmt.Sprintf("ε₂=%.4g diam=%g", m.Epsilon, m.Diameter)
	if m.Epsilon == 0 {
		d := stages.MechanismOf(exp.DPSGD)
		p.DPSGD, p.SoftClip = &d, exp.DPSGD.Clip == "soft"
		label = fmt.Sprintf("%s diam=%g", d, m.Diameter)
	}
	return stages.Calc{
		Kind:    "mse_rdp",
		Version: mseRDPVersion,
		Params:  p,
		Label:   label,
		Columns: mseRDPColumns,
		Compute: func() ([]stages.Output, error) { return runMSERDP(p) },
	}
}

// runMSERDP computes E‖ẑ − z‖²/d ≥ diam²/(4(e^ε₂ − 1)) for unbiased
// attackers (per coordinate, squared data units; +Inf at ε₂ = 0).
func runMSERDP(p mseRDPParams) ([]stages.Output, error) {
	eps := p.Epsilon
	if p.DPSGD != nil {
		if p.DPSGD.NoNoise() {
			eps = math.Inf(1)
		} else {
			var err error
			eps, err = bounds.DPSGDRenyi2(p.DPSGD.SamplingRate, p.DPSGD.NoiseMultiplier, p.DPSGD.Steps, p.SoftClip)
			if err != nil {
				return nil, err
			}
		}
	}
	bound := 0.0 // the limit as ε₂ → ∞
	if !math.IsInf(eps, 1) {
		var err error
		if bound, err = bounds.GuoMSEBoundUniform(eps, p.Diameter); err != nil {
			return nil, err
		}
	}
	return []stages.Output{stages.F64("mse_rdp_epsilon", eps), stages.F64("mse_lower_bound", bound)}, nil
}
