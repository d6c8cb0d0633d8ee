package bound

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// beliefVersion changes when the belief stage computes differently.
const beliefVersion = 1

// beliefParams is what the identifiability bounds depend on: where ε comes
// from (given, a target ρ_β or ρ_α, or the accounted DP-SGD run) and δ.
type beliefParams struct {
	Epsilon        float64           `json:"epsilon,omitempty"`
	TargetRhoBeta  float64           `json:"target_rho_beta,omitempty"`
	TargetRhoAlpha float64           `json:"target_rho_alpha,omitempty"`
	DPSGD          *stages.Mechanism `json:"dpsgd,omitempty"`
	Accountant     string            `json:"accountant,omitempty"`
	Conversion     string            `json:"conversion,omitempty"`
	Delta          float64           `json:"delta"`
}

var beliefColumns = []string{
	"belief_epsilon", "belief_delta", "rho_beta", "rho_alpha", "rho_alpha_rdp",
	"belief_expected_confidence", "belief_yeom_advantage",
}

func beliefCalc(exp *spec.Experiment, b *spec.BeliefBound) stages.Calc {
	p := beliefParams{Epsilon: b.Epsilon, TargetRhoBeta: b.TargetRhoBeta, TargetRhoAlpha: b.TargetRhoAlpha, Delta: b.Delta}
	if p.Delta == 0 {
		p.Delta = exp.DPSGD.Delta // validation makes sure there is a dpsgd block
	}
	var label string
	switch {
	case p.Epsilon > 0:
		label = fmt.Sprintf("ε=%.4g δ=%g", p.Epsilon, p.Delta)
	case p.TargetRhoBeta > 0:
		label = fmt.Sprintf("ρ_β=%g δ=%g", p.TargetRhoBeta, p.Delta)
	case p.TargetRhoAlpha > 0:
		label = fmt.Sprintf("ρ_α=%g δ=%g", p.TargetRhoAlpha, p.Delta)
	default:
		d := stages.MechanismOf(exp.DPSGD)
		p.DPSGD, p.Accountant = &d, b.Accountant
		if b.Accountant == "rdp" {
			p.Conversion = b.Conversion
		}
		label = fmt.Sprintf("%s δ=%g %s", d, p.Delta, b.Accountant)
	}
	return stages.Calc{
		Kind:    "belief",
		Version: beliefVersion,
		Params:  p,
		Label:   label,
		Columns: beliefColumns,
		Compute: func() ([]stages.Output, error) { return runBelief(p) },
	}
}

// runBelief computes Bernau et al.'s bounds at the entry's ε: the posterior
// belief ρ_β (Theorem 1, holds with probability 1 − δ), the advantage ρ_α
// of the Gaussian mechanism calibrated with the classic formula at δ
// (Theorem 2), the expected confidence ρ_β + δ(1 − ρ_β) (the authors'
// code; Fig. 3(a)) and Yeom's advantage bound min(1, e^ε − 1).
func runBelief(p beliefParams) ([]stages.Output, error) {
	eps := p.Epsilon
	var err error
	switch {
	case p.TargetRhoBeta > 0:
		eps, err = bounds.EpsilonFromRhoBeta(p.TargetRhoBeta)
	case p.TargetRhoAlpha > 0:
		eps, err = bounds.EpsilonFromRhoAlpha(p.TargetRhoAlpha, p.Delta)
	case p.DPSGD != nil:
		eps, err = accountedEpsilon(*p.DPSGD, p.Delta, p.Accountant, p.Conversion)
	}
	if err != nil {
		return nil, err
	}
	// ε = +Inf (no noise): every bound is 1.
	rhoBeta, rhoAlpha, conf, yeom := 1.0, 1.0, 1.0, 1.0
	if !math.IsInf(eps, 1) {
		if rhoBeta, err = bounds.RhoBeta(eps); err != nil {
			return nil, err
		}
		if rhoAlpha, err = bounds.RhoAlpha(eps, p.Delta); err != nil {
			return nil, err
		}
		if conf, err = bounds.ExpectedConfidenceBound(eps, p.Delta); err != nil {
			return nil, err
		}
		if yeom, err = bounds.YeomBound(eps); err != nil {
			return nil, err
		}
	}
	outs := []stages.Output{
		stages.F64("belief_epsilon", eps), stages.F64("belief_delta", p.Delta),
		stages.F64("rho_beta", rhoBeta), stages.F64("rho_alpha", rhoAlpha),
	}
	if p.DPSGD != nil {
		// The RDP form of ρ_α (Sec. 4.4), 2Φ(√T/(2σ)) − 1: exact for the
		// Bayes-optimal adversary at q = 1, an upper bound for q < 1
		// (knowing which steps sampled the record can only help).
		ra := 1.0
		if !p.DPSGD.NoNoise() {
			if ra, err = bounds.RhoAlphaGaussianSteps(p.DPSGD.Steps, p.DPSGD.NoiseMultiplier); err != nil {
				return nil, err
			}
		}
		outs = append(outs, stages.F64("rho_alpha_rdp", ra))
	}
	return append(outs, stages.F64("belief_expected_confidence", conf), stages.F64("belief_yeom_advantage", yeom)), nil
}
