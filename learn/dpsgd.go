package learn

import (
	"fmt"
	"math"
)

// Sampling schemes accepted in DPSGD.Sampling.
const (
	// SamplePoisson includes every record independently with probability q
	// at every step (variable batch size; empty batches are noise-only
	// steps). This is what the subsampled-Gaussian accountants analyse.
	SamplePoisson = "poisson"
	// SampleShuffle takes consecutive fixed-size batches of round(q·N)
	// records from a fresh random permutation per epoch (the partial batch
	// at an epoch's end is dropped). Common in practice, but NOT what the
	// accountants analyse: Result.MatchesAccountant is false.
	SampleShuffle = "shuffle"
	// SampleFixedSize draws every step a uniformly random subset of
	// round(q·N) records, independently across steps (sampling without
	// replacement within a step). Accounted by privacy.SamplingFixedSize
	// under replace-one adjacency, not by the Poisson accountants:
	// Result.MatchesAccountant is false.
	SampleFixedSize = "fixed_size"
	// SampleBallsInBins puts every record, each epoch of round(1/q) steps,
	// into one of the epoch's batches uniformly at random (random
	// allocation, Chua et al. 2025): each record is used exactly once per
	// epoch, batch sizes are multinomial. Accounted by
	// privacy.SamplingBallsInBins, not by the Poisson accountants:
	// Result.MatchesAccountant is false. A gradient canary (Hooks.Canary)
	// is a record too: it lands in one step per epoch.
	SampleBallsInBins = "balls_in_bins"
	// SampleCyclic splits the records at random, once, into Groups groups
	// and at step t samples each record of group t mod Groups with
	// probability q (q = 1: the whole group). With q = 1 every record
	// takes part every Groups steps (cyclic, (k, b)-participation of the
	// matrix-factorization literature); with q < 1 and Groups = b bands it
	// is the sampler of amplified banded MF (Choquette-Choo et al. 2023).
	// The normaliser is q·N/Groups. Result.MatchesAccountant is false.
	SampleCyclic = "cyclic"
)

// Clipping schemes accepted in DPSGD.Clip.
const (
	// ClipHard scales g to g·min(1, C/‖g‖) (Abadi et al. 2016).
	ClipHard = "hard"
	// ClipSoft scales g to g/(GELU(‖g‖/C − 1) + 1), a smooth clip whose
	// output norm is at most ≈1.11524·C (Guo et al. 2022 §6.2; GELU in its
	// tanh form, as jax.nn.gelu). It also amplifies small gradients by up to
	// 1/(GELU(−1)+1) ≈ 1.19. Its sensitivity is 1.115·C, so an accountant
	// must use σ/1.115: Result.MatchesAccountant is false.
	ClipSoft = "soft"
)

// DefaultChunkSize is the number of examples processed as one unit of work
// when DPSGD.ChunkSize is 0, for models without convolutions. For a CNN the
// default is the largest power of two from 8 to 256 whose im2col buffer
// (chunk × the largest per-example patch matrix) fits in 1 MiB, so that it
// stays in L2 between im2col and its GEMMs: 16 for TanhCNN on MNIST
// (BenchmarkDPSGD/cnn: 8 and 16 ran ≈ 40 % faster than 32 and 64, 128
// slower still).
const DefaultChunkSize = 256

// DPSGD configures a training run. One step, with batch B_t and parameters θ:
//
//	s   = Σ_{i∈B_t} clip_C(∇ℓ_i(θ)) + N(0, σ²C²·I)    (the "noisy sum")
//	g   = s/(q·N) + λ·θ                              (λ = WeightDecay)
//	v   = μ·v + g                                    (μ = Momentum; v₀ = 0)
//	θ  ← θ − η·v                                     (η = LearningRate)
//
// Dividing by the EXPECTED batch size q·N rather than |B_t| keeps the
// update a post-processing of s with a data-independent constant, which is
// what the Poisson-subsampled Gaussian analysis assumes; for fixed-size
// batches q·N = |B_t|. Momentum and weight decay follow PyTorch's SGD
// (dampening 0, decay applied to every parameter).
type DPSGD struct {
	// ClipNorm is C > 0. +Inf turns clipping off (hard clip only, σ = 0).
	ClipNorm float64
	// NoiseMultiplier is σ ≥ 0; the noise standard deviation is σ·C.
	NoiseMultiplier float64
	// SamplingRate is q ∈ (0, 1]; q = 1 is full-batch training.
	SamplingRate float64
	// Steps is the number of steps T.
	Steps int
	// LearningRate is η ≥ 0. With η = 0 the parameters never change.
	LearningRate float64
	// Momentum is μ ∈ [0, 1).
	Momentum float64
	// WeightDecay is λ ≥ 0.
	WeightDecay float64
	// Sampling is SamplePoisson (default), SampleShuffle, SampleFixedSize,
	// SampleBallsInBins or SampleCyclic.
	Sampling string
	// Groups is the number of groups SampleCyclic cycles through.
	Groups int
	// Correlated, when set, replaces the independent noise by
	// matrix-factorization noise (see CorrelatedNoise).
	Correlated *CorrelatedNoise
	// Clip is ClipHard (default) or ClipSoft.
	Clip string
	// ExpectedBatchSize overrides the normaliser q·N (N = len(Y), the
	// Target record not counted) when positive.
	ExpectedBatchSize float64
	// Threads is the number of goroutines one run uses (0 means 1). Results
	// are bit-identical for every value.
	Threads int
	// ChunkSize is the number of examples pushed through the model as one
	// unit of work (0 means the model's default, see DefaultChunkSize). It bounds memory for any
	// batch size and is the grain of parallelism. Changing it changes the
	// order of float32 sums, hence the last bits of the result; Threads
	// never does.
	ChunkSize int
}

