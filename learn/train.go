package learn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/rng"
)

// Result summarises a finished training run. The trained parameters are in
// the model itself.
type Result struct {
	Steps int
	// LastBatchLoss is the mean per-example loss of the last non-empty
	// batch, evaluated at the parameters before that step (NaN if every
	// batch was empty). Use Model.Loss for the loss on a whole data set.
	LastBatchLoss float64
	// MeanBatchSize is the average number of records per step (the Target
	// record included when sampled); EmptyBatches counts noise-only steps.
	MeanBatchSize float64
	EmptyBatches  int
	// CanarySteps counts the steps whose sum included Hooks.Canary.
	CanarySteps int
	// Normalizer is the divisor of every noisy sum (q·N unless overridden).
	Normalizer float64
	// MatchesAccountant is true when the run is exactly the mechanism the
	// Poisson-subsampled Gaussian accountants analyse with noise multiplier
	// σ and sensitivity C: Poisson sampling and hard clipping.
	MatchesAccountant bool
	// Warnings say why the run may not be what the caller expects.
	Warnings []string
}

// Train runs DP-SGD on model m, in place, over the records X (row-major
// N×InputSize, images as C×H×W) with labels Y (0…classes−1). r supplies all
// the randomness: Train draws one uint64 from it and derives every stream
// from that with the rng package — batch sampling and canary draws from
// "learn/sampling", noise block k from ("learn/noise", k) — so one r state
// gives bit-identical results for any Threads. h may be nil.
//
// Train never returns a partial result: on bad input, a non-finite value in
// the data, gradients or parameters, or a hook error, it returns an error
// naming the step and the layer, and the model holds the parameters reached
// so far (when the failing step's noisy gradient is not finite, some of its
// blocks of 16,384 parameters may already hold that step's update: without
// an on-step hook each block is updated right after its noise).
func Train(m *Model, X []float32, Y []int32, cfg DPSGD, r *rand.Rand, h *Hooks) (*Result, error) {
	return train(m, X, Y, nil, cfg, r, h)
}

// train is Train, with prepared inputs in (X, Y are in.X, in.Y) or nil.
func train(m *Model, X []float32, Y []int32, in *Inputs, cfg DPSGD, r *rand.Rand, h *Hooks) (*Result, error) {
	if h == nil {
		h = &Hooks{}
	}
	t, err := newTrainer(m, X, Y, in, cfg, r, h)
	if err != nil {
		return nil, err
	}
	defer t.close()
	for s := 0; s < cfg.Steps; s++ {
		if err := t.step(s); err != nil {
			return nil, err
		}
	}
	return t.result(), nil
}

// trainer is the state of one Train call.
type trainer struct {
	m       *Model
	X       []float32
	Y       []int32
	in      *Inputs // prepared X, Y (TrainInputs), or nil
	cfg     DPSGD
	h       *Hooks
	target  *Record // internal copy of h.Target
	nRec    int     // records that can be sampled: len(Y) (+1 with a target)
	norm    float64 // normaliser q·N
	clipOn  bool
	sampler batchSampler
	virtual virtualSampler // the sampler, when it also places a gradient canary
	draws   *rand.Rand     // sampling stream (batches, canary)
	dirac   *rand.Rand     // Hooks.Dirac inclusion draws
	diracIn []bool         // this step's draws (Step.DiracIncluded)
	// diracGroup is each Dirac canary's group under cyclic sampling (nil
	// otherwise): canary j takes part only in steps t ≡ diracGroup[j].
	diracGroup []int
	noise      *noiseGen
	corr       []*corrState // per noise block, with correlated noise
	ws         []*workspace
	pool       *parallel.Pool // nil with one thread
	chunk      int

	// targetVer counts the copies into target: a gathered chunk holding
	// an older version must be copied again (workspace.keep).
	targetVer uint64

	checkGather bool      // check gathered rows for NaN/Inf
	inSq        []float64 // records' squared norms (dense first layer), or nil
	batch       []int     // this step's indices
	sum         []float32 // clipped sum, then noisy sum
	vel         []float32 // momentum buffer
	clean       []float32
	pex         []float32
	norms       []float64
	losses      []float64
	stepInfo    Step
	bad         []badValue // per worker: first non-finite input seen
	noiseOK     []bool     // per noise block: finite after the noise
	paramBad    []int      // per update block: first non-finite parameter, or −1
	fusedStep   bool       // this step's noise jobs update their blocks too

	res      Result
	lossSeen bool
	batchSum int
}

type badValue struct{ record, feature int }

