package recon

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/learn/gemm"
)

// PriorSource says where each trial's candidates come from.
type PriorSource int

const (
	// PriorPool draws the n candidates uniformly without replacement from
	// the pool (records of the data distribution that are not in D₋).
	PriorPool PriorSource = iota
	// PriorUniformNoise draws uniform-noise candidates in [0, 1] whose mean
	// pairwise distance matches the pool's (Hayes et al. Fig. 9: "the same
	// intra-sample distance statistics"), with random labels.
	PriorUniformNoise
)

// ParsePriorSource parses a spec name.
func ParsePriorSource(s string) (PriorSource, error) {
	switch s {
	case "pool":
		return PriorPool, nil
	case "uniform_noise":
		return PriorUniformNoise, nil
	}
	return 0, invalidf("unknown prior %q (want pool or uniform_noise)", s)
}

// Config is the reconstruction game of one point on a trained model.
type Config struct {
	Arch    learn.Arch
	InShape []int
	Classes int
	// DPSGD is what training really runs (hard clipping).
	DPSGD learn.DPSGD
	// AttackSigma is the σ the log-likelihood rule assumes (0: the actual).
	AttackSigma float64
	// X, Y is D₋, the training set without the target, known to the
	// adversary; the target is trained on as one more record.
	X []float32
	Y []int32
	// PoolX, PoolY hold the records priors are drawn from.
	PoolX []float32
	PoolY []int32
	// PriorSize is n = |π|.
	PriorSize int
	Prior     PriorSource
	// Observe is what the adversary sees of every step: the privatised
	// sums (attack.ObserveGradients), or only the intermediate models
	// (attack.ObserveIntermediateModels), from which it inverts the
	// public update rule. Less is refused: the attack needs every step.
	Observe attack.Observation
	// InitSeed gives θ_0, fixed for the point and known to the adversary.
	InitSeed uint64
	// Inversion, if set, also runs the gradient-based prior-oblivious attack
	// (Eq. 1) on every trial and converts it by nearest candidate. It needs
	// the privatised sums (ObserveGradients) and input gradients.
	Inversion *Inversion
}

// Game is a validated Config, read-only after NewGame, so trials may run
// on many goroutines at once.
type Game struct {
	cfg      Config
	init     *learn.Model
	data     *learn.Inputs // D₋ prepared once for every trial
	inSize   int
	noiseMid float32 // uniform-noise prior: features mid + noiseSc·(u − ½)
	noiseSc  float32
}

// CheckThreat says whether an observation level lets the prior-aware
// adversary run; it needs ḡ_t for every step.
func CheckThreat(o attack.Observation) error {
	if o < attack.ObserveIntermediateModels {
		return invalidf("the prior-aware attack needs every step's privatised gradient (threat model gradient) or every intermediate model to invert the update from (intermediate_models); %s gives neither", o)
	}
	return nil
}

