package attack

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
)

// The ideal mechanism: Nasr et al. (2021)'s malicious-dataset adversary
// (§IV-F) with learning rate 0 and benign gradients that are exactly 0.
// Every released update is then pure DP noise plus, when the Poisson sample
// includes it, the canary gradient of norm C, so the audit is exactly a
// test of the Poisson-subsampled Gaussian mechanism composed T times
// (reference note §3.6). Projected on the canary's unit direction and
// divided by C, step t releases the scalar
//
//	y_t = b·B_t + σ·Z_t,   B_t ~ Bernoulli(q),  Z_t ~ N(0, 1),
//
// with b the world bit (1: canary present, D′) and σ the noise multiplier.
// Nothing else of a model needs to exist, so a 10⁶-trial audit takes
// seconds. The distinguishers' scores are accumulated step by step, in O(1)
// memory per trial.

// IdealMechanism is the simulated training: T steps at Poisson rate q with
// the noise multiplier σ that training actually uses (σ_actual; the
// accountant may have been told another, see IdealRun.DistinguisherSigma).
type IdealMechanism struct {
	SamplingRate    float64 // q ∈ (0, 1]
	Steps           int     // T ≥ 1
	NoiseMultiplier float64 // σ_actual > 0, in units of the clipping norm C
	// Shuffle simulates shuffled batches of fixed size instead of Poisson
	// sampling: K = round(1/q) batches per epoch, a fresh permutation per
	// epoch, so the canary is in exactly one uniformly random step of
	// each epoch (of a final partial epoch of R < K steps, w.p. R/K). The
	// other records contribute −1 each and the canary +1 (world 1) or
	// nothing (world 0, zero-out adjacency); with fixed batch sizes their
	// sum is known, so the canary's step shows y = 2 (world 1) or 1
	// (world 0) on top of the noise, every other step 0. This is the pair
	// under which shuffling is far less private than Poisson accounting
	// says (privacy.ShuffleOthersMinusOne; Chua et al. 2024). Zero-out
	// adjacency is accounted like add/remove under Poisson sampling, so a
	// Poisson claim can be audited with it.
	Shuffle bool
	// BallsInBins simulates balls-in-bins (random allocation) sampling
	// under add/remove adjacency: each epoch of K = round(1/q) steps puts
	// the canary into one uniformly random step (world 1; a final partial
	// epoch of R < K steps shows it w.p. R/K), the other records are 0.
	// This is the epoch's dominating pair (1/K)Σ_j N(e_j, σ²I) against
	// N(0, σ²I) (privacy.SamplingBallsInBins; Chua et al. 2025), so the
	// game is tight for its accountant.
	BallsInBins bool
	// ReplaceOne simulates replace-one adjacency under Poisson sampling:
	// the differing record's clipped gradient is −1 (world 0) or +1
	// (world 1), sampled w.p. q in both worlds, the others 0 — the ±C
	// mixture pair privacy.AdjacencyReplaceOne accounts exactly.
	ReplaceOne bool
	// FixedSize simulates fixed-size batches (a fresh uniformly random
	// b-subset each step, b/n = q) under replace-one adjacency: every
	// other record's gradient is −1 and the differing record's −1 (world
	// 0) or +1 (world 1), so a batch's sum is known except for a shift of
	// 2 when the record is in it (probability q, independently across
	// steps). This attains the sampler's dominating pair (the σ/2
	// add/remove pair, privacy.SamplingFixedSize), and it is the Poisson
	// game at σ/2 in units of 2C, which is how it is simulated (with
	// ReplaceOne, as its adjacency).
	FixedSize bool
}

// laned reports whether SimulateIdeal draws the trials from the Poisson
// game's stream (ideal_poisson.go); the other games run Trial's draws.
func (m IdealMechanism) laned() bool {
	return !m.Shuffle && !m.BallsInBins && !m.ReplaceOne
}

