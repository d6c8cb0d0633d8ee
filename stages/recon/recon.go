// Package recon is the prior-aware reconstruction game of Hayes,
// Mahloujifar & Balle (2023), and Balle et al.'s gradient inversion run on
// the same trials: trial shards, the ReRo bound of the same (σ, q, T,
// κ = 1/|π|) (package rero), and an estimate node that reports the
// success rate with its Clopper–Pearson interval and flags rero_violation.
package recon

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/attack"
	arecon "github.com/dpaudit/dpaudit/attack/recon"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/rero"
)

// A prior-aware reconstruction point becomes trial shards (each trial draws
// its prior, target and training noise from rng.New(seed, "trial", key, i),
// so results never depend on the shard size or -j), the rero bound node of
// the same (σ, q, T, κ = 1/|π|) — the spec's own rero entry when it has one,
// else an implicit one whose columns join the row — and one estimate node
// that reads both and flags rero_violation.
const (
	reconTrialsVersion      = 2 // 2: candidates' inner products without materialising their gradients
	reconIdealTrialsVersion = 1
	reconEstimateVersion    = 1

	defaultReconShard      = 32
	defaultReconIdealShard = 1 << 16
	defaultInversionShard  = 8
)

// reconGame is everything a trained reconstruction trial depends on.
type reconGame struct {
	Data        stages.DataParams `json:"data"`
	Arch        learn.Arch        `json:"arch"`
	DPSGD       stages.TrainDPSGD `json:"dpsgd"` // what training really does
	AttackSigma float64           `json:"attack_noise_multiplier"`
	PriorSize   int               `json:"prior_size"`
	Prior       string            `json:"prior"`
	Threat      string            `json:"threat_model"`
	Seed        int64             `json:"seed"`
	// Inversion, if set, runs the gradient-based attack on every trial.
	Inversion *arecon.Inversion `json:"inversion,omitempty"`
}

type reconShardParams struct {
	Key   string    `json:"point_key"`
	Game  reconGame `json:"game"`
	First int       `json:"first"`
	Count int       `json:"count"`
}

type reconIdealShardParams struct {
	Key         string  `json:"point_key"`
	Seed        int64   `json:"seed"`
	PriorSize   int     `json:"prior_size"`
	Geometry    string  `json:"geometry"`
	Sampling    float64 `json:"sampling_rate"`
	Steps       int     `json:"steps"`
	Sigma       float64 `json:"noise_multiplier"`
	AttackSigma float64 `json:"attack_noise_multiplier"`
	First       int     `json:"first"`
	Count       int     `json:"count"`
}

type reconEstimateParams struct {
	Key        string  `json:"point_key"`
	Attack     string  `json:"attack"`
	Trials     int     `json:"trials"`
	PriorSize  int     `json:"prior_size"`
	Rule       string  `json:"rule"`
	TopSteps   int     `json:"top_steps"`
	Confidence float64 `json:"confidence"`
	// Exact is the ideal mechanism's closed-form success (nil: none).
	Exact *float64 `json:"exact,omitempty"`
}

// reconColumns are the summary columns of a prior-aware reconstruction.
var reconColumns = []string{"recon_attack", "recon_rule", "recon_trials", "recon_prior_size", "recon_top_steps",
	"reconstruction_success", "reconstruction_success_lo", "reconstruction_success_hi", "reconstruction_confidence",
	"reconstruction_baseline", "reconstruction_advantage", "reconstruction_advantage_lo", "reconstruction_advantage_hi",
	"reconstruction_success_sum", "reconstruction_success_top_steps", "reconstruction_success_log_likelihood",
	"reconstruction_success_exact", "recon_mean_rank", "recon_mean_target_steps", "recon_mean_clipped_grad_norm", "recon_mean_inversion_mse", "rero_violation"}

// reconThreat maps the spec's threat model to what the adversary observes.
var reconThreat = map[string]attack.Observation{
	"api_access": attack.ObserveBlackBox, "final_model": attack.ObserveFinalModel,
	"intermediate_models": attack.ObserveIntermediateModels, "gradient": attack.ObserveGradients,
}

const gameName = "reconstruction"

