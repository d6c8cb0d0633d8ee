package attack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// GameConfig describes the distinguishing game of one audit point (Nasr et
// al. 2021, Protocols 1–4): the crafted worlds, the trainer, and the
// distinguisher with the threat model that bounds what it may see.
type GameConfig struct {
	Arch    learn.Arch
	InShape []int
	Classes int
	// DPSGD is the configuration training really runs, with σ_actual.
	DPSGD learn.DPSGD
	// ClaimedNoiseMultiplier, if > 0, is the σ the distinguisher (and the
	// accountant, on the caller's side) is told instead of
	// DPSGD.NoiseMultiplier: set it above the actual σ to simulate an
	// implementation that under-noises, which an audit must flag. Only
	// the Watermark scores use σ; the loss distinguishers ignore it.
	ClaimedNoiseMultiplier float64
	// X, Y is the caller's training set (before Crafted.Exclude, and
	// ignored when the crafter chose its own dataset).
	X []float32
	Y []int32
	// PoolX, PoolY are the records a FreshFromPool crafter draws from (the
	// craft's pool, the test split).
	PoolX []float32
	PoolY []int32
	// TestX, TestY, if set, give each trial's test accuracy.
	TestX []float32
	TestY []int32
	// Crafted is the craft stage's output.
	Crafted *Crafted
	// Distinguisher scores each trial.
	Distinguisher Distinguisher
	// Threat is the access the threat model grants; both the crafter's
	// recorded access and the distinguisher's must fit in it.
	Threat Access
	// RandomInit draws a fresh θ_0 per trial (from the trial stream)
	// instead of starting every trial from Crafted.InitSeed. The DP
	// guarantee holds for any fixed θ_0, so the fixed start (default) is
	// the stronger audit; the malicious dataset requires it.
	RandomInit bool
}

// Game is a validated GameConfig, ready to run trials. It is read-only
// after NewGame, so trials may run on many goroutines at once.
type Game struct {
	cfg        GameConfig
	baseX      []float32 // the base training set (both worlds)
	baseY      []int32
	init       *learn.Model // θ_0 (nil with RandomInit)
	canary     []float32    // dense canary, world 1 (read-only)
	train      learn.DPSGD  // DPSGD with the crafted overrides
	info       TrialInfo
	scoreNames []string

	base *learn.Inputs // baseX, baseY prepared once for every trial
}

// TrialResult is one trial's row.
type TrialResult struct {
	// World is the world bit b: 0 trains on D, 1 on D′.
	World int
	// Scores are the distinguisher's scores, in ScoreNames order.
	Scores []float64
	// CanarySteps counts the steps whose sum included the canary (0 in
	// world 0).
	CanarySteps int
	// TargetSteps counts the steps whose batch held the differing record.
	TargetSteps int
	// EmptyBatches counts noise-only steps; MeanBatchSize is the average
	// batch size (the differing record included when sampled).
	EmptyBatches  int
	MeanBatchSize float64
	// TestAccuracy is the final model's accuracy on the test set, NaN
	// without one.
	TestAccuracy float64
}

// Score returns the primary score.
func (r TrialResult) Score() float64 { return r.Scores[0] }

// WorldOf is the balanced world assignment: trial i runs in world i mod 2,
// so any prefix of 2k trials holds k of each and the world of a trial
// depends only on its index (not on the shard or the worker).
func WorldOf(trial int) int {
	if trial < 0 {
		trial = -trial
	}
	return trial % 2
}

// TrialStream returns the random stream of a trial by the project's
// convention, rng.New(seed, "trial", point, trial).
func TrialStream(seed uint64, point string, trial int) *rand.Rand {
	return rng.New(seed, "trial", point, trial)
}