// simulated is the mechanism that is simulated for m and the noise
// multiplier its distinguisher assumes: the fixed-size game is the
// Poisson add/remove game at σ/2 (see FixedSize); the others are
// themselves.
func (m IdealMechanism) simulated(sigmaD float64) (IdealMechanism, float64) {
	if !m.FixedSize {
		return m, sigmaD
	}
	return IdealMechanism{SamplingRate: m.SamplingRate, Steps: m.Steps, NoiseMultiplier: m.NoiseMultiplier / 2}, sigmaD / 2
}

// Batches is K, the batches per epoch of shuffled sampling.
func (m IdealMechanism) Batches() int { return max(1, int(math.Round(1/m.SamplingRate))) }

// Validate reports bad parameters as errors wrapping ErrInvalid
// (privacy.ErrInvalid).
func (m IdealMechanism) Validate() error {
	if !(m.SamplingRate > 0 && m.SamplingRate <= 1) {
		return idealInvalid("sampling rate must be in (0, 1], got %v", m.SamplingRate)
	}
	if m.Steps < 1 {
		return idealInvalid("steps must be ≥ 1, got %d", m.Steps)
	}
	if !(m.NoiseMultiplier > 0) || math.IsInf(m.NoiseMultiplier, 1) {
		return idealInvalid("noise multiplier must be > 0 and finite, got %v", m.NoiseMultiplier)
	}
	samplers := 0
	for _, on := range []bool{m.Shuffle, m.BallsInBins, m.FixedSize} {
		if on {
			samplers++
		}
	}
	switch {
	case samplers > 1:
		return idealInvalid("at most one of shuffled, balls-in-bins and fixed-size sampling")
	case m.FixedSize && !m.ReplaceOne:
		return idealInvalid("fixed-size sampling is simulated under replace-one adjacency only (its add/remove game changes the dataset size, hence b/n)")
	case m.ReplaceOne && (m.Shuffle || m.BallsInBins):
		return idealInvalid("replace-one adjacency is simulated with Poisson or fixed-size sampling only")
	}
	return nil
}

// idealInvalid wraps privacy.ErrInvalid (the package's ErrInvalid is the
// same value).
func idealInvalid(format string, args ...any) error {
	return fmt.Errorf("attack: ideal mechanism: %w: %s", privacy.ErrInvalid, fmt.Sprintf(format, args...))
}

// IdealScores are the scores of one trial; higher means world 1 for all
// three. σ_d is the noise multiplier the distinguisher assumes.
type IdealScores struct {
	// Projection is Σ_t y_t, the canary-direction projection of the summed
	// updates (Distinguisher 3's distance d summed over steps): the optimal
	// statistic if the canary were in every step.
	Projection float64
	// Watermark is Σ_t −(y_t − 1)²/(2σ_d²): the log of the paper's
	// p_watermark = Π_t p(d_t | watermark) (Distinguisher 3, Eq. 6) with the
	// note's fixes — mean C (1 in units of C) and variance σ²C² for the
	// projected step, the normaliser dropped as a constant. A cruder score
	// than LLR: it ignores q.
	Watermark float64
	// LLR is the Neyman–Pearson log-likelihood ratio of the whole stream,
	// Σ_t log(1 − q + q·exp((2y_t − 1)/(2σ_d²))) (note §3.5): the most
	// powerful test when σ_d is the actual σ.
	LLR float64
}

// Trial simulates one trial in the given world (true: canary present) from
// the stream r, scoring with the distinguisher's noise multiplier sigmaD.
// The inclusions B_t are drawn as geometric gaps, so a trial costs one
// normal draw per step. Inputs are assumed valid (see Validate).
// SimulateIdeal draws the Poisson add/remove game from another stream
// laid out for its vector kernels (ideal_poisson.go): the same
// distribution of scores, other draws.
func (m IdealMechanism) Trial(r *rand.Rand, world bool, sigmaD float64) IdealScores {
	m, sigmaD = m.simulated(sigmaD)
	return m.trial(r, world, sigmaD, true)
}