// Game is the prior-aware reconstruction game (reconstruction.attack
// prior_aware or gradient_inversion).
var Game = &stages.Game{
	Name:       gameName,
	AppliesTo:  func(exp *spec.Experiment) bool { return exp.Reconstruction != nil && exp.Reconstruction.GLM == nil },
	Compile:    compile,
	Kinds:      []string{"trials", "rero", "estimate"},
	Violations: violations,
	Implements: map[string][]string{"reconstruction": {"prior_aware", "gradient_inversion"}},
}

// compile builds the reconstruction audit of one point: the trial shards
// (published; a point with a membership audit as well keeps its rows in
// trials/point=<id>/, the reconstruction rows go one level down), the
// bound they are compared with, and the estimate.
func compile(b *stages.Build) error {
	pt := b.Point
	r := pt.Exp.Reconstruction
	var p *spec.ReconPriorAware
	var inv *arecon.Inversion
	switch {
	case r.PriorAware != nil:
		p = r.PriorAware
	case r.Inversion != nil:
		// The same game, with the gradient inversion run on every trial and
		// reported; the prior-aware rules are recorded beside it.
		v := r.Inversion
		p = &spec.ReconPriorAware{PriorSize: v.PriorSize, Trials: v.Trials, Rule: "inversion", Prior: "pool",
			Geometry: "orthogonal", ThreatModel: v.ThreatModel, ShardSize: v.ShardSize, Confidence: v.Confidence,
			ClaimedNoiseMultiplier: v.ClaimedNoiseMultiplier}
		if p.ShardSize == 0 {
			p.ShardSize = defaultInversionShard
		}
		inv = &arecon.Inversion{Steps: v.Steps, LearningRate: v.LearningRate, Restarts: v.Restarts}
	default:
		return &stages.PathError{Path: "reconstruction.attack", Err: fmt.Errorf("attack %q has no stage", r.Attack)}
	}
	shards, err := priorAware(b, p, inv)
	if err != nil {
		return err
	}
	key := pt.ID
	if pt.Exp.Audit != nil {
		key += "/reconstruction"
	}
	b.Publish(key, shards)
	return nil
}