// NewGame validates the configuration. Errors wrap ErrInvalid.
func NewGame(cfg Config) (*Game, error) {
	if err := CheckThreat(cfg.Observe); err != nil {
		return nil, err
	}
	d := cfg.DPSGD
	if err := d.Validate(); err != nil {
		return nil, invalidf("%v", err)
	}
	if d.Clip != "" && d.Clip != learn.ClipHard {
		return nil, invalidf("the prior-aware attack scores hard-clipped gradients; clip %q is not supported", d.Clip)
	}
	if !(d.NoiseMultiplier > 0) || math.IsInf(d.ClipNorm, 0) {
		return nil, invalidf("reconstruction audits need noise (σ > 0) and a finite clip norm, got σ = %v, C = %v", d.NoiseMultiplier, d.ClipNorm)
	}
	if cfg.Observe == attack.ObserveIntermediateModels && d.LearningRate == 0 {
		return nil, invalidf("with learning rate 0 the intermediate models never change: the update cannot be inverted (use threat model gradient)")
	}
	if cfg.AttackSigma < 0 || math.IsNaN(cfg.AttackSigma) || math.IsInf(cfg.AttackSigma, 0) {
		return nil, invalidf("attack noise multiplier must be ≥ 0 and finite, got %v", cfg.AttackSigma)
	}
	m, err := learn.NewModel(cfg.Arch, cfg.InShape, cfg.Classes, cfg.InitSeed)
	if err != nil {
		return nil, invalidf("model: %v", err)
	}
	D := m.InputSize()
	if len(cfg.Y) == 0 || len(cfg.X) != len(cfg.Y)*D {
		return nil, invalidf("D₋ has %d features for %d records of %d", len(cfg.X), len(cfg.Y), D)
	}
	if len(cfg.PoolX) != len(cfg.PoolY)*D {
		return nil, invalidf("the prior's pool has %d features for %d records of %d: its shape does not match the model's input", len(cfg.PoolX), len(cfg.PoolY), D)
	}
	if err := CheckPriorSize(cfg.PriorSize, len(cfg.PoolY), cfg.Prior); err != nil {
		return nil, err
	}
	for _, y := range cfg.PoolY {
		if y < 0 || int(y) >= cfg.Classes {
			return nil, invalidf("pool label %d outside 0…%d", y, cfg.Classes-1)
		}
	}
	if v := cfg.Inversion; v != nil {
		if err := v.Validate(); err != nil {
			return nil, err
		}
		if cfg.Observe != attack.ObserveGradients {
			return nil, invalidf("gradient inversion reads the privatised sums: use threat model gradient")
		}
	}
	// Every trial trains on D₋: scan it (and code its rows) once here,
	// not in each trial (it was a large share of a trial).
	data, err := learn.NewInputs(cfg.X, cfg.Y, D)
	if err != nil {
		return nil, invalidf("%v", err)
	}
	g := &Game{cfg: cfg, init: m, inSize: D, data: data}
	if cfg.Prior == PriorUniformNoise {
		g.noiseMid, g.noiseSc = noiseScale(cfg.PoolX, D, cfg.InitSeed)
	}
	return g, nil
}

// CheckPriorSize checks n against the records available for priors.
func CheckPriorSize(n, pool int, src PriorSource) error {
	if n < 2 {
		return invalidf("prior size must be ≥ 2, got %d", n)
	}
	if src == PriorPool && n > pool {
		return invalidf("prior size %d is larger than the %d records available to draw candidates from", n, pool)
	}
	return nil
}