// trial is Trial with the LLR optional: its exponential is two thirds of
// a step's cost.
func (m IdealMechanism) trial(r *rand.Rand, world bool, sigmaD float64, withLLR bool) IdealScores {
	switch {
	case m.Shuffle:
		return m.shuffleTrial(r, world, sigmaD)
	case m.BallsInBins:
		return m.binsTrial(r, world, sigmaD)
	case m.ReplaceOne:
		return m.replaceTrial(r, world, sigmaD)
	}
	q, sigma := m.SamplingRate, m.NoiseMultiplier
	inv2s2 := 1 / (2 * sigmaD * sigmaD)
	logQ, log1mQ := math.Log(q), math.Log1p(-q)
	// nextIn is the next step whose batch includes the canary (world 1 only).
	nextIn := m.Steps
	gap := func() int {
		if q == 1 {
			return 0
		}
		// P[gap = k] = (1 − q)^k q: inversion of the geometric law.
		g := math.Floor(math.Log(1-r.Float64()) / log1mQ)
		return int(math.Min(g, float64(m.Steps)))
	}
	if world {
		nextIn = gap()
	}
	// The LLR is accumulated as a product of the per-step likelihood ratios
	// 1 − q + q·e^z, folded into logLR whenever it leaves [1e-150, 1e150]:
	// one Exp per step instead of an Exp and a Log (twice as fast), and the
	// product's rounding (1e-16 relative per step) costs ~T·1e-16 in LLR.
	var s IdealScores
	prod, logLR := 1.0, 0.0
	for t := 0; t < m.Steps; t++ {
		y := sigma * r.NormFloat64()
		if t == nextIn {
			y++
			nextIn = t + 1 + gap()
		}
		s.Projection += y
		d := y - 1
		s.Watermark -= d * d * inv2s2
		if !withLLR {
			continue
		}
		z := (2*y - 1) * inv2s2
		if z > 30 {
			logLR += largeStepLLR(z, q, logQ)
			continue
		}
		prod *= 1 - q + q*math.Exp(z)
		if prod > 1e150 || prod < 1e-150 {
			logLR += math.Log(prod)
			prod = 1
		}
	}
	s.LLR = logLR + math.Log(prod)
	return s
}

// shuffleTrial is a trial of the shuffled game (see Shuffle). LLR is the
// Neyman–Pearson log-likelihood ratio of that game under σ_d, epoch by
// epoch: log Σ_t e^{(4y_t−4)/(2σ_d²)} − log Σ_t e^{(2y_t−1)/(2σ_d²)}, each
// sum with K − R terms e^0 for the unobserved steps of a partial epoch.
// Projection and Watermark are as for Poisson sampling.
func (m IdealMechanism) shuffleTrial(r *rand.Rand, world bool, sigmaD float64) IdealScores {
	K, sigma := m.Batches(), m.NoiseMultiplier
	inv2s2 := 1 / (2 * sigmaD * sigmaD)
	shift := 1.0
	if world {
		shift = 2
	}
	var s IdealScores
	for start := 0; start < m.Steps; start += K {
		R := min(K, m.Steps-start)
		slot := r.IntN(K) // the canary's step in this epoch (≥ R: not observed)
		la, lb := math.Inf(-1), math.Inf(-1)
		if R < K {
			la = math.Log(float64(K - R))
			lb = la
		}
		for t := 0; t < R; t++ {
			y := sigma * r.NormFloat64()
			if t == slot {
				y += shift
			}
			s.Projection += y
			d := y - 1
			s.Watermark -= d * d * inv2s2
			la = numeric.LogAddExp(la, (4*y-4)*inv2s2)
			lb = numeric.LogAddExp(lb, (2*y-1)*inv2s2)
		}
		s.LLR += la - lb
	}
	return s
}