// priorAware builds the game of p (and, with inv, the gradient inversion
// on the same trials): the shards, the bound and the estimate node.
func priorAware(b *stages.Build, p *spec.ReconPriorAware, inv *arecon.Inversion) ([]*pipeline.Node, error) {
	d := b.Point.Exp.DPSGD
	if err := arecon.CheckThreat(reconThreat[p.ThreatModel]); err != nil {
		return nil, &stages.PathError{Path: "reconstruction.threat_model", Err: err}
	}
	claimed := p.ClaimedNoiseMultiplier
	if claimed == 0 {
		claimed = d.NoiseMultiplier
	}
	rule := p.Rule
	if rule == "auto" {
		rule = "sum"
		if d.SamplingRate < 1 {
			rule = "top_steps"
		}
	}
	ep := reconEstimateParams{Attack: b.Point.Exp.Reconstruction.Attack, Trials: p.Trials, PriorSize: p.PriorSize, Rule: rule,
		TopSteps: arecon.TopSteps(d.SamplingRate, d.Steps), Confidence: p.Confidence}
	var shards []*pipeline.Node
	var label string
	var err error
	if b.Point.Exp.Model.Ideal != nil {
		shards, label, err = idealShards(b, p, claimed, &ep)
	} else {
		shards, label, err = trainedShards(b, p, inv, claimed, rule, &ep)
	}
	if err != nil {
		return nil, err
	}
	// The bound of the same (σ_claimed, q, T, κ = 1/|π|).
	bound, implicit, err := reconBound(b, p, claimed)
	if err != nil {
		return nil, err
	}
	bound = b.Add(bound)
	if implicit { // its columns join the row
		b.Row(bound, rero.Columns)
	}
	b.Row(&pipeline.Node{
		Kind: "estimate", Version: reconEstimateVersion, Params: ep, Inputs: append(slices.Clip(shards), bound),
		Label: fmt.Sprintf("%s (%d trials, %s)", label, p.Trials, rule),
		Slot:  fmt.Sprintf("%s/recon_estimate/%d", b.Name, b.Point.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runReconEstimate(ep, w.Inputs[:len(w.Inputs)-1], w.Inputs[len(w.Inputs)-1])
			if err != nil {
				return err
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}, reconColumns)
	return shards, nil
}

// idealShards are the shards of the ideal reconstruction mechanism; ep
// gets their key and, at q = 1, the closed-form success.
func idealShards(b *stages.Build, p *spec.ReconPriorAware, claimed float64, ep *reconEstimateParams) ([]*pipeline.Node, string, error) {
	exp, d := b.Point.Exp, b.Point.Exp.DPSGD
	geo, err := arecon.ParseGeometry(p.Geometry)
	if err != nil {
		return nil, "", &stages.PathError{Path: "reconstruction.geometry", Err: err}
	}
	ig := arecon.Ideal{PriorSize: p.PriorSize, Geometry: geo, SamplingRate: d.SamplingRate, Steps: d.Steps,
		NoiseMultiplier: d.NoiseMultiplier, AttackSigma: claimed}
	if err := ig.Validate(); err != nil {
		return nil, "", &stages.PathError{Path: "reconstruction", Err: err}
	}
	if d.SamplingRate == 1 {
		x := arecon.IdealSuccessFullBatch(p.PriorSize, d.Steps, d.NoiseMultiplier, geo)
		ep.Exact = &x
	}
	sp := reconIdealShardParams{Seed: exp.Seed, PriorSize: p.PriorSize, Geometry: p.Geometry, Sampling: d.SamplingRate,
		Steps: d.Steps, Sigma: d.NoiseMultiplier, AttackSigma: claimed}
	sp.Key = stages.HashKey(sp)
	ep.Key = sp.Key
	label := fmt.Sprintf("ideal reconstruction |π|=%d σ=%.4g q=%.4g T=%d", p.PriorSize, d.NoiseMultiplier, d.SamplingRate, d.Steps)
	size := p.ShardSize
	if size == 0 {
		size = defaultReconIdealShard
	}
	var shards []*pipeline.Node
	for first, k := 0, 0; first < p.Trials; first, k = first+size, k+1 {
		s := sp
		s.First, s.Count = first, min(size, p.Trials-first)
		shards = append(shards, b.Add(&pipeline.Node{
			Kind: "trials", Version: reconIdealTrialsVersion, Params: s,
			Label: fmt.Sprintf("%s trials %d–%d", label, s.First, s.First+s.Count-1),
			Slot:  fmt.Sprintf("%s/recon_trials/%d/%d", b.Name, b.Point.Index, k),
			Run:   func(ctx context.Context, w *pipeline.Work) error { return runReconIdealShard(ctx, s, w) },
		}))
	}
	return shards, label, nil
}

// trainedShards are the shards of a trained model's game; ep gets their
// key.
func trainedShards(b *stages.Build, p *spec.ReconPriorAware, inv *arecon.Inversion, claimed float64, rule string, ep *reconEstimateParams) ([]*pipeline.Node, string, error) {
	d := b.Point.Exp.DPSGD
	game, err := reconGameFor(b.Point, p, inv, b.Env, claimed, rule)
	if err != nil {
		return nil, "", err
	}
	key := stages.HashKey(game)
	ep.Key = key
	label := fmt.Sprintf("reconstruction |π|=%d σ=%.4g q=%.4g T=%d", p.PriorSize, d.NoiseMultiplier, d.SamplingRate, d.Steps)
	size := p.ShardSize
	if size == 0 {
		size = defaultReconShard
	}
	dataDir := b.Env.DataDir
	var shards []*pipeline.Node
	for first, k := 0, 0; first < p.Trials; first, k = first+size, k+1 {
		s := reconShardParams{Key: key, Game: game, First: first, Count: min(size, p.Trials-first)}
		shards = append(shards, b.Add(&pipeline.Node{
			Kind: "trials", Version: reconTrialsVersion, Params: s,
			Label: fmt.Sprintf("%s trials %d–%d", label, s.First, s.First+s.Count-1),
			Slot:  fmt.Sprintf("%s/recon_trials/%d/%d", b.Name, b.Point.Index, k),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				return runReconShard(ctx, s, dataDir, w)
			},
		}))
	}
	return shards, label, nil
}

// reconBound returns the rero node the success is compared with: the
// spec's rero entry when there is one (its columns are already in the row:
// implicit is false), else an implicit exact bound for the claimed σ.
func reconBound(b *stages.Build, p *spec.ReconPriorAware, claimed float64) (n *pipeline.Node, implicit bool, err error) {
	exp := b.Point.Exp
	kappa := 1 / float64(p.PriorSize)
	for i, entry := range exp.Bound {
		if entry.Rero == nil {
			continue
		}
		path := fmt.Sprintf("bound[%d]", i)
		if claimed != exp.DPSGD.NoiseMultiplier {
			return nil, false, &stages.PathError{Path: path, Err: fmt.Errorf("%w: with reconstruction.claimed_noise_multiplier the reconstruction block computes the rero bound for the claimed σ itself; leave this entry out", bounds.ErrInvalid)}
		}
		k := entry.Rero.Kappa
		if entry.Rero.PriorSize > 0 {
			k = 1 / float64(entry.Rero.PriorSize)
		}
		if k != kappa {
			return nil, false, &stages.PathError{Path: path + ".prior_size", Err: fmt.Errorf("%w: the rero bound must be for the reconstruction prior (prior_size %d, κ = %.4g), got κ = %.4g: rero_violation compares the two", bounds.ErrInvalid, p.PriorSize, kappa, k)}
		}
		cs, err := rero.Calcs(exp, entry.Rero, path)
		if err != nil {
			return nil, false, err
		}
		return cs[0].Node(b, i), false, nil
	}
	entry := &spec.ReroBound{PriorSize: p.PriorSize, Method: string(bounds.ReRoExact), Tolerance: 0.001}
	d := *exp.DPSGD
	d.NoiseMultiplier = claimed
	cs, err := rero.Calcs(&spec.Experiment{Seed: exp.Seed, DPSGD: &d}, entry, "reconstruction")
	if err != nil {
		return nil, false, err
	}
	n = cs[0].Node(b, 0)
	n.Slot = fmt.Sprintf("%s/rero/%d/reconstruction", b.Name, b.Point.Index)
	return n, true, nil
}

// reconGameFor checks a trained reconstruction game at compile time.
func reconGameFor(pt spec.Point, p *spec.ReconPriorAware, inv *arecon.Inversion, env stages.Env, claimed float64, rule string) (reconGame, error) {
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return reconGame{}, err
	}
	split, err := stages.LoadSplit(data, env.DataDir)
	if err != nil {
		return reconGame{}, &stages.PathError{Path: "dataset", Err: err}
	}
	src, err := arecon.ParsePriorSource(p.Prior)
	if err != nil {
		return reconGame{}, &stages.PathError{Path: "reconstruction.prior", Err: err}
	}
	if err := arecon.CheckPriorSize(p.PriorSize, split.Test.N, src); err != nil {
		return reconGame{}, &stages.PathError{Path: "reconstruction.prior_size", Err: fmt.Errorf("%w (the test split the candidates are drawn from)", err)}
	}
	if split.Train.N < 2 {
		return reconGame{}, &stages.PathError{Path: "dataset", Err: fmt.Errorf("%w: D₋ is the training split minus one record; the split has %d", arecon.ErrInvalid, split.Train.N)}
	}
	d := exp.DPSGD
	if rule == "top_steps" && d.SamplingRate*float64(split.Train.N) < 1 {
		return reconGame{}, &stages.PathError{Path: "reconstruction.rule", Err: fmt.Errorf("%w: Algorithm 3 (top_steps) with q·|D| = %g × %d < 1: most batches are empty", arecon.ErrInvalid, d.SamplingRate, split.Train.N)}
	}
	if d.Clip != "hard" {
		return reconGame{}, &stages.PathError{Path: "dpsgd.clip", Err: fmt.Errorf("%w: the prior-aware attack scores hard-clipped gradients", arecon.ErrInvalid)}
	}
	if d.NoiseMultiplier == 0 || math.IsInf(d.ClipNorm, 0) {
		return reconGame{}, &stages.PathError{Path: "dpsgd.noise_multiplier", Err: fmt.Errorf("%w: a reconstruction audit needs noise and a finite clip norm", arecon.ErrInvalid)}
	}
	if p.ThreatModel == "intermediate_models" && d.LearningRate == 0 {
		return reconGame{}, &stages.PathError{Path: "reconstruction.threat_model", Err: fmt.Errorf("%w: with learning rate 0 the models never change, so the update cannot be inverted", arecon.ErrInvalid)}
	}
	if inv != nil {
		if err := inv.Validate(); err != nil {
			return reconGame{}, &stages.PathError{Path: "reconstruction", Err: err}
		}
	}
	return reconGame{Data: data, Arch: arch, DPSGD: stages.TrainConfig(d), AttackSigma: claimed, PriorSize: p.PriorSize,
		Prior: p.Prior, Threat: p.ThreatModel, Seed: exp.Seed, Inversion: inv}, nil
}

