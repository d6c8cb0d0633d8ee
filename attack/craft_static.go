package attack

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// Step rules for input-space optimisation.
const (
	// StepNormalized moves x by StepSize along the unit gradient: StepSize
	// is in input units, whatever the loss's scale.
	StepNormalized = "normalized"
	// StepGradient moves x by StepSize times the raw gradient (the
	// pseudo-code of Crafters 2 and 3 verbatim).
	StepGradient = "gradient"
)

// StaticPoison is Nasr et al.'s Crafter 2 (§IV-B, static input poisoning;
// note §3.2): train Shadows shadow models with the target's own DP-SGD
// configuration on shadow data that excludes the poison, start from a
// random shadow record (x, y), and run Steps steps of gradient ASCENT on
// x of the loss averaged over the shadow models, keeping y. The result is
// an input the models misfit unless they train on it, inserted into D′
// (add/remove adjacency). The paper does not give the shadow count, the
// steps or the step size (note §8, "Unspecified"): they are parameters.
//
// Shadows start from the trials' θ_0 (CraftInput.InitSeed) and differ by
// their DP-SGD randomness, stream (Seed, "attack/craft", kind, "shadow", i);
// the starting record comes from (…, "start"). Threat model: insert one
// record; the model must provide input gradients (logreg, mlp, cnn).
// Cost: Shadows × ShadowSteps DP-SGD steps plus Steps × Shadows input
// gradients of one record — about the cost of Shadows target trainings:
// 2.7 s (median of 5) with the defaults on the benchmarks' MNIST-shaped
// MLP 784-64-2, N = 1000, q = 0.01, T = 1000 (BenchmarkCraft).
type StaticPoison struct {
	// Shadows is the number of shadow models (0 means 4).
	Shadows int
	// ShadowSteps is each shadow run's length (0 means the target's T).
	ShadowSteps int
	// Steps is the number of ascent steps (0 means 100).
	Steps int
	// StepSize is s (0 means 0.1).
	StepSize float64
	// StepRule is StepNormalized (default) or StepGradient.
	StepRule string
	// FeatureMin and FeatureMax clamp the features after every step (e.g.
	// [0, 1] for pixels); equal values mean no clamp.
	FeatureMin, FeatureMax float64
	// ShadowData is SourcePool (default: the pool, records outside D) or
	// SourceTrain (the training set itself).
	ShadowData string
}

// Kind implements Crafter.
func (StaticPoison) Kind() string { return KindStaticPoison }

// Access implements Crafter.
func (StaticPoison) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (StaticPoison) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c StaticPoison) Validate() error {
	if c.Shadows < 0 || c.ShadowSteps < 0 || c.Steps < 0 || c.StepSize < 0 || math.IsNaN(c.StepSize) {
		return invalidf("%s: shadows, shadow_steps, steps and step_size must be ≥ 0", c.Kind())
	}
	if err := checkStepRule(c.Kind(), c.StepRule); err != nil {
		return err
	}
	if c.FeatureMin > c.FeatureMax {
		return invalidf("%s: feature_min %v > feature_max %v", c.Kind(), c.FeatureMin, c.FeatureMax)
	}
	return checkSource(c.Kind(), c.ShadowData)
}

func (c StaticPoison) withDefaults(steps int) StaticPoison {
	if c.Shadows == 0 {
		c.Shadows = 4
	}
	if c.ShadowSteps == 0 {
		c.ShadowSteps = steps
	}
	if c.Steps == 0 {
		c.Steps = 100
	}
	if c.StepSize == 0 {
		c.StepSize = 0.1
	}
	if c.StepRule == "" {
		c.StepRule = StepNormalized
	}
	if c.ShadowData == "" {
		c.ShadowData = SourcePool
	}
	return c
}

// Craft implements Crafter.
func (c StaticPoison) Craft(in CraftInput) (*Crafted, error) {
	rec, notes, err := c.poison(c.Kind(), in)
	if err != nil {
		return nil, err
	}
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	out.Target, out.Query = rec, rec
	out.Notes = notes
	return out, nil
}