// binsTrial is a trial of the balls-in-bins game (see BallsInBins). LLR
// is the Neyman–Pearson log-likelihood ratio of the game under σ_d,
// epoch by epoch: log((K − R + Σ_t e^{(2y_t−1)/(2σ_d²)})/K) over the R
// observed steps of the epoch. Projection and Watermark are as for
// Poisson sampling.
func (m IdealMechanism) binsTrial(r *rand.Rand, world bool, sigmaD float64) IdealScores {
	K, sigma := m.Batches(), m.NoiseMultiplier
	inv2s2 := 1 / (2 * sigmaD * sigmaD)
	logK := math.Log(float64(K))
	var s IdealScores
	for start := 0; start < m.Steps; start += K {
		R := min(K, m.Steps-start)
		slot := -1
		if world {
			slot = r.IntN(K) // the canary's step in this epoch (≥ R: not observed)
		}
		la := math.Inf(-1)
		if R < K {
			la = math.Log(float64(K - R))
		}
		for t := 0; t < R; t++ {
			y := sigma * r.NormFloat64()
			if t == slot {
				y++
			}
			s.Projection += y
			d := y - 1
			s.Watermark -= d * d * inv2s2
			la = numeric.LogAddExp(la, (2*y-1)*inv2s2)
		}
		s.LLR += la - logK
	}
	return s
}

// replaceTrial is a trial of the Poisson replace-one game (see
// ReplaceOne): the record is sampled w.p. q in both worlds and shows −1
// (world 0) or +1 (world 1). LLR is Σ_t log(1 − q + q·e^{(2y_t−1)/(2σ_d²)})
// − log(1 − q + q·e^{(−2y_t−1)/(2σ_d²)}).
func (m IdealMechanism) replaceTrial(r *rand.Rand, world bool, sigmaD float64) IdealScores {
	q, sigma := m.SamplingRate, m.NoiseMultiplier
	inv2s2 := 1 / (2 * sigmaD * sigmaD)
	logQ, log1mQ := math.Log(q), math.Log1p(-q)
	shift := -1.0
	if world {
		shift = 1
	}
	var s IdealScores
	for t := 0; t < m.Steps; t++ {
		y := sigma * r.NormFloat64()
		if r.Float64() < q {
			y += shift
		}
		s.Projection += y
		d := y - 1
		s.Watermark -= d * d * inv2s2
		s.LLR += mixtureLogLR((2*y-1)*inv2s2, logQ, log1mQ) - mixtureLogLR((-2*y-1)*inv2s2, logQ, log1mQ)
	}
	return s
}

// mixtureLogLR is log(1 − q + q·e^z), without overflow for large z.
func mixtureLogLR(z, logQ, log1mQ float64) float64 {
	if logQ == 0 { // q = 1
		return z
	}
	return numeric.LogAddExp(log1mQ, logQ+z)
}

// largeStepLLR is a step's log-likelihood ratio log(1 − q + q·e^z) for
// z > 30, as z + log q + log1p((1 − q)/q·e^−z) so that e^z cannot overflow.
func largeStepLLR(z, q, logQ float64) float64 {
	return z + logQ + math.Log1p((1-q)/q*math.Exp(-z))
}

// IdealWorlds says how trials are assigned to worlds.
type IdealWorlds int

const (
	// IdealAlternate puts trial i in world i mod 2: exactly balanced worlds,
	// as a multi-run audit with N trials per world wants.
	IdealAlternate IdealWorlds = iota
	// IdealRandom draws each trial's world from a fair coin (the first draw
	// of the trial's own stream), as the one-run audit's canary inclusions
	// must be.
	IdealRandom
)

// IdealRun is a batch of trials of the ideal mechanism.
type IdealRun struct {
	Mechanism IdealMechanism
	// DistinguisherSigma is the noise multiplier the distinguisher assumes
	// (for Watermark and LLR); 0 means the actual one. Setting it to the
	// claimed σ while Mechanism.NoiseMultiplier is the actual σ simulates
	// training with a bug the accountant does not know about: the audit of
	// the claim must then flag the violation.
	DistinguisherSigma float64
	// Seed and Path name the streams: trial i is keyed by rng's key of
	// (Seed, Path..., i), e.g. Path = {"trial", pointID} — Trial's draws on
	// rng.New(Seed, Path..., i), or for the Poisson add/remove game the
	// stream of ideal_poisson.go. A trial's scores depend only on (Seed,
	// Path, i), never on the chunking, the range, the number of workers
	// or the CPU (the kernels and their Go forms give the same bits).
	Seed uint64
	Path []any
	// First and Count select the trials [First, First+Count).
	First, Count int
	Worlds       IdealWorlds
	// Workers run chunks of trials in parallel (0: GOMAXPROCS).
	Workers int
	// SkipLLR leaves the LLR column at 0, for audits of the Projection or
	// Watermark scores only: the Poisson game's simulation is then about
	// 1.3× faster (4,000 trials × T = 1000 on one worker).
	SkipLLR bool
}