func newTrainer(m *Model, X []float32, Y []int32, in *Inputs, cfg DPSGD, r *rand.Rand, h *Hooks) (*trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("train: nil random source")
	}
	if err := m.checkData(X, Y); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if len(Y) == 0 {
		return nil, fmt.Errorf("train: no training records")
	}
	t := &trainer{m: m, X: X, Y: Y, in: in, cfg: cfg, h: h, nRec: len(Y), clipOn: cfg.clipping(), chunk: cfg.chunkSize(m)}
	if err := t.checkHooks(); err != nil {
		return nil, err
	}
	q, n := cfg.SamplingRate, float64(len(Y))
	t.norm = q * n
	if cfg.ExpectedBatchSize > 0 {
		t.norm = cfg.ExpectedBatchSize
	}
	t.res.Normalizer = t.norm
	t.res.MatchesAccountant = cfg.sampling() == SamplePoisson && cfg.clip() == ClipHard
	t.initRandomness(r.Uint64())
	if cfg.clip() == ClipSoft {
		t.warn("clip soft: clipped norms reach 1.115·C, so the sensitivity is 1.115·C; account with noise multiplier σ/1.115 (Guo et al. 2022), not σ")
	}

	// When the run reads every record at least once on average, check the
	// data for NaN/Inf up front and, if the first layer is dense, compute
	// each record's squared norm once (the dense norm trick needs ‖x_i‖²
	// at every step). Otherwise check each gathered batch.
	if q*float64(cfg.Steps) >= 1 {
		if err := t.scanData(); err != nil {
			return nil, err
		}
	} else {
		t.checkGather = true
	}

	if h.Target != nil {
		if err := t.loadTarget(); err != nil {
			return nil, err
		}
	}
	t.allocate(cfg.threads())
	return t, nil
}

// initRandomness derives every stream of the run from master: batch
// sampling and canary draws, the Dirac canaries' inclusions, the noise
// blocks (see Train).
func (t *trainer) initRandomness(master uint64) {
	cfg, q, n := t.cfg, t.cfg.SamplingRate, float64(len(t.Y))
	drawSrc := rand.NewChaCha8(rng.Key(master, "learn/sampling"))
	t.draws = rand.New(drawSrc)
	if len(t.h.Dirac) > 0 {
		t.dirac = rand.New(rand.NewChaCha8(rng.Key(master, "learn/dirac")))
	}
	switch cfg.sampling() {
	case SamplePoisson:
		t.sampler = newPoissonSampler(drawSrc, t.nRec, q)
		if q*n < 1 {
			t.warn("sampling rate q = %g times N = %d records is %.3g < 1: most Poisson batches are empty (noise-only steps)", q, len(t.Y), q*n)
		}
	case SampleShuffle:
		// The batch size is q·N with N = len(Y), so that adding a Target
		// record does not change it.
		b := max(1, int(math.Round(q*n)))
		t.sampler = newShuffleSampler(t.draws, t.nRec, b)
		t.warn("sampling shuffle: fixed-size batches of %d from per-epoch shuffles are not the Poisson subsampling the accountants analyse; privacy claims from them do not hold exactly (MatchesAccountant = false)", b)
	case SampleFixedSize:
		t.sampler = newFixedSizeSampler(t.draws, t.nRec, max(1, int(math.Round(q*n))))
	case SampleBallsInBins:
		bib := newBallsInBinsSampler(t.draws, t.nRec, int(math.Round(1/q)))
		t.sampler, t.virtual = bib, bib
	case SampleCyclic:
		cyc := newCyclicSampler(t.draws, drawSrc, t.nRec, cfg.Groups, q)
		// The virtual record (a gradient canary) and the Dirac canaries
		// belong to groups of their own streams, so that the records'
		// batches are those of a run without them.
		cyc.placeVirtual(rand.New(rand.NewChaCha8(rng.Key(master, "learn/cyclic-virtual"))))
		t.sampler, t.virtual = cyc, cyc
		if t.dirac != nil {
			t.diracGroup = make([]int, len(t.h.Dirac))
			for j := range t.diracGroup {
				t.diracGroup[j] = t.dirac.IntN(cfg.Groups)
			}
		}
		if cfg.ExpectedBatchSize == 0 {
			t.norm = q * n / float64(cfg.Groups)
			t.res.Normalizer = t.norm
		}
	}
	if cfg.NoiseMultiplier > 0 {
		t.initNoise(master)
	}
}

// initNoise makes the noise generator and, for matrix-factorization noise,
// each block's correlation state.
func (t *trainer) initNoise(master uint64) {
	t.noise = newNoiseGen(master, len(t.m.params))
	t.noiseOK = make([]bool, t.noise.blocks())
	if c := t.cfg.Correlated; c != nil {
		t.corr = make([]*corrState, t.noise.blocks())
		for k := range t.corr {
			t.corr[k] = newCorrState(c, min(noiseBlock, len(t.m.params)-k*noiseBlock))
		}
	}
}

