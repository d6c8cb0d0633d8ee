package attack

import (
	"fmt"
	"math"
	"sort"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// Measures of GradientCanary: how "cumulative change" is measured in the
// reference run.
const (
	// MeasureCleanGradient sums |Σ_{i∈B_t} clip_C(g_i)[p]| over the
	// reference steps: the data's own (noise-free) clipped gradient mass
	// on coordinate p, "the smallest sum of gradient absolute values" of
	// the paper's prose. It is what interferes with the canary (Z_t in the
	// note, §3.5), and it is meaningful with learning rate 0.
	MeasureCleanGradient = "clean_gradient"
	// MeasureParamChange sums |θ_{t+1}[p] − θ_t[p]|, Crafter 4's line 1
	// verbatim. The DP noise is part of every update, so with σ > 0 this
	// ranks coordinates mostly by noise; with learning rate 0 it is
	// identically zero and rejected.
	MeasureParamChange = "param_change"
)

// GradientCanary is Nasr et al.'s Crafter 4 (§IV-E, the gradient attack;
// note §3.5): a malicious gradient on the 2n parameters that change least,
// with values +C/√(2n), −C/√(2n), … alternating, so its norm is exactly C
// and clipping leaves it unchanged. World 1 adds it to the clipped sum with
// probability q at every step, like a Poisson-sampled record
// (learn.Hooks.Canary); the data are the same in both worlds.
//
// "Least cumulative change" is measured in a reference run: DP-SGD with
// the trainer's own configuration on the training set, from the trials'
// θ_0 (CraftInput.InitSeed), for MeasureSteps steps, with the stream
// (Seed, "attack/craft", kind, "reference"). This is the paper's "observe
// the first t_o iterations", done once per audit point on the adversary's
// own run instead of inside every trial (the adversary knows D in the DP
// game), so the canary is a fixed, stored vector. Ties (e.g. many
// coordinates that never move) are broken by a seeded random order, so the
// canary is not piled on the first parameters.
//
// Threat model: insert a gradient (federated learning); the distinguisher
// needs intermediate models or gradients. Cost: one DP-SGD run of
// MeasureSteps steps plus a sort of the parameters (0.09 s, median of 5,
// on the benchmarks' MNIST-shaped MLP with 50,370 parameters;
// BenchmarkCraft).
type GradientCanary struct {
	// Coordinates is 2n, the number of canary coordinates: even, ≥ 2
	// (0 means 2: fewer coordinates meet less data gradient).
	Coordinates int
	// MeasureSteps is t_o, the reference run's length (0 means
	// min(T, 100)).
	MeasureSteps int
	// Measure is MeasureCleanGradient (default) or MeasureParamChange.
	Measure string
}

// Kind implements Crafter.
func (GradientCanary) Kind() string { return KindGradientCanary }

// Access implements Crafter.
func (GradientCanary) Access() Access { return Access{ObserveNothing, InsertGradient} }

// Products implements Crafter.
func (GradientCanary) Products() Products { return HasCanary }

// Validate implements Crafter.
func (c GradientCanary) Validate() error {
	if c.Coordinates < 0 || c.Coordinates%2 != 0 {
		return invalidf("%s: coordinates (2n) must be a positive even number, got %d", KindGradientCanary, c.Coordinates)
	}
	if c.MeasureSteps < 0 {
		return invalidf("%s: measure_steps must be ≥ 0, got %d", KindGradientCanary, c.MeasureSteps)
	}
	switch c.Measure {
	case "", MeasureCleanGradient, MeasureParamChange:
		return nil
	}
	return invalidf("%s: measure %q, want %q or %q", KindGradientCanary, c.Measure, MeasureCleanGradient, MeasureParamChange)
}

func (c GradientCanary) withDefaults(steps int) GradientCanary {
	if c.Coordinates == 0 {
		c.Coordinates = 2
	}
	if c.MeasureSteps == 0 {
		c.MeasureSteps = min(max(steps, 1), 100)
	}
	if c.Measure == "" {
		c.Measure = MeasureCleanGradient
	}
	return c
}

// Craft implements Crafter.
func (c GradientCanary) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := in.validate(false); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	canary, note, err := c.build(c.Kind(), in, in.X, in.Y, in.DPSGD)
	if err != nil {
		return nil, err
	}
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	out.Canary = canary
	out.Notes = append(out.Notes, note)
	return out, nil
}

