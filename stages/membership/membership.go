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
	"github.com/dpaudit/dpaudit/privacy"
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
		Name:      name,
		AppliesTo: func(exp *spec.Experiment) bool { return variantOf(exp.Audit) == name },
		Compile:   compile,
		Kinds: []string{"craft", "trials", "look", "onerun_train", "onerun_input_train", "perstep_train", "estimate",
			"external_data", "external_canaries", "external_call"},
		TrialColumns: TrialColumns,
		Violations:   func(sum *pipeline.Table) ([]stages.Violation, error) { return violations(name, sum) },
		Implements:   implements,
		MatrixNoise:  true,
	}
}

// implements are the spec blocks and kinds the membership games share.
var implements = map[string][]string{
	"audit": {""},
	"crafter": {"random_record", "mislabeled_record", "swapped_label", "constant_input", "noise_input",
		"static_poison", "adaptive_poison", "gradient_canary", "malicious_dataset"},
	"distinguisher": {"loss_threshold", "intermediate_loss", "watermark"},
	"model":         {"external"},
	"trainer":       {""},
}

// setup is what every membership game starts with: the trained
// configuration, the claim it is audited against, and the estimate's
// parameters that do not depend on the trials.
func setup(b *stages.Build) (estimateParams, error) {
	exp, a := b.Point.Exp, b.Point.Exp.Audit
	d := exp.DPSGD
	trained := mechanismConfig{NoiseMultiplier: d.NoiseMultiplier, Sampling: orDefault(d.Sampling, "poisson"), SamplingRate: d.SamplingRate,
		Steps: d.Steps, Clip: d.Clip, Adjacency: gameAdjacency(exp), Correlated: stages.CorrelatedOf(d.Correlated)}
	if trained.Sampling == "cyclic" {
		trained.Groups = d.Groups
	}
	if err := checkMatrixGame(exp, trained); err != nil {
		return estimateParams{}, err
	}
	if exp.Model.Ideal != nil {
		trained.Clip = "hard"
		if err := checkIdeal(d, trained); err != nil {
			return estimateParams{}, err
		}
	}
	claim, adjPath, samplingPath := claimOf(a, trained), "audit.claim.adjacency", ""
	if a.Claim == nil || a.Claim.Adjacency == "" {
		// An absent claim adjacency is the guarantee's (dpsgd.adjacency),
		// which need not be the game's: checkClaim says when they differ.
		claim.Adjacency, adjPath = orDefault(d.Adjacency, string(attack.AddRemove)), "dpsgd.adjacency"
	}
	switch cl := a.Claim; {
	case cl != nil && cl.Correlated != nil:
		samplingPath = "audit.claim.correlated"
	case cl != nil && cl.Sampling != "":
		samplingPath = "audit.claim.sampling"
	case cl != nil && cl.Accountant != "":
		samplingPath = "audit.claim.accountant"
	case cl != nil && cl.Adjacency != "":
		samplingPath = "audit.claim.adjacency"
	default:
		samplingPath = "dpsgd.sampling"
	}
	if err := checkClaim(claim, trained, adjPath, samplingPath); err != nil {
		return estimateParams{}, err
	}
	if err := checkWorstCaseInit(exp); err != nil {
		return estimateParams{}, err
	}
	ep := estimateParams{
		Estimator: a.Estimator, Method: a.Threshold, SplitFraction: a.SplitFraction, Splits: a.Splits, Grid: a.BonferroniGrid, Confidence: a.Confidence,
		Delta: d.Delta, Seed: exp.Seed, Trials: a.Trials, Claim: claim, Trained: trained, Familywise: a.Familywise,
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

// orDefault is v, or def when v is empty (a Values caller's spec may not
// have had its defaults filled in).
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// gameAdjacency is how the game's two worlds differ: the ideal mechanism
// simulates dpsgd.adjacency; a trained model's worlds are the crafter's
// (every membership crafter adds a record or a canary, except
// swapped_label, which replaces one).
func gameAdjacency(exp *spec.Experiment) string {
	if exp.Model.Ideal != nil {
		return orDefault(exp.DPSGD.Adjacency, string(attack.AddRemove))
	}
	if exp.Crafter != nil && exp.Crafter.Kind == "swapped_label" {
		return string(privacy.AdjacencyReplaceOne)
	}
	return string(attack.AddRemove)
}

// checkMatrixGame refuses cyclic sampling and matrix-factorization noise
// in a game that cannot play them: the ideal mechanism and the per-step
// game simulate or assume independent noise and Poisson steps, and the
// external trainer protocol has no key for them.
func checkMatrixGame(exp *spec.Experiment, trained mechanismConfig) error {
	if !trained.matrix() {
		return nil
	}
	path, what := "dpsgd.sampling", "cyclic sampling"
	if exp.DPSGD.Correlated != nil {
		path, what = "dpsgd.correlated", "matrix-factorization noise"
	}
	var why string
	switch {
	case exp.Model.Ideal != nil:
		why = "the ideal mechanism simulates independent noise on Poisson steps; train a model (the classic or one-run game)"
	case exp.Model.External != nil:
		why = "the external trainer protocol has no key for it"
	case exp.Audit.Estimator == "per_step":
		why = "the per-step game composes independent per-step Gaussians; use the classic or one-run game"
	case exp.Audit.WorstCaseInit != nil:
		why = "the worst-case initialisation game is calibrated for DP-SGD; use the classic or one-run game"
	default:
		return nil
	}
	return &stages.PathError{Path: path, Err: fmt.Errorf("%w: %s cannot be audited by this game: %s", privacy.ErrInvalid, what, why)}
}

// checkIdeal refuses a sampler and adjacency the ideal mechanism does not
// simulate (see attack.IdealMechanism).
func checkIdeal(d *spec.DPSGD, trained mechanismConfig) error {
	m := idealMechanism(idealShardParams{Sampling: d.SamplingRate, Steps: d.Steps, Sigma: max(d.NoiseMultiplier, 1)}.withGame(trained))
	if err := m.Validate(); err != nil {
		return &stages.PathError{Path: "dpsgd.sampling", Err: fmt.Errorf("%s sampling under %s adjacency: %w", trained.Sampling, trained.Adjacency, err)}
	}
	return nil
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
	switch {
	case b.Point.Exp.Model.Ideal != nil:
		au = idealShards(b, &ep)
	case b.Point.Exp.Model.External != nil:
		au, err = externalShards(b, &ep)
	default:
		au, err = trainedShards(b, &ep)
	}
	if err != nil {
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
	case b.Point.Exp.Model.External != nil:
		au, err = externalOneRunShards(b, &ep)
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
