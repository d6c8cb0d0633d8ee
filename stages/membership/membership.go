// Package membership holds the membership-inference games (Nasr et al.
// 2021, "Adversary Instantiation", and its descendants): a crafter picks
// the neighbouring datasets, trial shards train (or simulate the ideal
// mechanism) in either world, and an estimate node turns the
// distinguisher's scores into an empirical ε lower bound beside the
// claim's ε. Five games share the shards and the estimate:
//
//   - Classic: a fixed number of trials, Clopper–Pearson on a threshold
//     (split, post hoc or Bonferroni);
//   - LastIterate: the classic game from a worst-case pre-trained θ_0
//     (audit.worst_case_init; Annamalai & De Cristofaro 2024);
//   - OneRun: m canaries in one training run (Steinke, Nasr & Jagielski
//     2023), with the f-DP and order-statistics bounds beside;
//   - PerStep: the per-step Gaussian of Dirac canaries composed over the
//     claim's steps (Nasr et al. 2023);
//   - Sequential: looks at growing trial counts that stop at the first
//     refutation (audit.stop: sequential).
package membership

import (
	"fmt"
	"slices"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// The membership games. Exactly one applies to a point with an audit
// block (variantOf).
var (
	Classic     = newGame(variantClassic, compileClassic)
	LastIterate = newGame(variantLastIterate, compileClassic)
	OneRun      = newGame(variantOneRun, compileOneRun)
	PerStep     = newGame(variantPerStep, compilePerStep)
	Sequential  = newGame(variantSequential, compileSequential)
)

// The variants' names: each game's Name.
const (
	variantClassic     = "membership"
	variantLastIterate = "last-iterate membership"
	variantOneRun      = "one-run membership"
	variantPerStep     = "per-step membership"
	variantSequential  = "sequential membership"
)

// variantOf names the membership game an audit block asks for ("" for
// none). stop: sequential decides first, then the estimator, then a
// worst-case θ_0; each game refuses what it cannot do (checkWorstCaseInit).
func variantOf(a *spec.Audit) string {
	switch {
	case a == nil, a.Source != nil: // a score table: stages/scores
		return ""
	case a.Stop == "sequential":
		return variantSequential
	case a.Estimator == "one_run":
		return variantOneRun
	case a.Estimator == "per_step":
		return variantPerStep
	case a.WorstCaseInit != nil:
		return variantLastIterate
	}
	return variantClassic
}

func newGame(name string, compile func(*stages.Build) error) *stages.Game {
	return &stages.Game{
		Name:         name,
		AppliesTo:    func(exp *spec.Experiment) bool { return variantOf(exp.Audit) == name },
		Compile:      compile,
		Kinds:        []string{"craft", "trials", "look", "onerun_train", "onerun_input_train", "perstep_train", "estimate"},
		TrialColumns: TrialColumns,
		Violations:   func(sum *pipeline.Table) ([]stages.Violation, error) { return violations(name, sum) },
		Implements:   implements,
	}
}

// implements are the spec blocks and kinds the membership games share.
var implements = map[string][]string{
	"audit": {""},
	"crafter": {"random_record", "mislabeled_record", "constant_input", "noise_input",
		"static_poison", "adaptive_poison", "gradient_canary", "malicious_dataset"},
	"distinguisher": {"loss_threshold", "intermediate_loss", "watermark"},
}

// setup is what every membership game starts with: the trained
// configuration, the claim it is audited against, and the estimate's
// parameters that do not depend on the trials.
func setup(b *stages.Build) (estimateParams, error) {
	exp, a := b.Point.Exp, b.Point.Exp.Audit
	d := exp.DPSGD
	// Every membership crafter of package attack declares add/remove
	// adjacency (Crafted.Validate rejects a substitution that does not
	// declare replace), and the ideal mechanism is the Poisson, hard-clip,
	// add/remove game by construction.
	trained := mechanismConfig{NoiseMultiplier: d.NoiseMultiplier, Sampling: d.Sampling, SamplingRate: d.SamplingRate,
		Steps: d.Steps, Clip: d.Clip, Adjacency: string(attack.AddRemove)}
	if exp.Model.Ideal != nil {
		trained.Sampling, trained.Clip = "poisson", "hard"
		if d.Sampling == "shuffle" {
			// The shuffled game's pair is zero-out (see
			// attack.IdealMechanism.Shuffle), accounted like add/remove.
			trained.Sampling = "shuffle"
		}
	}
	if err := checkWorstCaseInit(exp); err != nil {
		return estimateParams{}, err
	}
	ep := estimateParams{
		Estimator: a.Estimator, Method: a.Threshold, SplitFraction: a.SplitFraction, Splits: a.Splits, Grid: a.BonferroniGrid, Confidence: a.Confidence,
		Delta: d.Delta, Seed: exp.Seed, Trials: a.Trials, Claim: claimOf(a, trained), Trained: trained, Familywise: a.Familywise,
		Headline: a.Headline, MeasureCPU: a.MeasureCPU,
	}
	if a.Estimator == "one_run" {
		o := spec.OneRun{}
		if a.OneRun != nil {
			o = *a.OneRun
		}
		ep.OneRun = &o
	}
	return ep, nil
}

// audited is a fixed-size audit's trial shards before its estimate: the
// shards repeat by repeat, what the estimate's label starts with, and the
// worst-case θ_0's craft node (nil without one).
type audited struct {
	shards    []*pipeline.Node
	label     string
	initCraft *pipeline.Node
}

// compileClassic is the classic game, and the last-iterate game (the same
// trials from a worst-case θ_0).
func compileClassic(b *stages.Build) error {
	ep, err := setup(b)
	if err != nil {
		return err
	}
	var au audited
	if b.Point.Exp.Model.Ideal != nil {
		au = idealShards(b, &ep)
	} else if au, err = trainedShards(b, &ep); err != nil {
		return err
	}
	return finish(b, ep, au)
}

// compileOneRun is the one-run game: the ideal mechanism's canaries, input
// canaries, or Dirac gradient canaries in a trained model.
func compileOneRun(b *stages.Build) error {
	ep, err := setup(b)
	if err != nil {
		return err
	}
	var au audited
	switch {
	case b.Point.Exp.Model.Ideal != nil:
		au = idealShards(b, &ep)
	case b.Point.Exp.Audit.Canaries == "input":
		au, err = oneRunInputShards(b, &ep)
	default:
		au, err = oneRunTrainedShards(b, &ep)
	}
	if err != nil {
		return err
	}
	return finish(b, ep, au)
}

// compilePerStep is the per-step game.
func compilePerStep(b *stages.Build) error {
	ep, err := setup(b)
	if err != nil {
		return err
	}
	var au audited
	if b.Point.Exp.Model.Ideal != nil {
		au = idealShards(b, &ep)
	} else if au, err = perStepShards(b, &ep); err != nil {
		return err
	}
	return finish(b, ep, au)
}

// compileSequential is the sequential game (sequential.go).
func compileSequential(b *stages.Build) error {
	ep, err := setup(b)
	if err != nil {
		return err
	}
	return sequentialAudit(b, ep)
}

// finish adds the estimate node over every repeat's shards (and the
// worst-case θ_0's craft node, which it describes) as the point's row, and
// publishes the shards.
func finish(b *stages.Build, ep estimateParams, au audited) error {
	a := b.Point.Exp.Audit
	repeats := max(a.Repeats, 1)
	ep.Shards = len(au.shards) / repeats
	if repeats == 1 {
		ep.RepeatKeys = nil // the key of an audit without repeats
	}
	method := a.Threshold
	if a.Estimator == "one_run" || a.Estimator == "per_step" {
		method = a.Estimator
	}
	inputs := au.shards
	if au.initCraft != nil {
		inputs = append(slices.Clip(au.shards), au.initCraft)
	}
	est := estimateNode(ep, inputs, b.Env.DataDir)
	est.Label = fmt.Sprintf("%s (%d trials, %s%s)", au.label, a.Trials, method, stages.RepeatLabel(repeats-1, repeats))
	est.Slot = fmt.Sprintf("%s/estimate/%d", b.Name, b.Point.Index)
	cols := estimateColumns(ep)
	if ep.WorstCase != nil {
		cols = append(cols, worstCaseColumns...)
	}
	b.Row(est, cols)
	b.Publish(b.Point.ID, au.shards)
	return nil
}