// IdealTrials holds the simulated trials column by column, in trial order.
type IdealTrials struct {
	Index                      []int  // trial index i
	World                      []bool // true: canary present (D′)
	Projection, Watermark, LLR []float64
}

// idealChunk is how many trials a worker takes at a time: large enough to
// amortise the scheduling, small enough to balance two loaded cores.
const idealChunk = 256

// SimulateIdeal simulates the trials of run in parallel.
func SimulateIdeal(run IdealRun) (IdealTrials, error) {
	if err := run.Mechanism.Validate(); err != nil {
		return IdealTrials{}, err
	}
	sigmaD := run.DistinguisherSigma
	switch {
	case sigmaD == 0:
		sigmaD = run.Mechanism.NoiseMultiplier
	case !(sigmaD > 0) || math.IsInf(sigmaD, 1):
		return IdealTrials{}, idealInvalid("distinguisher noise multiplier must be > 0 and finite (or 0 for the actual one), got %v", sigmaD)
	}
	run.Mechanism, sigmaD = run.Mechanism.simulated(sigmaD)
	if run.First < 0 || run.Count < 0 {
		return IdealTrials{}, idealInvalid("trial range must have First ≥ 0 and Count ≥ 0, got %d and %d", run.First, run.Count)
	}
	if run.Worlds != IdealAlternate && run.Worlds != IdealRandom {
		return IdealTrials{}, idealInvalid("unknown world assignment %d", int(run.Worlds))
	}
	if run.Workers < 0 {
		return IdealTrials{}, idealInvalid("workers must be ≥ 0, got %d", run.Workers)
	}
	n := run.Count
	out := IdealTrials{
		Index: make([]int, n), World: make([]bool, n),
		Projection: make([]float64, n), Watermark: make([]float64, n), LLR: make([]float64, n),
	}
	workers := parallel.Workers((n+idealChunk-1)/idealChunk, run.Workers)
	sims := make([]*poissonSim, workers)
	err := parallel.Chunks(context.Background(), n, idealChunk, workers, func(w, lo, hi int) error {
		if sims[w] == nil && run.Mechanism.laned() {
			sims[w] = newPoissonSim(run.Mechanism, sigmaD, !run.SkipLLR)
		}
		run.simulateChunk(sims[w], sigmaD, lo, hi, &out)
		return nil
	})
	return out, err
}

// simulateChunk simulates trials [lo, hi) of run into out: the Poisson
// add/remove game from its stream (ideal_poisson.go), the other games
// with Trial's draws.
func (run IdealRun) simulateChunk(sim *poissonSim, sigmaD float64, lo, hi int, out *IdealTrials) {
	prefix := rng.NewPrefix(run.Seed, run.Path...)
	// The other games read their streams through rand.Rand (one ChaCha8,
	// reseeded for each trial: a fresh one per trial was a kilobyte of
	// garbage per trial, and the collections it caused preempted the
	// workers).
	src := rand.NewChaCha8([32]byte{})
	r := rand.New(src)
	random := run.Worlds == IdealRandom
	for k := lo; k < hi; k++ {
		i := run.First + k
		key := prefix.Key(i)
		world := i%2 == 1
		var s IdealScores
		if sim != nil {
			s, world = sim.trial(key, random, world)
		} else {
			src.Seed(key)
			if random {
				world = src.Uint64()&1 == 1
			}
			s = run.Mechanism.trial(r, world, sigmaD, !run.SkipLLR)
		}
		out.Index[k], out.World[k] = i, world
		out.Projection[k], out.Watermark[k], out.LLR[k] = s.Projection, s.Watermark, s.LLR
	}
}