// newReconGame builds the game of a shard: D₋ is the training split
// without its last record, the pool is the test split.
func newReconGame(gp reconGame, key, dataDir string) (*arecon.Game, error) {
	split, err := stages.LoadSplit(gp.Data, dataDir)
	if err != nil {
		return nil, err
	}
	src, err := arecon.ParsePriorSource(gp.Prior)
	if err != nil {
		return nil, err
	}
	tr, te := split.Train, split.Test
	n := tr.N - 1
	return arecon.NewGame(arecon.Config{
		Arch: gp.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: gp.DPSGD.Learn(), AttackSigma: gp.AttackSigma,
		X: tr.X[:n*tr.D], Y: tr.Y[:n], PoolX: te.X, PoolY: te.Y, PriorSize: gp.PriorSize, Prior: src,
		Observe: reconThreat[gp.Threat], InitSeed: rng.Seed(uint64(gp.Seed), "init", key), Inversion: gp.Inversion,
	})
}

func runReconShard(ctx context.Context, p reconShardParams, dataDir string, w *pipeline.Work) error {
	game, err := newReconGame(p.Game, p.Key, dataDir)
	if err != nil {
		return err
	}
	out := make([]arecon.Outcome, p.Count)
	for k := range out {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := p.First + k
		if out[k], err = game.RunTrialIndex(uint64(p.Game.Seed), p.Key, i); err != nil {
			return fmt.Errorf("trial %d: %w", i, err)
		}
	}
	return writeReconTrials(w.Dir, p.First, out)
}

