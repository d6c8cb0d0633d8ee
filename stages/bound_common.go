package stages

import (
	"context"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// The theoretical bounds (rero, mse_rdp, minimax_mse, belief) share one
// shape: a bound entry of a point becomes one or more nodes, each a pure
// function of its params. boundStage is such a node before it is a
// pipeline node, so that the quick calculator (BoundValues) can run the
// same computation in-process.
type boundStage struct {
	kind    string
	version int
	params  any
	label   string
	sub     string   // distinguishes several nodes of one entry in the slot
	columns []string // every column it may write (clash detection)
	compute func() ([]Output, error)
}

// pointStage turns the bound stage of entry b of point pt into a node.
func (s boundStage) pointStage(name string, pt spec.Point, b int) pointStage {
	slot := fmt.Sprintf("%s/%s/%d/%d", name, s.kind, pt.Index, b)
	if s.sub != "" {
		slot += "/" + s.sub
	}
	compute := s.compute
	node := &pipeline.Node{
		Kind:    s.kind,
		Version: s.version,
		Params:  s.params,
		Label:   s.label,
		Slot:    slot,
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := compute()
			if err != nil {
				return err
			}
			return WriteValues(w.Dir, outs)
		},
	}
	return pointStage{node: node, columns: s.columns}
}

// boundStagesOf builds the stages of bound entry b of a point (one of the
// theoretical bounds; the accountant has its own file). Problems that only
// the bounds library knows about come back as *PathError.
func boundStagesOf(pt spec.Point, b int) ([]boundStage, error) {
	entry := pt.Exp.Bound[b]
	path := fmt.Sprintf("bound[%d]", b)
	// The spec's validation makes sure of this; BoundValues callers may not.
	if pt.Exp.DPSGD == nil && needsDPSGD(entry) {
		return nil, &PathError{path, fmt.Errorf("%w: the %s bound needs a dpsgd block to account from (or ε given directly, and δ for belief)", bounds.ErrInvalid, entry.Kind)}
	}
	switch {
	case entry.Rero != nil:
		return reroStages(pt.Exp, entry.Rero, path)
	case entry.MSE != nil:
		return []boundStage{mseRDPStage(pt.Exp, entry.MSE)}, nil
	case entry.Minimax != nil:
		return []boundStage{minimaxStage(pt.Exp, entry.Minimax)}, nil
	case entry.Belief != nil:
		return []boundStage{beliefStage(pt.Exp, entry.Belief)}, nil
	}
	return nil, fmt.Errorf("bound[%d] kind %q has no stage", b, entry.Kind)
}

// needsDPSGD reports whether an entry falls back on the dpsgd block.
func needsDPSGD(e spec.Bound) bool {
	switch {
	case e.Rero != nil:
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

// boundStages makes the nodes of bound entry b of point pt.
func boundStages(name string, pt spec.Point, b int) ([]pointStage, error) {
	bs, err := boundStagesOf(pt, b)
	if err != nil {
		return nil, err
	}
	out := make([]pointStage, len(bs))
	for i, s := range bs {
		out[i] = s.pointStage(name, pt, b)
	}
	return out, nil
}

// BoundValues computes one theoretical bound entry in this process, with
// no store and no graph: what "dpaudit bound" prints. d is the DP-SGD
// configuration (nil when the entry takes ε directly) and seed the spec
// seed from which Monte Carlo streams derive. The outputs are the columns
// the entry writes into a summary row, in the same order. Bad input comes
// back as an error wrapping bounds.ErrInvalid, or as a *PathError naming
// the entry's key ("bound[0].samples").
func BoundValues(entry spec.Bound, d *spec.DPSGD, seed int64) ([]Output, error) {
	exp := &spec.Experiment{Seed: seed, DPSGD: d, Bound: []spec.Bound{entry}}
	bs, err := boundStagesOf(spec.Point{Exp: exp}, 0)
	if err != nil {
		return nil, err
	}
	var outs []Output
	for _, s := range bs {
		o, err := s.compute()
		if err != nil {
			return nil, err
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

// dpsgdParams is the part of the dpsgd block the bounds depend on (the
// mechanism in units of the clipping norm: C, the model and the data do
// not enter).
type dpsgdParams struct {
	NoiseMultiplier float64 `json:"noise_multiplier"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
}

func dpsgdOf(d *spec.DPSGD) dpsgdParams {
	return dpsgdParams{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps}
}

func (d dpsgdParams) String() string {
	return fmt.Sprintf("σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps)
}

// noNoise is non-private training (σ = 0 with clip_norm .inf): every bound
// is trivial, ε = +Inf.
func (d dpsgdParams) noNoise() bool { return d.NoiseMultiplier == 0 }

// accountedEpsilon is ε at δ of the DP-SGD run by the named accountant
// (+Inf without noise), with the RDP conversion named for rdp.
func accountedEpsilon(d dpsgdParams, delta float64, accountant, conversion string) (float64, error) {
	if d.noNoise() {
		return math.Inf(1), nil
	}
	o := privacy.Options{}
	if conversion == "classic" {
		o.Conversion = privacy.ConversionClassic
	}
	m := privacy.SampledGaussian{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps}
	return privacy.Epsilon(privacy.Accountant(accountant), m, delta, o)
}