// NewGame validates the configuration: the threat model against the
// crafter's and the distinguisher's access, the crafted result against the
// model and the data, and the distinguisher against the crafted products.
// Errors wrap ErrInvalid.
func NewGame(cfg GameConfig) (*Game, error) {
	if err := checkGameConfig(cfg); err != nil {
		return nil, err
	}
	c, d := cfg.Crafted, cfg.Distinguisher
	g := &Game{cfg: cfg, train: cfg.DPSGD}
	if c.LearningRate != nil {
		g.train.LearningRate = *c.LearningRate
	}
	if err := g.train.Validate(); err != nil {
		return nil, invalidf("game: %v", err)
	}
	m, err := initialModel(cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.RandomInit {
		g.init = m
	}
	if err := g.prepareData(m.InputSize()); err != nil {
		return nil, err
	}
	// Every trial trains on the base set: scan it and code its rows once
	// here, not in each trial (it was a large share of a trial).
	if g.base, err = learn.NewInputs(g.baseX, g.baseY, m.InputSize()); err != nil {
		return nil, invalidf("game: %v", err)
	}
	if err := g.checkCrafted(m); err != nil {
		return nil, err
	}
	if c.Canary != nil {
		g.canary = c.Canary.Dense()
	}
	if c.FreshFromPool {
		D := m.InputSize()
		if len(cfg.PoolY) == 0 || len(cfg.PoolX) != len(cfg.PoolY)*D {
			return nil, invalidf("game: %s draws a fresh record per trial but the pool has %d records of %d features (%d values)", c.Kind, len(cfg.PoolY), D, len(cfg.PoolX))
		}
	}
	g.info = g.trialInfo()
	if _, err := d.NewScorer(g.info); err != nil { // fail at validation, not in trial 0
		return nil, err
	}
	g.scoreNames = append([]string(nil), d.ScoreNames()...)
	if len(g.scoreNames) == 0 {
		return nil, invalidf("game: distinguisher %s names no scores", d.Kind())
	}
	return g, nil
}

// checkGameConfig checks what needs no model: the crafted result and the
// distinguisher on their own, their access against the threat model, the
// claimed σ, and a per-trial random initialisation against a crafter that
// relies on a fixed θ_0.
func checkGameConfig(cfg GameConfig) error {
	c, d := cfg.Crafted, cfg.Distinguisher
	if d == nil {
		return invalidf("game: no distinguisher")
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if err := checkPair(c.Kind, c.Access, c.Products, d, cfg.Threat); err != nil {
		return err
	}
	if cfg.ClaimedNoiseMultiplier < 0 || math.IsNaN(cfg.ClaimedNoiseMultiplier) {
		return invalidf("game: claimed noise multiplier must be ≥ 0, got %v", cfg.ClaimedNoiseMultiplier)
	}
	if cfg.RandomInit && c.Products&FreezesModel != 0 {
		return invalidf("game: %s labels its dataset with the fixed θ_0; a random initialisation per trial would break it", c.Kind)
	}
	return nil
}

// initialModel builds the model every trial starts from: initialised from
// the crafter's seed, with the crafted θ_0 when there is one.
func initialModel(cfg GameConfig) (*learn.Model, error) {
	c := cfg.Crafted
	m, err := learn.NewModel(cfg.Arch, cfg.InShape, cfg.Classes, c.InitSeed)
	if err != nil {
		return nil, invalidf("game: model: %v", err)
	}
	if c.Init == nil {
		return m, nil
	}
	if cfg.RandomInit {
		return nil, invalidf("game: %s fixes θ_0 (crafted initial parameters); a random initialisation per trial would discard it", c.Kind)
	}
	if len(c.Init) != m.NumParams() {
		return nil, invalidf("game: crafted θ_0 has %d parameters, the model has %d", len(c.Init), m.NumParams())
	}
	if err := m.SetParams(c.Init); err != nil {
		return nil, invalidf("game: crafted θ_0: %v", err)
	}
	return m, nil
}

// trialInfo is what a scorer knows of the trials: the crafted result and
// the training the auditor believes ran (the claimed σ when one is given).
func (g *Game) trialInfo() TrialInfo {
	sigma := g.cfg.DPSGD.NoiseMultiplier
	if g.cfg.ClaimedNoiseMultiplier > 0 {
		sigma = g.cfg.ClaimedNoiseMultiplier
	}
	norm := g.train.SamplingRate * float64(len(g.baseY))
	if g.train.ExpectedBatchSize > 0 {
		norm = g.train.ExpectedBatchSize
	}
	return TrialInfo{
		Crafted: g.cfg.Crafted, NoiseMultiplier: sigma, ClipNorm: g.train.ClipNorm,
		SamplingRate: g.train.SamplingRate, LearningRate: g.train.LearningRate,
		Momentum: g.train.Momentum, WeightDecay: g.train.WeightDecay,
		Steps: g.train.Steps, Normalizer: norm,
	}
}

// prepareData builds the base training set shared by both worlds.
func (g *Game) prepareData(D int) error {
	c, cfg := g.cfg.Crafted, g.cfg
	if c.Dataset != nil {
		if len(c.Dataset.X) != len(c.Dataset.Y)*D {
			return invalidf("game: crafted dataset has %d features for %d records of %d", len(c.Dataset.X), len(c.Dataset.Y), D)
		}
		g.baseX, g.baseY = c.Dataset.X, c.Dataset.Y
	} else {
		if err := checkData("game: training set", cfg.X, cfg.Y, D, cfg.Classes); err != nil {
			return err
		}
		g.baseX, g.baseY = cfg.X, cfg.Y
		if len(c.Exclude) > 0 {
			drop := make(map[int]bool, len(c.Exclude))
			for _, i := range c.Exclude {
				if i < 0 || i >= len(cfg.Y) {
					return invalidf("game: excluded record %d outside the training set of %d", i, len(cfg.Y))
				}
				drop[i] = true
			}
			g.baseX = make([]float32, 0, (len(cfg.Y)-len(drop))*D)
			g.baseY = make([]int32, 0, len(cfg.Y)-len(drop))
			for i := range cfg.Y {
				if !drop[i] {
					g.baseX = append(g.baseX, cfg.X[i*D:(i+1)*D]...)
					g.baseY = append(g.baseY, cfg.Y[i])
				}
			}
		}
	}
	if len(g.baseY) == 0 {
		return invalidf("game: the base training set is empty")
	}
	if cfg.TestY != nil || cfg.TestX != nil {
		if err := checkData("game: test set", cfg.TestX, cfg.TestY, D, cfg.Classes); err != nil {
			return err
		}
	}
	return nil
}

// checkCrafted checks the crafted records and canary against the model.
func (g *Game) checkCrafted(m *learn.Model) error {
	c := g.cfg.Crafted
	for name, r := range map[string]*Record{"target": c.Target, "target0": c.Target0, "query": c.Query} {
		if r == nil {
			continue
		}
		if len(r.X) != m.InputSize() {
			return invalidf("game: %s record has %d features, model input has %d", name, len(r.X), m.InputSize())
		}
		if r.Y < 0 || int(r.Y) >= m.Classes() {
			return invalidf("game: %s record has label %d, want 0…%d", name, r.Y, m.Classes()-1)
		}
	}
	if c.Canary != nil {
		if c.Canary.NumParams != m.NumParams() {
			return invalidf("game: canary is for %d parameters, model has %d", c.Canary.NumParams, m.NumParams())
		}
		if c.Canary.ClipNorm != g.train.ClipNorm {
			return invalidf("game: canary was crafted for clip norm %v, training clips at %v", c.Canary.ClipNorm, g.train.ClipNorm)
		}
	}
	if c.Adaptive != nil {
		if err := checkAdaptive(c.Adaptive, m); err != nil {
			return err
		}
	}
	return nil
}

// ScoreNames returns the names of TrialResult.Scores.
func (g *Game) ScoreNames() []string { return slices.Clone(g.scoreNames) }

// LowerMeansWorld1 says whether low scores suggest world 1.
func (g *Game) LowerMeansWorld1() bool { return g.cfg.Distinguisher.LowerMeansWorld1() }

// Info returns what the distinguisher is told about every trial.
func (g *Game) Info() TrialInfo { return g.info }

// RunTrialIndex runs trial i of the point: world WorldOf(i), stream
// TrialStream(seed, point, i).
func (g *Game) RunTrialIndex(seed uint64, point string, i int) (TrialResult, error) {
	return g.RunTrial(WorldOf(i), TrialStream(seed, point, i))
}

// RunTrial trains once in world b (0: D, 1: D′) with all randomness from
// r, and scores the run with the distinguisher through exactly the
// release its access allows. It returns an error, never a partial row.
func (g *Game) RunTrial(world int, r *rand.Rand) (TrialResult, error) {
	if world != 0 && world != 1 {
		return TrialResult{}, invalidf("trial: world bit %d, want 0 or 1", world)
	}
	if r == nil {
		return TrialResult{}, invalidf("trial: nil random source")
	}
	d := g.cfg.Distinguisher
	c, info := g.trialCrafted(r)
	m, err := g.trialModel(r)
	if err != nil {
		return TrialResult{}, err
	}
	scorer, err := d.NewScorer(info)
	if err != nil {
		return TrialResult{}, err
	}
	h, err := g.trialHooks(world, c, m)
	if err != nil {
		return TrialResult{}, err
	}
	observe := d.Access().Observe
	o := newTrialObserver(m, observe, scorer, h.Target != nil, len(g.baseY))
	if h.Target != nil || o.view != nil {
		h.OnStep = o.onStep
	}
	tr, err := learn.TrainInputs(m, g.base, g.train, r, h)
	if err != nil {
		return TrialResult{}, fmt.Errorf("trial (world %d): %w", world, err)
	}
	o.release()
	var final LossOracle = &blackBox{m: m}
	if observe >= ObserveFinalModel {
		final = &modelView{m: m}
	}
	scores, err := g.finishScores(scorer, final, world)
	if err != nil {
		return TrialResult{}, err
	}
	res := TrialResult{World: world, TestAccuracy: math.NaN(), TargetSteps: o.targetSteps, Scores: scores,
		CanarySteps: tr.CanarySteps, EmptyBatches: tr.EmptyBatches, MeanBatchSize: tr.MeanBatchSize}
	if g.cfg.TestY != nil {
		if res.TestAccuracy, err = m.Accuracy(g.cfg.TestX, g.cfg.TestY); err != nil {
			return TrialResult{}, fmt.Errorf("trial (world %d): test accuracy: %w", world, err)
		}
	}
	return res, nil
}

// trialCrafted returns the crafted result of this trial and what its
// scorer knows: the game's, or, for a crafter that draws a fresh record
// per trial, one with this trial's record (the stream's first draw, so
// the record depends on the trial only).
func (g *Game) trialCrafted(r *rand.Rand) (*Crafted, TrialInfo) {
	c, info := g.cfg.Crafted, g.info
	if c.FreshFromPool {
		D := len(g.cfg.PoolX) / len(g.cfg.PoolY)
		fresh := *c
		fresh.Target = row(g.cfg.PoolX, g.cfg.PoolY, D, r.IntN(len(g.cfg.PoolY)))
		fresh.Query = fresh.Target
		c = &fresh
		info.Crafted = c
	}
	return c, info
}

// trialModel returns the model the trial starts from: a copy of the
// game's θ_0, or a fresh random initialisation from the trial's stream.
func (g *Game) trialModel(r *rand.Rand) (*learn.Model, error) {
	if g.init != nil {
		return g.init.Clone(), nil
	}
	m, err := learn.NewModel(g.cfg.Arch, g.cfg.InShape, g.cfg.Classes, r.Uint64())
	if err != nil {
		return nil, fmt.Errorf("trial: model: %w", err)
	}
	return m, nil
}

// trialHooks returns what world `world` adds to the training on the base
// set: the target record (of D′, or D's own for a crafter that swaps
// records), the gradient canary, the adaptive poisoner.
func (g *Game) trialHooks(world int, c *Crafted, m *learn.Model) (*learn.Hooks, error) {
	h := &learn.Hooks{}
	switch {
	case world == 1 && c.Target != nil:
		h.Target = c.Target.learnRecord()
	case world == 0 && c.Target0 != nil:
		h.Target = c.Target0.learnRecord()
	}
	if world == 1 && g.canary != nil {
		h.Canary = g.canary
	}
	if world == 1 && c.Adaptive != nil {
		p, err := newPoisoner(m, c.Adaptive, c.Query, g.train)
		if err != nil {
			return nil, err
		}
		h.BeforeStep = p.beforeStep
	}
	return h, nil
}

// finishScores asks the scorer for the trial's scores and checks them.
func (g *Game) finishScores(scorer Scorer, final LossOracle, world int) ([]float64, error) {
	d := g.cfg.Distinguisher
	scores, err := scorer.Finish(final)
	if err != nil {
		return nil, fmt.Errorf("trial (world %d): %s: %w", world, d.Kind(), err)
	}
	if len(scores) != len(g.scoreNames) {
		return nil, fmt.Errorf("trial (world %d): %s returned %d scores for %d names", world, d.Kind(), len(scores), len(g.scoreNames))
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return nil, fmt.Errorf("trial (world %d): %s score %s is NaN", world, d.Kind(), g.scoreNames[i])
		}
	}
	return scores, nil
}

// trialObserver is the training's on-step hook in a trial: it counts the
// steps whose batch held the target record and shows the scorer the
// release its access allows (every intermediate model, or also every
// privatised gradient sum), through views that must not outlive the step.
type trialObserver struct {
	scorer      Scorer
	view        StepView // nil when the scorer sees no step
	sv          *stepView
	gv          *gradientView
	countTarget bool
	targetIndex int // the trainer's index of Hooks.Target
	targetSteps int
}

func newTrialObserver(m *learn.Model, observe Observation, scorer Scorer, countTarget bool, targetIndex int) *trialObserver {
	o := &trialObserver{scorer: scorer, countTarget: countTarget, targetIndex: targetIndex}
	switch {
	case observe >= ObserveGradients:
		o.gv = &gradientView{stepView: stepView{m: m}}
		o.view = o.gv
	case observe >= ObserveIntermediateModels:
		o.sv = &stepView{m: m}
		o.view = o.sv
	}
	return o
}

func (o *trialObserver) onStep(s *learn.Step) error {
	if o.countTarget && len(s.Batch) > 0 && s.Batch[len(s.Batch)-1] == o.targetIndex {
		o.targetSteps++
	}
	switch {
	case o.gv != nil:
		o.gv.step, o.gv.params, o.gv.sum = s.Index, s.Params, s.NoisySum
	case o.sv != nil:
		o.sv.step, o.sv.params = s.Index, s.Params
	default:
		return nil
	}
	return o.scorer.ObserveStep(o.view)
}

// release drops the views' references to the trainer's buffers.
func (o *trialObserver) release() {
	if o.gv != nil {
		o.gv.params, o.gv.sum = nil, nil
	}
	if o.sv != nil {
		o.sv.params = nil
	}
}
