package stages

import (
	"context"
	"fmt"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// Calc is a node that is a pure function of its parameters — an
// accountant's ε, a theoretical bound — before it is a node, so that the
// quick calculator (`dpaudit bound`) runs the same computation in this
// process, with no store and no graph (Values).
type Calc struct {
	Kind    string
	Version int
	Params  any
	Label   string
	Sub     string   // distinguishes several calcs of one entry in the slot
	Columns []string // every column it may write (clash detection)
	Compute func() ([]Output, error)
	// Package, if set, is the package that declares Compute when it is
	// not the game's (a calc shared by two games): the node keys on that
	// package's code, so both games build the same node.
	Package string
}

// Node is the calc's node for entry `entry` of the spec's list (bound[i])
// at the point of b; its values.json holds Compute's outputs.
func (c Calc) Node(b *Build, entry int) *pipeline.Node {
	slot := fmt.Sprintf("%s/%s/%d/%d", b.Name, c.Kind, b.Point.Index, entry)
	if c.Sub != "" {
		slot += "/" + c.Sub
	}
	compute := c.Compute
	n := &pipeline.Node{
		Kind:    c.Kind,
		Version: c.Version,
		Params:  c.Params,
		Label:   c.Label,
		Slot:    slot,
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := compute()
			if err != nil {
				return err
			}
			return WriteValues(w.Dir, outs)
		},
	}
	if c.Package != "" {
		n.Code = b.Env.code(c.Package)
	}
	return n
}

// Values computes calcs in this process, in order: the columns they write
// into a summary row.
func Values(calcs []Calc) ([]Output, error) {
	var outs []Output
	for _, c := range calcs {
		o, err := c.Compute()
		if err != nil {
			return nil, err
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

// Mechanism is the part of the dpsgd block the theoretical bounds depend
// on: the mechanism in units of the clipping norm (C, the model and the
// data do not enter).
type Mechanism struct {
	NoiseMultiplier float64 `json:"noise_multiplier"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
}

// MechanismOf is the mechanism of a dpsgd block.
func MechanismOf(d *spec.DPSGD) Mechanism {
	return Mechanism{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps}
}

func (d Mechanism) String() string {
	return fmt.Sprintf("σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps)
}

// NoNoise is non-private training (σ = 0 with clip_norm .inf): every bound
// is trivial, ε = +Inf.
func (d Mechanism) NoNoise() bool { return d.NoiseMultiplier == 0 }

// SoftClipSensitivity is the soft clip's largest output norm in units of C
// (learn.ClipSoft, Guo et al. 2022 §6.2).
const SoftClipSensitivity = 1.11524

// AccountedMechanism is the mechanism an accountant takes for a claimed or
// trained DP-SGD configuration, as the summary's claim_* and trained_*
// columns name it. Noise σC on a sum whose sensitivity is s·C is the
// Gaussian mechanism with noise multiplier σ/s: the soft clip's outputs
// reach 1.11524·C. Replace-one adjacency is the accountant's to handle
// (exact dominating pairs); "replace", its older name at sensitivity 2C, is
// the σ/2 add/remove bound. Empty sampling and adjacency are the defaults
// (Poisson, add/remove).
func AccountedMechanism(sigma, rate float64, steps int, sampling, adjacency, clip string) privacy.SampledGaussian {
	if clip == "soft" {
		sigma /= SoftClipSensitivity
	}
	adj := privacy.Adjacency(adjacency)
	if adjacency == "replace" {
		adj = privacy.AdjacencyReplaceOneSigmaHalf
	}
	return privacy.SampledGaussian{NoiseMultiplier: sigma, SamplingRate: rate, Steps: steps,
		Sampling: privacy.Sampling(sampling), Adjacency: adj}
}