func (c DPSGD) sampling() string {
	if c.Sampling == "" {
		return SamplePoisson
	}
	return c.Sampling
}

func (c DPSGD) clip() string {
	if c.Clip == "" {
		return ClipHard
	}
	return c.Clip
}

func (c DPSGD) threads() int { return max(c.Threads, 1) }

func (c DPSGD) chunkSize(m *Model) int {
	if c.ChunkSize <= 0 {
		return m.defaultChunk()
	}
	return c.ChunkSize
}

// clipping reports whether per-example norms are needed to clip.
func (c DPSGD) clipping() bool {
	return c.clip() == ClipSoft || !math.IsInf(c.ClipNorm, 1)
}

// Validate checks the configuration and says what is wrong and why.
func (c DPSGD) Validate() error {
	bad := func(field string, v any, why string) error {
		return fmt.Errorf("dpsgd: %s = %v: %s", field, v, why)
	}
	switch {
	case math.IsNaN(c.ClipNorm) || c.ClipNorm <= 0:
		return bad("ClipNorm", c.ClipNorm, "must be > 0 (+Inf turns clipping off)")
	case math.IsNaN(c.NoiseMultiplier) || math.IsInf(c.NoiseMultiplier, 0) || c.NoiseMultiplier < 0:
		return bad("NoiseMultiplier", c.NoiseMultiplier, "must be finite and ≥ 0")
	case c.NoiseMultiplier > 0 && math.IsInf(c.ClipNorm, 1):
		return bad("NoiseMultiplier", c.NoiseMultiplier, "noise σ·C is infinite without a finite ClipNorm")
	case !(c.SamplingRate > 0 && c.SamplingRate <= 1):
		return bad("SamplingRate", c.SamplingRate, "must be in (0, 1]")
	case c.Steps < 0:
		return bad("Steps", c.Steps, "must be ≥ 0")
	case math.IsNaN(c.LearningRate) || math.IsInf(c.LearningRate, 0) || c.LearningRate < 0:
		return bad("LearningRate", c.LearningRate, "must be finite and ≥ 0")
	case !(c.Momentum >= 0 && c.Momentum < 1):
		return bad("Momentum", c.Momentum, "must be in [0, 1)")
	case math.IsNaN(c.WeightDecay) || math.IsInf(c.WeightDecay, 0) || c.WeightDecay < 0:
		return bad("WeightDecay", c.WeightDecay, "must be finite and ≥ 0")
	case math.IsNaN(c.ExpectedBatchSize) || math.IsInf(c.ExpectedBatchSize, 0) || c.ExpectedBatchSize < 0:
		return bad("ExpectedBatchSize", c.ExpectedBatchSize, "must be finite and ≥ 0 (0 means q·N)")
	case c.Threads < 0:
		return bad("Threads", c.Threads, "must be ≥ 0")
	case c.ChunkSize < 0:
		return bad("ChunkSize", c.ChunkSize, "must be ≥ 0")
	}
	switch c.sampling() {
	case SamplePoisson, SampleShuffle, SampleFixedSize:
	case SampleCyclic:
		if c.Groups < 1 {
			return bad("Groups", c.Groups, "cyclic sampling needs at least one group")
		}
	case SampleBallsInBins:
		if k := math.Round(1 / c.SamplingRate); math.Abs(k*c.SamplingRate-1) > 1e-9 {
			return bad("SamplingRate", c.SamplingRate, "balls-in-bins sampling needs 1/q to be a whole number of steps per epoch")
		}
	default:
		return bad("Sampling", c.Sampling, `want "poisson", "shuffle", "fixed_size", "balls_in_bins" or "cyclic"`)
	}
	if c.Correlated != nil {
		if err := c.Correlated.Validate(c.Steps); err != nil {
			return err
		}
	}
	switch c.clip() {
	case ClipHard:
	case ClipSoft:
		if math.IsInf(c.ClipNorm, 1) {
			return bad("ClipNorm", c.ClipNorm, "soft clipping needs a finite clip norm")
		}
	default:
		return bad("Clip", c.Clip, `want "hard" or "soft"`)
	}
	return nil
}