func runReconIdealShard(ctx context.Context, p reconIdealShardParams, w *pipeline.Work) error {
	geo, err := arecon.ParseGeometry(p.Geometry)
	if err != nil {
		return err
	}
	g := arecon.Ideal{PriorSize: p.PriorSize, Geometry: geo, SamplingRate: p.Sampling, Steps: p.Steps,
		NoiseMultiplier: p.Sigma, AttackSigma: p.AttackSigma}
	out, err := arecon.SimulateIdeal(g, uint64(p.Seed), []any{"trial", p.Key}, p.First, p.Count, 1)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeReconTrials(w.Dir, p.First, out)
}

// writeReconTrials writes a shard's rows: the target's position in the
// prior and pool, and every rule's guess, the target's rank and the score
// margin, so that the reported rule can change without retraining.
func writeReconTrials(dir string, first int, out []arecon.Outcome) error {
	n := len(out)
	col := func() []any { return make([]any, n) }
	trial, target, record, steps, gnorm := col(), col(), col(), col(), col()
	guess, rank, margin := [3][]any{col(), col(), col()}, [3][]any{col(), col(), col()}, [3][]any{col(), col(), col()}
	for k, o := range out {
		trial[k], target[k], steps[k] = int64(first+k), int64(o.Target), int64(o.TargetSteps)
		if o.Record >= 0 {
			record[k] = int64(o.Record)
		}
		gnorm[k] = stages.OrNull(o.TargetGradNorm)
		for _, r := range arecon.Rules {
			d := o.Decisions[r]
			guess[r][k], rank[r][k], margin[r][k] = int64(d.Guess), int64(d.Rank), d.Margin
		}
	}
	t := &pipeline.Table{}
	t.Add("trial", pipeline.Int64, trial)
	t.Add("target", pipeline.Int64, target)
	t.Add("target_record", pipeline.Int64, record)
	for _, r := range arecon.Rules {
		t.Add("guess_"+r.String(), pipeline.Int64, guess[r])
		t.Add("rank_"+r.String(), pipeline.Int64, rank[r])
		t.Add("margin_"+r.String(), pipeline.Float64, margin[r])
	}
	t.Add("target_steps", pipeline.Int64, steps)
	t.Add("target_clipped_grad_norm", pipeline.Float64, gnorm)
	if n > 0 && out[0].Inversion != nil {
		ig, ir, im, mse := col(), col(), col(), col()
		for k, o := range out {
			d := o.Inversion.Decision
			ig[k], ir[k], im[k], mse[k] = int64(d.Guess), int64(d.Rank), d.Margin, o.Inversion.MSE
		}
		t.Add("guess_inversion", pipeline.Int64, ig)
		t.Add("rank_inversion", pipeline.Int64, ir)
		t.Add("margin_inversion", pipeline.Float64, im)
		t.Add("inversion_mse", pipeline.Float64, mse)
	}
	return pipeline.WriteParquet(filepath.Join(dir, stages.TrialsFile), t)
}