// noiseScale matches uniform noise to the pool: candidates are ½ + s·(U − ½)
// with U uniform on [0,1]^D, whose expected squared distance is s²·D/6;
// s makes that distance the mean pairwise distance of 256 seeded pool
// pairs, capped at 1 so that features stay in the pixel range [0, 1].
func noiseScale(X []float32, D int, seed uint64) (float32, float32) {
	N := len(X) / D
	if N < 2 {
		return 0.5, 1
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var dist float64
	const pairs = 256
	for range pairs {
		a, b := r.IntN(N), r.IntN(N)
		for b == a {
			b = r.IntN(N)
		}
		var s float64
		for j := 0; j < D; j++ {
			d := float64(X[a*D+j] - X[b*D+j])
			s += d * d
		}
		dist += math.Sqrt(s)
	}
	dist /= pairs
	return 0.5, float32(math.Min(1, dist/math.Sqrt(float64(D)/6)))
}

// drawPrior fills candX, candY with a fresh prior and returns the pool
// indices (nil for noise).
func (g *Game) drawPrior(r *rand.Rand, candX []float32, candY []int32) []int {
	n, D := g.cfg.PriorSize, g.inSize
	if g.cfg.Prior == PriorUniformNoise {
		for i := range candX {
			candX[i] = g.noiseMid + g.noiseSc*(float32(r.Float64())-0.5)
		}
		for i := range candY {
			candY[i] = int32(r.IntN(g.cfg.Classes))
		}
		return nil
	}
	// Floyd's algorithm: n distinct indices of the pool, uniformly.
	N := len(g.cfg.PoolY)
	idx := make([]int, 0, n)
	seen := make(map[int]bool, n)
	for j := N - n; j < N; j++ {
		t := r.IntN(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		idx = append(idx, t)
	}
	// Floyd's order is not uniform over positions; shuffle it.
	r.Shuffle(n, func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
	for i, p := range idx {
		copy(candX[i*D:(i+1)*D], g.cfg.PoolX[p*D:(p+1)*D])
		candY[i] = g.cfg.PoolY[p]
	}
	return idx
}

// RunTrialIndex runs trial i of the point with stream
// attack.TrialStream(seed, point, i).
func (g *Game) RunTrialIndex(seed uint64, point string, i int) (Outcome, error) {
	return g.RunTrial(attack.TrialStream(seed, point, i))
}

// RunTrial draws a prior and a target from r, trains DP-SGD on D₋ ∪ {z*},
// and runs every rule on what the threat model releases.
//
// How ḡ_t is formed. The adversary knows D₋, θ_t and (an assumption the
// paper needs for q < 1, reference note §2.7) which records of D₋ each
// batch sampled, so it can compute K_t = Σ_{z∈B_t∖{z*}} clip_C(∇ℓ(θ_t, z))
// and subtract it from the released sum s_t. Recomputing K_t would double
// the cost of every trial; the harness instead reads it off the trainer as
// the clean clipped sum minus the target's clipped gradient when the
// target was sampled — the same vector up to float32 summation order. The
// attack code (reconTrial's score and invert) sees only θ_t, the
// candidates, and s_t − K_t.
func (g *Game) RunTrial(r *rand.Rand) (Outcome, error) {
	cfg := g.cfg
	n, D := cfg.PriorSize, g.inSize
	candX, candY := make([]float32, n*D), make([]int32, n)
	idx := g.drawPrior(r, candX, candY)
	o := Outcome{Target: r.IntN(n), Record: -1}
	if idx != nil {
		o.Record = idx[o.Target]
	}
	t, err := g.newReconTrial(candX, candY, o.Target)
	if err != nil {
		return Outcome{}, err
	}
	h := &learn.Hooks{Target: &learn.Record{X: t.tX, Y: candY[o.Target]}, CleanSum: true, OnStep: t.onStep}
	if _, err := learn.TrainInputs(t.m, g.data, cfg.DPSGD, r, h); err != nil {
		return Outcome{}, err
	}
	if t.pending {
		if err := t.invert(t.m.Params()); err != nil {
			return Outcome{}, err
		}
	}
	o.TargetSteps = t.targetSteps
	o.TargetGradNorm = t.normSum / float64(cfg.DPSGD.Steps)
	if t.iv != nil {
		z, err := t.iv.run(r)
		if err != nil {
			return Outcome{}, fmt.Errorf("gradient inversion: %w", err)
		}
		d, mse := nearest(z, candX, n, o.Target)
		o.Inversion = &InversionOutcome{Decision: d, MSE: mse}
	}
	t.ev.decideAll(&o, make([]float64, n), make([]float64, cfg.DPSGD.Steps))
	return o, nil
}

// reconTrial is one trial's attack while the model trains: per step, the
// target's clipped gradient (for the harness's K_t), the known sum K_t,
// ḡ_t, and for the model-only view θ_t, kept until θ_{t+1} shows the
// update. The candidates' inner products ⟨∇ℓ(θ_t, z_i), ḡ_t⟩ come from one
// batched call that never materialises their gradients.
type reconTrial struct {
	m            *learn.Model // the model being trained
	candX        []float32
	candY        []int32
	ev           *Evidence
	c, invC2     float64 // clip norm C and 1/C²
	tX           []float32
	tY           []int32
	targetIndex  int // the trainer's index of the target record
	gT           []float32
	normT        []float64
	known, resid []float32
	raw, norms   []float64
	dots, sq     []float64

	inverting bool         // intermediate_models: ḡ_t from θ_t and θ_{t+1}
	prev      []float64    // θ_t
	prev32    []float32    // the same, for the scratch model
	vel       []float64    // the inverted momentum buffer
	mt        *learn.Model // scratch model at θ_t
	pending   bool         // θ_t is kept, waiting for θ_{t+1}
	lr, mu    float64
	wd        float64
	norm      float64 // the update's divisor q·N, public
	iv        *inverter

	normSum     float64
	targetSteps int
}

func (g *Game) newReconTrial(candX []float32, candY []int32, target int) (*reconTrial, error) {
	cfg := g.cfg
	n, D := cfg.PriorSize, g.inSize
	sigma := cfg.AttackSigma
	if sigma == 0 {
		sigma = cfg.DPSGD.NoiseMultiplier
	}
	ev, err := NewEvidence(n, cfg.DPSGD.Steps, cfg.DPSGD.SamplingRate, sigma)
	if err != nil {
		return nil, err
	}
	m := g.init.Clone()
	P := m.NumParams()
	C := cfg.DPSGD.ClipNorm
	t := &reconTrial{m: m, candX: candX, candY: candY, ev: ev, c: C, invC2: 1 / (C * C),
		tX: candX[target*D : (target+1)*D], tY: []int32{candY[target]}, targetIndex: len(cfg.Y),
		gT: make([]float32, P), normT: make([]float64, 1), known: make([]float32, P), resid: make([]float32, P),
		raw: make([]float64, n), norms: make([]float64, n), dots: make([]float64, n), sq: make([]float64, n),
		inverting: cfg.Observe < attack.ObserveGradients,
		lr:        cfg.DPSGD.LearningRate, mu: cfg.DPSGD.Momentum, wd: cfg.DPSGD.WeightDecay}
	if t.inverting {
		t.prev, t.prev32, t.vel = make([]float64, P), make([]float32, P), make([]float64, P)
		t.mt = g.init.Clone()
	}
	if cfg.Inversion != nil {
		t.iv = newInverter(*cfg.Inversion, g.init, C, cfg.DPSGD.Steps, candY[target])
	}
	return t, nil
}

// score turns ḡ_t (resid) into evidence with the model at θ_t.
func (t *reconTrial) score(at *learn.Model) error {
	if err := at.PerExampleGradientDots(t.candX, t.candY, t.resid, t.raw, t.norms); err != nil {
		return fmt.Errorf("candidates' gradients: %w", err)
	}
	for i := range t.raw {
		c := 1.0
		if t.norms[i] > t.c {
			c = t.c / t.norms[i]
		}
		t.dots[i] = c * t.raw[i] * t.invC2
		t.sq[i] = c * c * t.norms[i] * t.norms[i] * t.invC2
	}
	return t.ev.Observe(t.dots, t.sq)
}

// invert recovers s_t from θ_t (prev) and θ_{t+1} (params) through the
// public update v = μv + s/(qN) + λθ, θ ← θ − ηv, then forms ḡ_t.
func (t *reconTrial) invert(params []float32) error {
	for k := range t.resid {
		v := (t.prev[k] - float64(params[k])) / t.lr
		s := (v - t.mu*t.vel[k] - t.wd*t.prev[k]) * t.norm
		t.vel[k] = v
		t.resid[k] = float32(s) - t.known[k]
	}
	if err := t.mt.SetParams(t.prev32); err != nil {
		return err
	}
	return t.score(t.mt)
}

// onStep is the trainer's hook: it forms the harness's K_t, then either
// keeps θ_t for the inversion at the next step or scores ḡ_t now.
func (t *reconTrial) onStep(s *learn.Step) error {
	t.norm = s.Normalizer
	if t.pending {
		if err := t.invert(s.Params); err != nil {
			return err
		}
	}
	// The harness's K_t (see RunTrial): clean sum minus the target's part.
	if err := t.m.PerExampleGradients(t.tX, t.tY, t.gT, t.normT); err != nil {
		return fmt.Errorf("target's gradient: %w", err)
	}
	cT := 1.0
	if t.normT[0] > t.c {
		cT = t.c / t.normT[0]
	}
	t.normSum += cT * t.normT[0]
	copy(t.known, s.ClippedSum)
	if len(s.Batch) > 0 && s.Batch[len(s.Batch)-1] == t.targetIndex {
		t.targetSteps++
		gemm.Axpy(float32(-cT), t.gT, t.known)
	}
	if t.inverting {
		copy(t.prev32, s.Params)
		for k, p := range s.Params {
			t.prev[k] = float64(p)
		}
		t.pending = true
		return nil
	}
	for k := range t.resid {
		t.resid[k] = s.NoisySum[k] - t.known[k]
	}
	if t.iv != nil {
		t.iv.record(s.Params, t.resid)
	}
	return t.score(t.m)
}
