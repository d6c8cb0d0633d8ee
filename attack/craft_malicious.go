package attack

import (
	"fmt"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// Sources of MaliciousDataset's inputs.
const (
	// InputsUniform draws every feature uniformly from [Low, High].
	InputsUniform = "uniform"
	// InputsPool draws Size records' features from the pool (without
	// replacement; their labels are discarded).
	InputsPool = "pool"
)

// MaliciousDataset is Nasr et al.'s Crafter 5 (§IV-F, the strongest
// adversary; note §3.6): choose n inputs, label each with the initial
// model's own prediction, D_label = argmax f_0(D_data), so the data fit θ_0
// and their gradients are small; set the learning rate to 0 so θ_t = θ_0
// for every t and those gradients never grow; then run Crafter 4 on that
// dataset (GradientCanary, with the coordinates of least clean-gradient
// mass at θ_0). So that this mass is exactly zero, as the paper's "DP
// noise alone" needs, Coordinates input features (seeded) are set to 0 in
// every input before labelling: a first-layer weight w_{h,j} has the
// per-example gradient δ_h·x_j, so the weights of those features have no
// data gradient at all, clipped or not, and the reference run picks the
// canary among them (ties are broken at random). What is left to
// distinguish the worlds is then the DP noise alone, so with the watermark
// LLR on the privatised sums this audits the Poisson-subsampled Gaussian
// mechanism composed T times. For a model whose first layer is not dense
// (a CNN), zeroed pixels do not silence any weight; the residual data
// gradient on the canary's coordinates (Canary.Measure, summed over the
// reference run) is reported by the audit as canary_residual.
//
// The trials must start from the θ_0 the labels came from
// (Crafted.InitSeed; GameConfig.RandomInit is rejected) and the
// distinguisher must read gradients (θ_t never moves). Threat model:
// insert a gradient, choose the dataset and the hyperparameters. Cost:
// one forward pass over the n inputs and Crafter 4's reference run.
type MaliciousDataset struct {
	// Size is n (0 means the size of the caller's training set).
	Size int
	// Inputs is InputsUniform (default) or InputsPool.
	Inputs string
	// Low and High bound uniform features (both 0 means [0, 1]).
	Low, High float64
	// Canary configures Crafter 4 on the malicious dataset (its Measure
	// must be clean_gradient: with learning rate 0 parameters never
	// change).
	Canary GradientCanary
}

// Kind implements Crafter.
func (MaliciousDataset) Kind() string { return KindMaliciousDataset }

// Access implements Crafter.
func (MaliciousDataset) Access() Access {
	return Access{ObserveNothing, InsertGradient | ChooseDataset | ChooseHyperparameters}
}

// Products implements Crafter.
func (MaliciousDataset) Products() Products { return HasCanary | FreezesModel }

// Validate implements Crafter.
func (c MaliciousDataset) Validate() error {
	if c.Size < 0 {
		return invalidf("%s: size must be ≥ 0, got %d", c.Kind(), c.Size)
	}
	switch c.Inputs {
	case "", InputsUniform, InputsPool:
	default:
		return invalidf("%s: inputs %q, want %q or %q", c.Kind(), c.Inputs, InputsUniform, InputsPool)
	}
	if c.Low > c.High || (c.Low == c.High && c.Low != 0) {
		return invalidf("%s: need low < high, got [%v, %v]", c.Kind(), c.Low, c.High)
	}
	if c.Canary.Measure == MeasureParamChange {
		return invalidf("%s: canary measure param_change is identically zero with learning rate 0; use clean_gradient", c.Kind())
	}
	return c.Canary.Validate()
}

// Craft implements Crafter.
func (c MaliciousDataset) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := in.validate(c.Inputs == InputsPool); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	n := c.Size
	if n == 0 {
		n = len(in.Y)
	}
	if n == 0 {
		return nil, invalidf("%s: size 0 and an empty training set", c.Kind())
	}
	lo, hi := c.Low, c.High
	if lo == 0 && hi == 0 {
		hi = 1
	}
	D := in.inputSize()
	r := rng.New(in.Seed, "attack/craft", c.Kind(), "inputs")
	X := make(Floats, n*D)
	switch c.Inputs {
	case InputsPool:
		if n > len(in.PoolY) {
			return nil, invalidf("%s: %d inputs requested from a pool of %d", c.Kind(), n, len(in.PoolY))
		}
		for i, k := range r.Perm(len(in.PoolY))[:n] {
			copy(X[i*D:(i+1)*D], in.PoolX[k*D:(k+1)*D])
		}
	default:
		for i := range X {
			X[i] = float32(lo + (hi-lo)*r.Float64())
		}
	}
	// Silence the canary's future coordinates: zero k features everywhere.
	k := max(c.Canary.withDefaults(in.DPSGD.Steps).Coordinates, 1)
	zeroed := r.Perm(D)[:min(k, D)]
	for i := range n {
		for _, j := range zeroed {
			X[i*D+j] = 0
		}
	}
	f0, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
	if err != nil {
		return nil, invalidf("%s: model: %v", c.Kind(), err)
	}
	Y := make([]int32, n)
	if err := f0.Predict(X, Y); err != nil { // D_label ← f_0(D_data)
		return nil, fmt.Errorf("%s: labelling with θ_0: %w", c.Kind(), err)
	}
	cfg := in.DPSGD
	cfg.LearningRate = 0
	canary, note, err := c.Canary.build(c.Kind(), in, X, Y, cfg)
	if err != nil {
		return nil, err
	}
	zero := 0.0
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	out.Dataset = &Dataset{X: X, Y: Y}
	out.Canary = canary
	out.LearningRate = &zero
	counts := make([]int, in.Classes)
	for _, y := range Y {
		counts[y]++
	}
	out.Notes = append(out.Notes, fmt.Sprintf("%d inputs (%s, %d features set to 0), labelled by θ_0: class counts %v; learning rate 0; residual data gradient on the canary's coordinates %.3g",
		n, c.inputs(), len(zeroed), counts, sum(canary.Measure)), note)
	return out, nil
}

func (c MaliciousDataset) inputs() string {
	if c.Inputs == "" {
		return InputsUniform
	}
	return c.Inputs
}
