package bound

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// minimaxVersion changes when the minimax_mse stage computes differently.
const minimaxVersion = 1

// minimaxParams is what the minimax bounds depend on: ε (and δ) given
// directly, or the DP-SGD run and accountant they are accounted from.
type minimaxParams struct {
	Epsilon            float64           `json:"epsilon,omitempty"`
	Delta              float64           `json:"delta"`
	DPSGD              *stages.Mechanism `json:"dpsgd,omitempty"`
	Accountant         string            `json:"accountant,omitempty"`
	Conversion         string            `json:"conversion,omitempty"`
	Models             int               `json:"models"`
	Diameter           float64           `json:"diameter"`
	Dimension          int               `json:"dimension,omitempty"`
	EffectiveDimension string            `json:"effective_dimension,omitempty"`
	Alpha              float64           `json:"alpha"`
	MDPConstant        string            `json:"mdp_constant,omitempty"`
}

var minimaxColumns = []string{
	"minimax_epsilon", "minimax_delta", "minimax_dp", "minimax_rdp_epsilon", "minimax_rdp",
	"minimax_mdp", "minimax_high_dim", "minimax_guo_total", "minimax_guo_vacuity_epsilon",
}

func minimaxCalc(exp *spec.Experiment, m *spec.MinimaxBound) stages.Calc {
	p := minimaxParams{
		Epsilon: m.Epsilon, Delta: m.Delta, Models: m.Models, Diameter: m.Diameter,
		Dimension: m.Dimension, Alpha: m.Alpha,
	}
	if m.Dimension > 0 {
		p.EffectiveDimension = m.EffectiveDimension
	}
	label := fmt.Sprintf("ε=%.4g δ=%g n=%d", m.Epsilon, m.Delta, m.Models)
	if m.Epsilon == 0 {
		d := stages.MechanismOf(exp.DPSGD)
		p.DPSGD, p.Delta, p.Accountant = &d, exp.DPSGD.Delta, m.Accountant
		if m.Accountant == "rdp" {
			p.Conversion = m.Conversion
		}
		label = fmt.Sprintf("%s δ=%g %s n=%d", d, p.Delta, m.Accountant, m.Models)
	} else {
		p.MDPConstant = m.MDPConstant // metric DP only with ε given
	}
	return stages.Calc{
		Kind:    "minimax_mse",
		Version: minimaxVersion,
		Params:  p,
		Label:   label,
		Columns: minimaxColumns,
		Compute: func() ([]stages.Output, error) { return runMinimax(p) },
	}
}

// runMinimax computes the bounds, all in total squared distance
// E‖ẑ − z‖² (squared data units; divide by d for a per-coordinate MSE).
func runMinimax(p minimaxParams) ([]stages.Output, error) {
	eps, epsRDP, eps2 := p.Epsilon, p.Epsilon, p.Epsilon
	if p.DPSGD != nil {
		var err error
		if eps, err = accountedEpsilon(*p.DPSGD, p.Delta, p.Accountant, p.Conversion); err != nil {
			return nil, err
		}
		if epsRDP, err = runRDP(*p.DPSGD, p.Alpha); err != nil {
			return nil, err
		}
		if eps2, err = runRDP(*p.DPSGD, 2); err != nil {
			return nil, err
		}
	}
	dp, err := bounds.MinimaxDP(finiteOrMax(eps), p.Delta, p.Models, p.Diameter)
	if err != nil {
		return nil, err
	}
	rdp, err := bounds.MinimaxRDP(finiteOrMax(epsRDP), p.Alpha, p.Models, p.Diameter)
	if err != nil {
		return nil, err
	}
	outs := []stages.Output{
		stages.F64("minimax_epsilon", eps), stages.F64("minimax_delta", p.Delta), stages.F64("minimax_dp", dp),
		stages.F64("minimax_rdp_epsilon", epsRDP), stages.F64("minimax_rdp", rdp),
	}
	if p.DPSGD == nil {
		// The paper reads ε as ε_L of metric DP for Theorems E.4 and 4.4;
		// DP-SGD has no such guarantee without input Lipschitzness.
		mdp, err := bounds.MinimaxMDP(eps, p.Delta, p.Models, bounds.MDPConstant(p.MDPConstant))
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("minimax_mdp", mdp))
		if p.Dimension > 0 {
			lo, hi, err := bounds.EffectiveDimension(p.Dimension)
			if err != nil {
				return nil, err
			}
			dTilde := lo
			if p.EffectiveDimension == "high" {
				dTilde = hi
			}
			hd, _, err := bounds.MinimaxHighDim(dTilde, eps, p.Delta, p.Models)
			if err != nil {
				return nil, err
			}
			outs = append(outs, stages.F64("minimax_high_dim", hd))
		}
	}
	if p.Dimension > 0 {
		// Guo et al.'s Theorem 1 as Mukherjee & Lokam compare it (App.
		// E.3.1): Σ diam_i² = d·diam², at the order-2 RDP ε.
		guo := 0.0
		if !math.IsInf(eps2, 1) {
			if guo, err = bounds.GuoTotalBound(eps2, float64(p.Dimension)*p.Diameter*p.Diameter); err != nil {
				return nil, err
			}
		}
		vacuous, err := bounds.GuoVacuityThreshold(p.Dimension)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("minimax_guo_total", guo), stages.F64("minimax_guo_vacuity_epsilon", vacuous))
	}
	return outs, nil
}

// runRDP is the order-α RDP (nats) of the whole DP-SGD run.
func runRDP(d stages.Mechanism, alpha float64) (float64, error) {
	if d.NoNoise() {
		return math.Inf(1), nil
	}
	v, err := privacy.RDPSampledGaussian(d.SamplingRate, d.NoiseMultiplier, alpha)
	return float64(d.Steps) * v, err
}

// finiteOrMax lets an infinite ε through the bounds' input checks as the
// largest float, where every bound is 0.
func finiteOrMax(x float64) float64 {
	if math.IsInf(x, 1) {
		return math.MaxFloat64
	}
	return x
}