// runReconEstimate turns the shards into success rates with their
// Clopper–Pearson interval and compares them with the bound's values.
func runReconEstimate(p reconEstimateParams, shards []string, boundDir string) ([]stages.Output, error) {
	tally, err := readReconTrials(shards, p.Rule)
	if err != nil {
		return nil, err
	}
	correct, primaryCorrect, total := tally.correct, tally.primary, tally.total
	rankSum, stepSum, normSum, mseSum, normN, mseN := tally.rankSum, tally.stepSum, tally.normSum, tally.mseSum, tally.normN, tally.mseN
	if total != p.Trials {
		return nil, fmt.Errorf("found %d reconstruction trials, want %d", total, p.Trials)
	}
	k := primaryCorrect
	lo, err := audit.ClopperPearsonLower(k, total, p.Confidence, audit.TwoSided)
	if err != nil {
		return nil, err
	}
	hi, err := audit.ClopperPearsonUpper(k, total, p.Confidence, audit.TwoSided)
	if err != nil {
		return nil, err
	}
	kappa := 1 / float64(p.PriorSize)
	adv := func(s float64) float64 { return (s - kappa) / (1 - kappa) } // Hayes et al. Eq. 4
	succ := float64(k) / float64(total)
	boundVals, err := stages.ReadValues(boundDir)
	if err != nil {
		return nil, err
	}
	gammaHi := math.NaN()
	for _, o := range boundVals {
		if o.Name == "rero_gamma_hi" && o.Value != nil {
			gammaHi = o.Value.(float64)
		}
	}
	if math.IsNaN(gammaHi) {
		return nil, fmt.Errorf("%s: the rero bound has no rero_gamma_hi", boundDir)
	}
	meanNorm, meanMSE := math.NaN(), math.NaN()
	if normN > 0 {
		meanNorm = normSum / float64(normN)
	}
	if mseN > 0 {
		meanMSE = mseSum / float64(mseN)
	}
	var exact any
	if p.Exact != nil {
		exact = *p.Exact
	}
	rate := func(r arecon.Rule) float64 { return float64(correct[r]) / float64(total) }
	return []stages.Output{
		stages.Str("recon_attack", p.Attack),
		stages.Str("recon_rule", p.Rule),
		stages.Int("recon_trials", int64(total)),
		stages.Int("recon_prior_size", int64(p.PriorSize)),
		stages.Int("recon_top_steps", int64(p.TopSteps)),
		stages.F64("reconstruction_success", succ),
		stages.F64("reconstruction_success_lo", lo),
		stages.F64("reconstruction_success_hi", hi),
		stages.F64("reconstruction_confidence", p.Confidence),
		stages.F64("reconstruction_baseline", kappa),
		stages.F64("reconstruction_advantage", adv(succ)),
		stages.F64("reconstruction_advantage_lo", adv(lo)),
		stages.F64("reconstruction_advantage_hi", adv(hi)),
		stages.F64("reconstruction_success_sum", rate(arecon.RuleSum)),
		stages.F64("reconstruction_success_top_steps", rate(arecon.RuleTopSteps)),
		stages.F64("reconstruction_success_log_likelihood", rate(arecon.RuleLogLikelihood)),
		stages.F64("reconstruction_success_exact", exact),
		stages.F64("recon_mean_rank", rankSum/float64(total)),
		stages.F64("recon_mean_target_steps", stepSum/float64(total)),
		stages.F64("recon_mean_clipped_grad_norm", stages.OrNull(meanNorm)),
		stages.F64("recon_mean_inversion_mse", stages.OrNull(meanMSE)),
		stages.Bool("rero_violation", audit.Exceeds(lo, gammaHi, audit.ClaimTolerance)),
	}, nil
}

