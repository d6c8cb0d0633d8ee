package attack

// Distinguisher kinds (spec names).
const (
	KindLossThreshold    = "loss_threshold"
	KindIntermediateLoss = "intermediate_loss"
	KindWatermark        = "watermark"
)

// A Distinguisher is the second half of an adversary (Nasr et al. 2021,
// §III-B): from what the trainer releases under its threat model it
// computes scores, and a guess is a threshold on a score (package audit
// chooses the threshold). It declares the access it needs; the trial
// runner hands it exactly that and nothing more:
//
//   - ObserveBlackBox: Finish receives a LossOracle on the final model and
//     ObserveStep is never called. The oracle's dynamic type has no
//     method that reveals parameters or gradients.
//   - ObserveFinalModel: Finish receives a ModelView of θ_T.
//   - ObserveIntermediateModels: ObserveStep receives a StepView of every
//     θ_t (t = 0…T−1, before step t's update), Finish a ModelView of θ_T.
//   - ObserveGradients: ObserveStep receives a GradientStepView, which adds
//     the privatised gradient sum s_t of step t.
//
// Nothing ever exposes the world bit, the batch, or whether the canary or
// the target was sampled.
type Distinguisher interface {
	// Kind is the spec name, e.g. "watermark".
	Kind() string
	// Access is the observation the distinguisher needs (Modify is empty).
	Access() Access
	// Accepts returns an ErrInvalid error when the crafted products do not
	// give it what it works on.
	Accepts(p Products) error
	// Validate checks the parameters.
	Validate() error
	// ScoreNames names the scores of a trial, primary first; they become
	// columns of the trial table.
	ScoreNames() []string
	// LowerMeansWorld1 says a low score suggests world 1 (a loss), for
	// audit.Options.LowerMeansWorld1.
	LowerMeansWorld1() bool
	// NewScorer prepares one trial's scoring state.
	NewScorer(info TrialInfo) (Scorer, error)
}

// Scorer is one trial's scoring state. It is used by one goroutine.
type Scorer interface {
	// ObserveStep is called once per step before the update, only for
	// distinguishers with intermediate-model or gradient access. The view
	// is valid only during the call.
	ObserveStep(v StepView) error
	// Finish receives the final release and returns the scores in
	// ScoreNames order.
	Finish(final LossOracle) ([]float64, error)
}

// TrialInfo is what every distinguisher may know about a trial: the
// crafted worlds and the public hyperparameters. NoiseMultiplier is the
// CLAIMED σ, which differs from the σ training used when a game tests an
// implementation that under-noises (GameConfig.ClaimedNoiseMultiplier).
// Crafted is shared by concurrent trials: read it, never write it.
type TrialInfo struct {
	Crafted         *Crafted
	NoiseMultiplier float64
	ClipNorm        float64
	SamplingRate    float64
	LearningRate    float64
	Momentum        float64
	WeightDecay     float64
	Steps           int
	// Normalizer is the divisor of the noisy sum in the update, q·N
	// (or DPSGD.ExpectedBatchSize).
	Normalizer float64
}

// LossOracle is black-box access to a model: the cross-entropy loss
// (natural log) of a record the adversary chooses.
type LossOracle interface {
	Loss(x []float32, y int32) (float64, error)
}

// ModelView is white-box access to one parameter vector.
type ModelView interface {
	LossOracle
	NumParams() int
	// CopyParams copies θ into dst (len NumParams).
	CopyParams(dst []float32) error
	// ParamsDot returns Σ_i w[i]·θ[idx[i]], for sparse projections
	// (NaN for an index out of range).
	ParamsDot(idx []int, w []float64) float64
}

// StepView is intermediate-model access at step t: θ_t, the parameters
// before step t's update.
type StepView interface {
	ModelView
	Step() int
}

// GradientStepView adds the privatised gradient sum of step t,
// s_t = Σ_{i∈B_t} clip_C(g_i) [+ canary] + N(0, σ²C²·I), a SUM (the update
// divides it by TrialInfo.Normalizer).
type GradientStepView interface {
	StepView
	// NoisySumDot returns Σ_i w[i]·s_t[idx[i]] (NaN for an index out of
	// range).
	NoisySumDot(idx []int, w []float64) float64
	// CopyNoisySum copies s_t into dst (len NumParams).
	CopyNoisySum(dst []float32) error
}
