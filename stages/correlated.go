package stages

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// Correlated is a matrix-factorization strategy and the participation
// schema its accountant assumes, resolved from a spec's correlated block:
// a banded strategy's coefficients are spelled out, so that two ways of
// writing the same strategy share their nodes.
type Correlated struct {
	Strategy          string    `json:"strategy"`
	Coefficients      []float64 `json:"coefficients,omitempty"`
	Omega             []float64 `json:"omega,omitempty"`
	Theta             []float64 `json:"theta,omitempty"`
	Participation     string    `json:"participation"`
	MinSep            int       `json:"min_sep,omitempty"`
	MaxParticipations int       `json:"max_participations,omitempty"`
}

// CorrelatedOf resolves a spec's correlated block (nil stays nil).
func CorrelatedOf(c *spec.Correlated) *Correlated {
	if c == nil {
		return nil
	}
	r := &Correlated{Strategy: c.Strategy, Participation: c.Participation, MinSep: c.MinSep, MaxParticipations: c.MaxParticipations}
	if r.Strategy == "" {
		r.Strategy = "banded"
	}
	if r.Participation == "" {
		r.Participation = "cyclic"
	}
	switch {
	case r.Strategy == "blt":
		r.Omega, r.Theta = c.Omega, c.Theta
	case len(c.Coefficients) > 0:
		r.Coefficients = c.Coefficients
	default:
		r.Coefficients = privacy.OptimalToeplitzCoefficients(c.Bands)
	}
	return r
}

// Learn is the trainer's noise (nil: independent noise).
func (c *Correlated) Learn() *learn.CorrelatedNoise {
	if c == nil {
		return nil
	}
	if c.Strategy == "blt" {
		return &learn.CorrelatedNoise{Omega: c.Omega, Theta: c.Theta}
	}
	return &learn.CorrelatedNoise{Toeplitz: c.Coefficients}
}

// Bands is the number of bands of a banded strategy (T for BLT).
func (c *Correlated) Bands(steps int) int {
	if c.Strategy == "blt" {
		return steps
	}
	return len(c.Coefficients)
}

// MatrixMechanism is the accountant's view of T steps of noise multiplier
// sigma (per unit sensitivity of one step's sum) with strategy c — nil
// is the identity strategy, i.e. DP-SGD with cyclic sampling — when the
// records cycle through groups groups sampled at rate q (groups 0: any
// sampler, a record may take part in any step).
//
//   - cyclic participation: min-separation groups (jax_privacy's
//     (k, b)-participation), sensitivity by privacy.ToeplitzSensitivity;
//   - min_sep: the block's own min_sep and max_participations;
//   - amplified (and the identity strategy): ⌈T/groups⌉ Poisson steps at
//     σ/‖c‖, jax_privacy's amplified_bandmf_event (Choquette-Choo et al.
//     2023, Theorem 4), valid when groups ≥ bands, so that one record's
//     participations touch disjoint rows of C·G.
func (c *Correlated) MatrixMechanism(sigma, q float64, steps, groups int) (privacy.MatrixMechanism, error) {
	if c == nil {
		if groups < 1 {
			return privacy.MatrixMechanism{}, fmt.Errorf("%w: cyclic sampling needs groups ≥ 1", privacy.ErrInvalid)
		}
		return privacy.MatrixMechanism{NoiseMultiplier: sigma, Sensitivity: 1, Steps: steps, Bands: groups, SamplingRate: q}, nil
	}
	coef, err := c.coefficients(steps)
	if err != nil {
		return privacy.MatrixMechanism{}, err
	}
	var part privacy.Participation
	switch c.Participation {
	case "amplified":
		if c.Strategy == "blt" || groups < len(coef) {
			return privacy.MatrixMechanism{}, fmt.Errorf("%w: amplified banded MF needs a banded strategy and groups ≥ bands (%d bands, %d groups)", privacy.ErrInvalid, len(coef), groups)
		}
		norm := 0.0
		for _, v := range coef {
			norm += v * v
		}
		return privacy.MatrixMechanism{NoiseMultiplier: sigma, Sensitivity: math.Sqrt(norm), Steps: steps, Bands: groups, SamplingRate: q}, nil
	case "cyclic":
		if groups < 1 {
			return privacy.MatrixMechanism{}, fmt.Errorf("%w: cyclic participation needs cyclic sampling (groups ≥ 1)", privacy.ErrInvalid)
		}
		part = privacy.Participation{MinSep: groups, MaxParticipations: c.MaxParticipations}
	default:
		part = privacy.Participation{MinSep: c.MinSep, MaxParticipations: c.MaxParticipations}
	}
	sens, err := privacy.ToeplitzSensitivity(coef, steps, part)
	if err != nil {
		return privacy.MatrixMechanism{}, err
	}
	return privacy.MatrixMechanism{NoiseMultiplier: sigma, Sensitivity: sens, Steps: steps}, nil
}

// coefficients is the strategy's first column over steps steps (a
// banded strategy's b coefficients).
func (c *Correlated) coefficients(steps int) ([]float64, error) {
	if c.Strategy == "blt" {
		return privacy.BLTCoefficients(c.Omega, c.Theta, steps)
	}
	if len(c.Coefficients) > steps {
		return nil, fmt.Errorf("%w: %d bands is more than the %d steps (a banded strategy has at most T bands)", privacy.ErrInvalid, len(c.Coefficients), steps)
	}
	return c.Coefficients, nil
}

// Accounted is the DP-SGD mechanism an accountant takes for a trained or
// claimed configuration: the Poisson-subsampled Gaussian, or for cyclic
// sampling and matrix-factorization noise the equivalent of its matrix
// mechanism (privacy.MatrixMechanism.Equivalent). sigma is already per
// unit sensitivity.
func Accounted(sigma, q float64, steps int, sampling string, groups int, c *Correlated) (privacy.SampledGaussian, bool, error) {
	if c == nil && sampling != "cyclic" {
		return privacy.SampledGaussian{NoiseMultiplier: sigma, SamplingRate: q, Steps: steps}, false, nil
	}
	if sampling != "cyclic" {
		groups = 0
	}
	mm, err := c.MatrixMechanism(sigma, q, steps, groups)
	if err != nil {
		return privacy.SampledGaussian{}, true, err
	}
	eq, err := mm.Equivalent()
	return eq, true, err
}
