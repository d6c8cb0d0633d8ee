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
	c, d := cfg.Crafted, cfg.Distinguisher
	if d == nil {
		return nil, invalidf("game: no distinguisher")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := checkPair(c.Kind, c.Access, c.Products, d, cfg.Threat); err != nil {
		return nil, err
	}
	if cfg.ClaimedNoiseMultiplier < 0 || math.IsNaN(cfg.ClaimedNoiseMultiplier) {
		return nil, invalidf("game: claimed noise multiplier must be ≥ 0, got %v", cfg.ClaimedNoiseMultiplier)
	}
	if cfg.RandomInit && c.Products&FreezesModel != 0 {
		return nil, invalidf("game: %s labels its dataset with the fixed θ_0; a random initialisation per trial would break it", c.Kind)
	}
	g := &Game{cfg: cfg, train: cfg.DPSGD}
	if c.LearningRate != nil {
		g.train.LearningRate = *c.LearningRate
	}
	if err := g.train.Validate(); err != nil {
		return nil, invalidf("game: %v", err)
	}
	m, err := learn.NewModel(cfg.Arch, cfg.InShape, cfg.Classes, c.InitSeed)
	if err != nil {
		return nil, invalidf("game: model: %v", err)
	}
	if c.Init != nil {
		if cfg.RandomInit {
			return nil, invalidf("game: %s fixes θ_0 (crafted initial parameters); a random initialisation per trial would discard it", c.Kind)
		}
		if len(c.Init) != m.NumParams() {
			return nil, invalidf("game: crafted θ_0 has %d parameters, the model has %d", len(c.Init), m.NumParams())
		}
		if err := m.SetParams(c.Init); err != nil {
			return nil, invalidf("game: crafted θ_0: %v", err)
		}
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
	sigma := cfg.DPSGD.NoiseMultiplier
	if cfg.ClaimedNoiseMultiplier > 0 {
		sigma = cfg.ClaimedNoiseMultiplier
	}
	norm := g.train.SamplingRate * float64(len(g.baseY))
	if g.train.ExpectedBatchSize > 0 {
		norm = g.train.ExpectedBatchSize
	}
	g.info = TrialInfo{
		Crafted: c, NoiseMultiplier: sigma, ClipNorm: g.train.ClipNorm,
		SamplingRate: g.train.SamplingRate, LearningRate: g.train.LearningRate,
		Momentum: g.train.Momentum, WeightDecay: g.train.WeightDecay,
		Steps: g.train.Steps, Normalizer: norm,
	}
	if _, err := d.NewScorer(g.info); err != nil { // fail at validation, not in trial 0
		return nil, err
	}
	g.scoreNames = append([]string(nil), d.ScoreNames()...)
	if len(g.scoreNames) == 0 {
		return nil, invalidf("game: distinguisher %s names no scores", d.Kind())
	}
	return g, nil
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
	c, d := g.cfg.Crafted, g.cfg.Distinguisher
	info := g.info
	if c.FreshFromPool {
		// This trial's record: the stream's first draw, so the record
		// depends on the trial only.
		D := len(g.cfg.PoolX) / len(g.cfg.PoolY)
		fresh := *c
		fresh.Target = row(g.cfg.PoolX, g.cfg.PoolY, D, r.IntN(len(g.cfg.PoolY)))
		fresh.Query = fresh.Target
		c = &fresh
		info.Crafted = c
	}
	var m *learn.Model
	if g.init != nil {
		m = g.init.Clone()
	} else {
		var err error
		if m, err = learn.NewModel(g.cfg.Arch, g.cfg.InShape, g.cfg.Classes, r.Uint64()); err != nil {
			return TrialResult{}, fmt.Errorf("trial: model: %w", err)
		}
	}
	scorer, err := d.NewScorer(info)
	if err != nil {
		return TrialResult{}, err
	}

	h := &learn.Hooks{}
	res := TrialResult{World: world, TestAccuracy: math.NaN()}
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
			return TrialResult{}, err
		}
		h.BeforeStep = p.beforeStep
	}

	targetIndex := len(g.baseY) // the trainer's index of Hooks.Target
	observe := d.Access().Observe
	var view StepView
	var sv *stepView
	var gv *gradientView
	switch {
	case observe >= ObserveGradients:
		gv = &gradientView{stepView: stepView{m: m}}
		view = gv
	case observe >= ObserveIntermediateModels:
		sv = &stepView{m: m}
		view = sv
	}
	if h.Target != nil || view != nil {
		h.OnStep = func(s *learn.Step) error {
			if h.Target != nil && len(s.Batch) > 0 && s.Batch[len(s.Batch)-1] == targetIndex {
				res.TargetSteps++
			}
			switch {
			case gv != nil:
				gv.step, gv.params, gv.sum = s.Index, s.Params, s.NoisySum
			case sv != nil:
				sv.step, sv.params = s.Index, s.Params
			default:
				return nil
			}
			return scorer.ObserveStep(view)
		}
	}

	tr, err := learn.TrainInputs(m, g.base, g.train, r, h)
	if err != nil {
		return TrialResult{}, fmt.Errorf("trial (world %d): %w", world, err)
	}
	if gv != nil { // the views must not outlive the step
		gv.params, gv.sum = nil, nil
	}
	if sv != nil {
		sv.params = nil
	}
	var final LossOracle = &blackBox{m: m}
	if observe >= ObserveFinalModel {
		final = &modelView{m: m}
	}
	scores, err := scorer.Finish(final)
	if err != nil {
		return TrialResult{}, fmt.Errorf("trial (world %d): %s: %w", world, d.Kind(), err)
	}
	if len(scores) != len(g.scoreNames) {
		return TrialResult{}, fmt.Errorf("trial (world %d): %s returned %d scores for %d names", world, d.Kind(), len(scores), len(g.scoreNames))
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return TrialResult{}, fmt.Errorf("trial (world %d): %s score %s is NaN", world, d.Kind(), g.scoreNames[i])
		}
	}
	res.Scores = scores
	res.CanarySteps = tr.CanarySteps
	res.EmptyBatches = tr.EmptyBatches
	res.MeanBatchSize = tr.MeanBatchSize
	if g.cfg.TestY != nil {
		if res.TestAccuracy, err = m.Accuracy(g.cfg.TestX, g.cfg.TestY); err != nil {
			return TrialResult{}, fmt.Errorf("trial (world %d): test accuracy: %w", world, err)
		}
	}
	return res, nil
}
