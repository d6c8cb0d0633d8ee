// Package bound is the game of a spec's bound list: per point, every entry
// becomes nodes that are pure functions of their parameters — the
// accountants' ε (accountant), the ReRo bound and its comparators (rero,
// through package rero), the MSE lower bounds of Guo et al. (mse_rdp) and
// of Mukherjee & Lokam (minimax_mse), Bernau et al.'s belief and
// advantage bounds (belief), and the attack-risk panel read off an
// accountant's trade-off curve (risk). Values runs the same computations
// in this process for `dpaudit bound`.
package bound

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/rero"
)

// Game is the bounds game: it applies to every point with a bound list.
var Game = &stages.Game{
	Name:       "bounds",
	AppliesTo:  func(exp *spec.Experiment) bool { return len(exp.Bound) > 0 },
	Compile:    compile,
	Kinds:      []string{"accountant", "rero", "rero_comparator", "mse_rdp", "minimax_mse", "belief", "risk"},
	Implements: map[string][]string{"bound": {"accountant", "rero", "mse_rdp", "minimax_mse", "belief", "risk"}},
	// The accountant accounts them; the other kinds refuse them (calcsOf).
	MatrixNoise: true,
}

// compile adds the nodes of every bound entry of the point, in entry
// order; each writes its columns into the point's row.
func compile(b *stages.Build) error {
	for i := range b.Point.Exp.Bound {
		calcs, err := calcsOf(b.Point.Exp, i)
		if err != nil {
			return err
		}
		for _, c := range calcs {
			b.Row(c.Node(b, i), c.Columns)
		}
	}
	return nil
}

// calcsOf builds the calcs of bound entry i of exp. Problems that only
// the bounds library knows about come back as *stages.PathError.
func calcsOf(exp *spec.Experiment, i int) ([]stages.Calc, error) {
	entry := exp.Bound[i]
	path := fmt.Sprintf("bound[%d]", i)
	// The spec's validation makes sure of this; Values callers may not.
	if exp.DPSGD == nil && needsDPSGD(entry) {
		return nil, &stages.PathError{Path: path, Err: fmt.Errorf("%w: the %s bound needs a dpsgd block to account from (or ε given directly, and δ for belief)", bounds.ErrInvalid, entry.Kind)}
	}
	if d := exp.DPSGD; d != nil && needsDPSGD(entry) && entry.Accountant == nil && (d.Correlated != nil || d.Sampling == "cyclic") {
		return nil, &stages.PathError{Path: path, Err: fmt.Errorf("%w: the %s bound is computed for DP-SGD's Poisson-subsampled Gaussian; it does not cover cyclic sampling or matrix-factorization noise (kind accountant does)", bounds.ErrInvalid, entry.Kind)}
	}
	switch {
	case entry.Accountant != nil:
		return accountantCalcs(exp, entry.Accountant, path)
	case entry.Rero != nil:
		return rero.Calcs(exp, entry.Rero, path)
	case entry.MSE != nil:
		return []stages.Calc{mseRDPCalc(exp, entry.MSE)}, nil
	case entry.Minimax != nil:
		return []stages.Calc{minimaxCalc(exp, entry.Minimax)}, nil
	case entry.Belief != nil:
		return []stages.Calc{beliefCalc(exp, entry.Belief)}, nil
	case entry.Risk != nil:
		return []stages.Calc{riskCalc(exp, entry.Risk)}, nil
	}
	return nil, fmt.Errorf("bound[%d] kind %q has no stage", i, entry.Kind)
}

// needsDPSGD reports whether an entry falls back on the dpsgd block.
func needsDPSGD(e spec.Bound) bool {
	switch {
	case e.Accountant != nil, e.Rero != nil, e.Risk != nil:
		return true
	case e.MSE != nil:
		return e.MSE.Epsilon == 0
	case e.Minimax != nil:
		return e.Minimax.Epsilon == 0
	case e.Belief != nil:
		b := e.Belief
		return b.Delta == 0 || (b.Epsilon == 0 && b.TargetRhoBeta == 0 && b.TargetRhoAlpha == 0)
	}
	return false
}

// Values computes one bound entry in this process, with no store and no
// graph: what "dpaudit bound" prints. d is the DP-SGD configuration (nil
// when the entry takes ε directly) and seed the spec seed from which Monte
// Carlo streams derive. The outputs are the columns the entry writes into
// a summary row, in the same order. Bad input comes back as an error
// wrapping bounds.ErrInvalid, or as a *stages.PathError naming the entry's
// key ("bound[0].samples").
func Values(entry spec.Bound, d *spec.DPSGD, seed int64) ([]stages.Output, error) {
	calcs, err := calcsOf(&spec.Experiment{Seed: seed, DPSGD: d, Bound: []spec.Bound{entry}}, 0)
	if err != nil {
		return nil, err
	}
	return stages.Values(calcs)
}

// accountedEpsilon is ε at δ of the DP-SGD run by the named accountant
// (+Inf without noise), with the RDP conversion named for rdp.
func accountedEpsilon(d stages.Mechanism, delta float64, accountant, conversion string) (float64, error) {
	if d.NoNoise() {
		return math.Inf(1), nil
	}
	o := privacy.Options{}
	if conversion == "classic" {
		o.Conversion = privacy.ConversionClassic
	}
	m := privacy.SampledGaussian{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps}
	return privacy.Epsilon(privacy.Accountant(accountant), m, delta, o)
}