// allocate makes the run's buffers: one workspace per thread, the sums,
// the per-block flags, and the pool when there are several threads.
func (t *trainer) allocate(threads int) {
	m, h := t.m, t.h
	maxB := min(t.chunk, t.nRec)
	t.ws = make([]*workspace, threads)
	for i := range t.ws {
		t.ws[i] = newWorkspace(m, max(maxB, 1), false)
		t.ws[i].keep = true // X is fixed for the run
		if t.in != nil && !m.chw && gatherCodes {
			t.ws[i].setCodes(t.in) // coded rows are in the caller's layout
		}
	}
	t.bad = make([]badValue, threads)
	t.sum = make([]float32, len(m.params))
	t.paramBad = make([]int, t.updateBlocks())
	for k := range t.paramBad {
		t.paramBad[k] = -1
	}
	if t.cfg.Momentum > 0 {
		t.vel = make([]float32, len(m.params))
	}
	if h.CleanSum {
		t.clean = make([]float32, len(m.params))
	}
	q := t.cfg.SamplingRate
	t.batch = make([]int, 0, int(q*float64(t.nRec)+10*math.Sqrt(q*float64(t.nRec))+16))
	if threads > 1 {
		t.pool = parallel.NewPool(threads, t.runJob)
	}
}

// checkHooks validates the adversary's canary and target record.
func (t *trainer) checkHooks() error {
	h, m := t.h, t.m
	if h.Canary != nil {
		if len(h.Canary) != len(m.params) {
			return fmt.Errorf("train: canary has %d values, model has %d parameters", len(h.Canary), len(m.params))
		}
		if ok, i := allFinite(h.Canary); !ok {
			return fmt.Errorf("train: canary value %d (%s) is %v", i, m.paramName(i), h.Canary[i])
		}
		limit := t.cfg.ClipNorm
		if t.cfg.clip() == ClipSoft {
			limit *= 1.11524 // the soft clip's maximal output norm
		}
		if norm := math.Sqrt(sumSq(h.Canary)); norm > limit*(1+1e-6) {
			return fmt.Errorf("train: canary norm %g exceeds the clip norm %g: it would not be a valid clipped gradient", norm, limit)
		}
	}
	if len(h.Dirac) > 0 {
		limit := t.cfg.ClipNorm
		if t.cfg.clip() == ClipSoft {
			limit *= 1.11524
		}
		if v := math.Abs(float64(h.DiracValue)); !(v <= limit*(1+1e-6)) {
			return fmt.Errorf("train: Dirac canary value %v exceeds the clip norm %g: it would not be a valid clipped gradient", h.DiracValue, limit)
		}
		seen := make(map[int]bool, len(h.Dirac))
		for _, i := range h.Dirac {
			if i < 0 || i >= len(m.params) || seen[i] {
				return fmt.Errorf("train: Dirac canary index %d out of range [0, %d) or repeated", i, len(m.params))
			}
			seen[i] = true
		}
	}
	if h.Target != nil {
		t.target = &Record{X: make([]float32, m.inSize)}
		t.nRec++
	}
	return nil
}

// scanData checks X for NaN/Inf and precomputes the records' squared norms
// for a dense first layer (in t.inSq, with room for the target record).
func (t *trainer) scanData() error {
	m := t.m
	_, dense := m.layers[0].(*dense)
	bad := func(j int) error {
		return fmt.Errorf("train: data record %d feature %d is %v", j/m.inSize, j%m.inSize, t.X[j])
	}
	if in := t.in; in != nil {
		// Prepared once (NewInputs): the same scan, the same sums.
		if in.badAt >= 0 {
			return bad(in.badAt)
		}
		if dense && t.clipOn {
			t.inSq = make([]float64, t.nRec)
			copy(t.inSq, in.sq)
		}
		return nil
	}
	if !dense || !t.clipOn {
		if ok, j := allFinite(t.X); !ok {
			return bad(j)
		}
		return nil
	}
	t.inSq = make([]float64, t.nRec)
	if j := scanRows(t.X, m.inSize, t.inSq[:len(t.Y)]); j >= 0 {
		return bad(j)
	}
	return nil
}

// loadTarget validates h.Target and copies it into the trainer.
func (t *trainer) loadTarget() error {
	tg, m := t.h.Target, t.m
	if len(tg.X) != m.inSize {
		return fmt.Errorf("train: target record has %d features, model input has %d", len(tg.X), m.inSize)
	}
	if tg.Y < 0 || int(tg.Y) >= m.classes {
		return fmt.Errorf("train: target label %d, want 0…%d", tg.Y, m.classes-1)
	}
	if ok, j := allFinite(tg.X); !ok {
		return fmt.Errorf("train: target record feature %d is %v", j, tg.X[j])
	}
	copy(t.target.X, tg.X)
	t.target.Y = tg.Y
	t.targetVer++
	if t.inSq != nil {
		t.inSq[len(t.Y)] = sumSq(t.target.X)
	}
	return nil
}

func (t *trainer) warn(format string, args ...any) {
	t.res.Warnings = append(t.res.Warnings, fmt.Sprintf(format, args...))
}

func (t *trainer) close() {
	if t.pool != nil {
		t.pool.Close()
	}
}

func (t *trainer) result() *Result {
	r := t.res
	r.Steps = t.cfg.Steps
	if !t.lossSeen {
		r.LastBatchLoss = math.NaN()
	}
	if t.cfg.Steps > 0 {
		r.MeanBatchSize = float64(t.batchSum) / float64(t.cfg.Steps)
	}
	return &r
}