// reconAlarm is how a reconstruction violation is worded.
var reconAlarm = stages.Alarm{
	Title:    "RECONSTRUCTION BOUND VIOLATED",
	Breaks:   "reconstruct more often than the ReRo bound allows",
	Meaning:  "No attack can beat the bound of the claimed mechanism: the trainer, the claimed noise multiplier or the bound is wrong.",
	Evidence: "Trials",
}

// violations reads rero_violation: the lower end of the success rate's
// interval lies above the upper end of the ReRo bound's bracket.
func violations(sum *pipeline.Table) ([]stages.Violation, error) {
	return stages.Flagged(sum, "rero_violation", gameName, reconAlarm, func(r stages.Row, v *stages.Violation) {
		v.Value, v.Limit, v.Confidence = r.Float("reconstruction_success_lo"), r.Float("rero_gamma_hi"), r.Float("reconstruction_confidence")
		v.Message = fmt.Sprintf("success %.4g, lower end %.4g (%.0f%% confidence) > rero bound %.4g (|π| = %d)",
			r.Float("reconstruction_success"), v.Value, 100*v.Confidence, v.Limit, r.Int("recon_prior_size"))
	}), nil
}

// reconTally sums a point's reconstruction trials: correct guesses per
// rule and of the reported rule, the reported rule's ranks, the target's
// sampled steps, its clipped gradient norm and the inversion's MSE where
// recorded.
type reconTally struct {
	correct                           [3]int
	primary, total, normN, mseN       int
	rankSum, stepSum, normSum, mseSum float64
}

// readReconTrials reads the shards' trial tables, in trial order.
func readReconTrials(shards []string, rule string) (reconTally, error) {
	var r reconTally
	for _, d := range shards {
		t, err := pipeline.ReadParquet(filepath.Join(d, stages.TrialsFile))
		if err != nil {
			return r, err
		}
		tc, gc, pc, rc := t.Col("trial"), t.Col("target"), t.Col("guess_"+rule), t.Col("rank_"+rule)
		if tc == nil || gc == nil || pc == nil || rc == nil {
			return r, fmt.Errorf("%s: not a reconstruction trial table with rule %s", d, rule)
		}
		mc, sc, nc := t.Col("inversion_mse"), t.Col("target_steps"), t.Col("target_clipped_grad_norm")
		var rules [3]*pipeline.Column
		for _, ru := range arecon.Rules {
			if rules[ru] = t.Col("guess_" + ru.String()); rules[ru] == nil {
				return r, fmt.Errorf("%s: no guess_%s column", d, ru)
			}
		}
		if sc == nil || nc == nil {
			return r, fmt.Errorf("%s: not a reconstruction trial table", d)
		}
		for i := range tc.Values {
			if tc.Values[i].(int64) != int64(r.total) {
				return r, fmt.Errorf("%s: trial %v out of order (want %d)", d, tc.Values[i], r.total)
			}
			target := gc.Values[i].(int64)
			for _, ru := range arecon.Rules {
				if rules[ru].Values[i].(int64) == target {
					r.correct[ru]++
				}
			}
			if pc.Values[i].(int64) == target {
				r.primary++
			}
			r.rankSum += float64(rc.Values[i].(int64))
			r.stepSum += float64(sc.Values[i].(int64))
			if v := nc.Values[i]; v != nil {
				r.normSum += v.(float64)
				r.normN++
			}
			if mc != nil {
				r.mseSum += mc.Float(i)
				r.mseN++
			}
			r.total++
		}
	}
	return r, nil
}