// build runs the reference run on (X, Y) with cfg and makes the canary.
func (c GradientCanary) build(kind string, in CraftInput, X []float32, Y []int32, cfg learn.DPSGD) (*Canary, string, error) {
	c = c.withDefaults(cfg.Steps)
	if c.Measure == MeasureParamChange && cfg.LearningRate == 0 {
		return nil, "", invalidf("%s: measure param_change is identically zero with learning rate 0; use clean_gradient", kind)
	}
	if !(cfg.ClipNorm > 0) || math.IsInf(cfg.ClipNorm, 0) {
		return nil, "", invalidf("%s: a canary of norm C needs a finite clip norm, got %v", kind, cfg.ClipNorm)
	}
	m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
	if err != nil {
		return nil, "", invalidf("%s: model: %v", kind, err)
	}
	P := m.NumParams()
	if c.Coordinates > P {
		return nil, "", invalidf("%s: %d coordinates requested, the model has %d parameters", kind, c.Coordinates, P)
	}
	M, err := c.measure(kind, m, in, X, Y, cfg)
	if err != nil {
		return nil, "", err
	}
	coords := leastCoordinates(M, c.Coordinates, rng.New(in.Seed, "attack/craft", kind, "ties"))
	canary := &Canary{NumParams: P, Coords: coords, Signs: make([]int8, len(coords)),
		Value: canaryValue(cfg.ClipNorm, len(coords)), ClipNorm: cfg.ClipNorm, Measure: make([]float64, len(coords))}
	for i, p := range coords {
		canary.Signs[i] = int8(1 - 2*(i%2)) // +, −, +, … (Crafter 4, lines 4–8)
		canary.Measure[i] = M[p]
	}
	var total float64
	for _, v := range M {
		total += v
	}
	note := fmt.Sprintf("reference run: %d steps, measure %s; chosen coordinates carry %.3g of %.3g total (mean per coordinate %.3g)",
		c.MeasureSteps, c.Measure, sum(canary.Measure), total, total/float64(P))
	return canary, note, nil
}

// measure runs the reference run and returns the per-coordinate statistic.
func (c GradientCanary) measure(kind string, m *learn.Model, in CraftInput, X []float32, Y []int32, cfg learn.DPSGD) ([]float64, error) {
	P := m.NumParams()
	M := make([]float64, P)
	cfg.Steps = c.MeasureSteps
	h := &learn.Hooks{}
	var prev []float32 // θ_{t−1} for MeasureParamChange
	switch c.Measure {
	case MeasureCleanGradient:
		h.CleanSum = true
		h.OnStep = func(s *learn.Step) error {
			for p, v := range s.ClippedSum {
				M[p] += math.Abs(float64(v))
			}
			return nil
		}
	case MeasureParamChange:
		prev = make([]float32, P)
		h.OnStep = func(s *learn.Step) error {
			if s.Index > 0 {
				for p, v := range s.Params {
					M[p] += math.Abs(float64(v - prev[p]))
				}
			}
			copy(prev, s.Params)
			return nil
		}
	}
	r := rng.New(in.Seed, "attack/craft", kind, "reference")
	if _, err := learn.Train(m, X, Y, cfg, r, h); err != nil {
		return nil, fmt.Errorf("%s: reference run: %w", kind, err)
	}
	if prev != nil { // the last update, θ_T − θ_{T−1}
		for p, v := range m.Params() {
			M[p] += math.Abs(float64(v - prev[p]))
		}
	}
	return M, nil
}

// leastCoordinates returns the k coordinates with the smallest M, in
// ascending order of M, ties broken by a random order from r.
func leastCoordinates(M []float64, k int, r interface{ Perm(int) []int }) []int {
	idx := r.Perm(len(M))
	sort.SliceStable(idx, func(a, b int) bool { return M[idx[a]] < M[idx[b]] })
	return append([]int(nil), idx[:k]...)
}

// canaryValue returns C/√(2n) in float32, rounded down if needed so that
// the norm √(2n·v²), computed in float64 from the float32 value, is at
// most C: then clip_C leaves the canary bit-for-bit unchanged.
func canaryValue(C float64, k int) float32 {
	v := float32(C / math.Sqrt(float64(k)))
	for float64(k)*float64(v)*float64(v) > C*C {
		v = math.Nextafter32(v, 0)
	}
	return v
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
