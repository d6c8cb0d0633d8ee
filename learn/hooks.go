package learn

// Record is one labelled example in the caller's layout (C×H×W for images).
type Record struct {
	X []float32
	Y int32
}

// Hooks let an observer or an adversary take part in training. The zero
// value (or a nil *Hooks) observes nothing and costs nothing: no callback,
// no copies, no per-example gradients.
type Hooks struct {
	// OnStep, if set, is called once per step after the noisy gradient is
	// formed and before the parameters are updated. The *Step and every
	// slice in it are reused by the next step: copy what must be kept.
	// Returning an error stops training with that error.
	OnStep func(s *Step) error
	// PerExample asks OnStep for the clipped per-example gradients of the
	// batch (Step.PerExample). Only then are dense-layer per-example
	// gradients materialised; training arithmetic is unchanged either way.
	PerExample bool
	// CleanSum asks OnStep for the noise-free clipped sum (Step.ClippedSum).
	CleanSum bool

	// Canary, if non-nil, is a fixed gradient (len NumParams, norm at most
	// the clip norm) added to the clipped sum with probability SamplingRate
	// at each step, independently, exactly as if it were the clipped
	// gradient of one more Poisson-sampled example — Nasr et al.'s gradient
	// canary. Step.CanaryIncluded reports the draw.
	Canary []float32
	// Dirac, if non-empty, are more gradient canaries for one-run audits:
	// canary j is DiracValue on parameter Dirac[j] and 0 elsewhere (norm
	// |DiracValue| ≤ the clip norm), added to the clipped sum at each
	// step with probability SamplingRate, independently of each other and
	// of the batch, like one more Poisson-sampled record each. The
	// indices must be distinct. Their draws come from their own stream,
	// so batch sampling is the same with or without them.
	Dirac      []int
	DiracValue float32
	// Target, if non-nil, is one more training record with index N = len(Y),
	// sampled like every other record (the "differing record" of an audit).
	// It does not change the normaliser (see DPSGD.ExpectedBatchSize), so
	// the worlds with and without it differ only by its clipped gradient.
	Target *Record
	// BeforeStep, if set, runs at the start of every step with the current
	// parameters (read-only). It may rewrite Target's features and label in
	// place — adaptive poisoning (Nasr et al. §IV-D). Returning an error
	// stops training with that error.
	BeforeStep func(step int, params []float32, target *Record) error
}

// Step is what OnStep observes at step Index (0-based). Slices are valid
// only during the call.
type Step struct {
	Index int
	// Params are the parameters before this step's update (θ_{t−1}).
	Params []float32
	// Batch holds the indices of the sampled records in increasing order
	// for Poisson sampling (index N is the Target record). It may be empty.
	Batch []int
	// CanaryIncluded reports whether the canary was added this step.
	CanaryIncluded bool
	// DiracIncluded[j] reports whether Dirac canary j (Hooks.Dirac[j]) was
	// added this step (nil without Dirac canaries).
	DiracIncluded []bool
	// DiracGroups[j] is Dirac canary j's group under cyclic sampling (it
	// takes part only in steps t ≡ DiracGroups[j] mod Groups); nil for
	// other samplers.
	DiracGroups []int
	// NoisySum is the privatised gradient SUM, not the average:
	//   Σ_{i∈Batch} clip_C(g_i) [+ canary] + N(0, σ²C²·I)
	// with g_i the gradient of example i's loss at Params. The update uses
	// NoisySum/Normalizer (plus weight decay and momentum).
	NoisySum []float32
	// Normalizer is the divisor of NoisySum: the expected batch size q·N.
	Normalizer float64
	// Norms are the unclipped per-example gradient norms ‖g_i‖ in Batch
	// order (nil if clipping is off and PerExample was not requested).
	Norms []float64
	// Losses are the per-example losses of the batch at Params.
	Losses []float64
	// ClippedSum is Σ clip_C(g_i), without canary and noise (CleanSum only).
	ClippedSum []float32
	// PerExample holds clip_C(g_i) for the batch, row-major
	// len(Batch)×NumParams (PerExample only).
	PerExample []float32
}