// poison runs Crafter 2 and returns the crafted record.
func (c StaticPoison) poison(kind string, in CraftInput) (*Record, []string, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if err := checkInputGradients(kind, in.Arch); err != nil {
		return nil, nil, err
	}
	c = c.withDefaults(in.DPSGD.Steps)
	if err := in.validate(c.ShadowData == SourcePool); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", kind, err)
	}
	SX, SY := in.PoolX, in.PoolY
	if c.ShadowData == SourceTrain {
		SX, SY = in.X, in.Y
	}
	cfg := in.DPSGD
	cfg.Steps = c.ShadowSteps
	shadows := make([]*learn.Model, c.Shadows)
	// The shadows all train on SX, SY: prepare them once.
	data, err := learn.NewInputs(SX, SY, in.inputSize())
	if err != nil {
		return nil, nil, invalidf("%s: shadow data: %v", kind, err)
	}
	for i := range shadows {
		m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
		if err != nil {
			return nil, nil, invalidf("%s: model: %v", kind, err)
		}
		if _, err := learn.TrainInputs(m, data, cfg, rng.New(in.Seed, "attack/craft", kind, "shadow", i), nil); err != nil {
			return nil, nil, fmt.Errorf("%s: shadow model %d: %w", kind, i, err)
		}
		shadows[i] = m
	}
	D := in.inputSize()
	start := rng.New(in.Seed, "attack/craft", kind, "start").IntN(len(SY))
	rec := row(SX, SY, D, start)
	y := []int32{rec.Y}
	grad, dx := make([]float64, D), make([]float32, D)
	var loss [1]float64
	meanLoss := func() (float64, error) {
		clear(grad)
		var l float64
		for i, m := range shadows {
			if err := m.InputGradient(rec.X, y, dx, loss[:]); err != nil {
				return 0, fmt.Errorf("%s: shadow %d: %w", kind, i, err)
			}
			l += loss[0]
			for j, v := range dx {
				grad[j] += float64(v)
			}
		}
		n := float64(len(shadows))
		for j := range grad {
			grad[j] /= n
		}
		return l / n, nil
	}
	first, err := meanLoss()
	if err != nil {
		return nil, nil, err
	}
	last := first
	for s := 0; s < c.Steps; s++ {
		moveInput(rec.X, grad, c.StepSize, c.StepRule, +1, c.FeatureMin, c.FeatureMax)
		if last, err = meanLoss(); err != nil {
			return nil, nil, err
		}
	}
	notes := []string{
		fmt.Sprintf("%d shadow models × %d DP-SGD steps on the %s (%d records); start: record %d, label %d", c.Shadows, c.ShadowSteps, c.ShadowData, len(SY), start, rec.Y),
		fmt.Sprintf("mean shadow loss %.4g → %.4g after %d ascent steps of %g (%s)", first, last, c.Steps, c.StepSize, c.StepRule),
	}
	return rec, notes, nil
}

// moveInput takes one step on x along sign·grad (sign +1 ascends), by the
// rule, then clamps to [lo, hi] unless lo == hi. A zero gradient leaves x.
func moveInput(x Floats, grad []float64, size float64, rule string, sign float64, lo, hi float64) {
	scale := sign * size
	if rule != StepGradient {
		var n float64
		for _, g := range grad {
			n += g * g
		}
		if n == 0 {
			return
		}
		scale /= math.Sqrt(n)
	}
	for j, g := range grad {
		v := float64(x[j]) + scale*g
		if lo < hi {
			v = math.Min(hi, math.Max(lo, v))
		}
		x[j] = float32(v)
	}
}

func checkStepRule(kind, r string) error {
	switch r {
	case "", StepNormalized, StepGradient:
		return nil
	}
	return invalidf("%s: step_rule %q, want %q or %q", kind, r, StepNormalized, StepGradient)
}
