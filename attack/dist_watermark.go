package attack

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Forms of the Watermark score.
const (
	// FormLLR is the Neyman–Pearson log-likelihood ratio of the note
	// (§3.5): Σ_t log(1 − q + q·exp((2y_t/C − 1)/(2σ²))).
	FormLLR = "llr"
	// FormWatermark is Distinguisher 3's p_watermark = Π_t p(d_t | watermark)
	// in log form with the note's fixes to Eq. 6 (§3.5: mean C, variance
	// σ²C² for the projected step), the normaliser dropped as a constant:
	// Σ_t −(y_t/C − 1)²/(2σ²). Cruder than the LLR: it ignores q.
	FormWatermark = "watermark"
	// FormProjection is the plain projection Σ_t y_t/C.
	FormProjection = "projection"
)

// Watermark is Nasr et al.'s Distinguisher 3 (watermark detection, §IV-E/F)
// for a gradient canary g (‖g‖ = C, unit direction u = g/C). Its
// observation at step t is the projection of the privatised gradient sum
// on the canary direction,
//
//	y_t = ⟨s_t, u⟩ = ⟨s_t, g⟩/C,
//
// which is N(Z_t, σ²C²) in world 0 and (1−q)·N(Z_t, σ²C²) + q·N(Z_t + C,
// σ²C²) in world 1, where Z_t is the clean data gradient's projection,
// assumed 0 on the least-used coordinates the crafter chose. With
// gradient access s_t is read directly (Step.NoisySum is a sum, not an
// average). With intermediate-model access it is recovered from the
// parameter differences by inverting the public update
// θ_{t+1} = θ_t − η·v_t, v_t = μ·v_{t−1} + s_t/N + λ·θ_t (the paper's
// distinguisher reads the weights; it needs η > 0).
//
// All three forms are returned (FormLLR, FormWatermark, FormProjection;
// Form picks the primary); they are the same statistics, in the same
// units, as IdealScores' LLR, Watermark and Projection, so a real run and
// the ideal simulator can be compared score for score. High scores suggest world 1. σ is the CLAIMED noise
// multiplier (TrialInfo), so an implementation that adds less noise than
// it claims is detected. Cost: one sparse dot product over the canary's
// coordinates per step.
type Watermark struct {
	// Form is FormLLR (default), FormWatermark or FormProjection.
	Form string
	// Observe is ObserveGradients (default; the zero value means it) or
	// ObserveIntermediateModels.
	Observe Observation
	// SkipSteps ignores steps t < SkipSteps (the paper spends its first
	// t_o steps measuring; here the crafter measures in its own
	// reference run, so 0 is the default).
	SkipSteps int
}

// Kind implements Distinguisher.
func (Watermark) Kind() string { return KindWatermark }

func (d Watermark) observe() Observation {
	if d.Observe == ObserveNothing {
		return ObserveGradients
	}
	return d.Observe
}

// Access implements Distinguisher.
func (d Watermark) Access() Access { return Access{Observe: d.observe()} }

// Accepts implements Distinguisher: it needs a canary, and reading the
// weights needs weights that move.
func (d Watermark) Accepts(p Products) error {
	if p&HasCanary == 0 {
		return invalidf("%s detects a gradient canary, and the crafter provides none (it provides %s)", d.Kind(), p)
	}
	if p&FreezesModel != 0 && d.observe() != ObserveGradients {
		return invalidf("%s from intermediate models sees nothing when the learning rate is 0 (θ_t = θ_0); observe gradients instead", d.Kind())
	}
	return nil
}

// Validate implements Distinguisher.
func (d Watermark) Validate() error {
	switch d.Form {
	case "", FormLLR, FormWatermark, FormProjection:
	default:
		return invalidf("%s: form %q, want %q, %q or %q", d.Kind(), d.Form, FormLLR, FormWatermark, FormProjection)
	}
	if o := d.observe(); o != ObserveGradients && o != ObserveIntermediateModels {
		return invalidf("%s: observe %s, want gradients or intermediate_models", d.Kind(), o)
	}
	if d.SkipSteps < 0 {
		return invalidf("%s: skip_steps must be ≥ 0, got %d", d.Kind(), d.SkipSteps)
	}
	return nil
}

// ScoreNames implements Distinguisher.
func (d Watermark) ScoreNames() []string {
	switch d.Form {
	case FormWatermark:
		return []string{"watermark", "llr", "projection"}
	case FormProjection:
		return []string{"projection", "llr", "watermark"}
	}
	return []string{"llr", "watermark", "projection"}
}

// LowerMeansWorld1 implements Distinguisher.
func (Watermark) LowerMeansWorld1() bool { return false }

// NewScorer implements Distinguisher.
func (d Watermark) NewScorer(info TrialInfo) (Scorer, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	c := info.Crafted
	if c == nil || c.Canary == nil {
		return nil, invalidf("%s: the crafted result has no canary", d.Kind())
	}
	sigma, C, q := info.NoiseMultiplier, c.Canary.ClipNorm, info.SamplingRate
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, invalidf("%s: the likelihoods need a positive finite noise multiplier, got %v", d.Kind(), sigma)
	}
	if !(q > 0 && q <= 1) {
		return nil, invalidf("%s: sampling rate %v outside (0, 1]", d.Kind(), q)
	}
	s := &watermarkScorer{
		d: d, coords: c.Canary.Coords, w: c.Canary.unitWeights(),
		stats: newWatermarkStats(sigma, C, q),
	}
	if d.observe() == ObserveIntermediateModels {
		if !(info.LearningRate > 0) {
			return nil, invalidf("%s: reading the canary from parameter differences needs a learning rate > 0, got %v", d.Kind(), info.LearningRate)
		}
		s.fromModels = true
		s.eta, s.mu, s.lambda, s.norm = info.LearningRate, info.Momentum, info.WeightDecay, info.Normalizer
		s.proj = make([]float64, 0, info.Steps+1)
	}
	return s, nil
}

// watermarkStats accumulates the three scores from observations y_t.
type watermarkStats struct {
	C                          float64
	log1mQ, logQ               float64
	inv2Sigma2                 float64
	llr, watermark, projection float64
}

func newWatermarkStats(sigma, C, q float64) watermarkStats {
	return watermarkStats{C: C, log1mQ: math.Log1p(-q), logQ: math.Log(q), inv2Sigma2: 1 / (2 * sigma * sigma)}
}

// add takes one observation y_t (in the units of the sum: the canary
// contributes C).
func (w *watermarkStats) add(y float64) {
	u := y / w.C // in units of C, as the note and IdealMechanism write it
	w.llr += numeric.LogAddExp(w.log1mQ, w.logQ+(2*u-1)*w.inv2Sigma2)
	d := u - 1
	w.watermark -= d * d * w.inv2Sigma2
	w.projection += u
}

type watermarkScorer struct {
	d      Watermark
	coords []int
	w      []float64
	stats  watermarkStats

	fromModels            bool
	eta, mu, lambda, norm float64
	proj                  []float64 // ⟨θ_t, u⟩ for t = 0, 1, …
}

func (s *watermarkScorer) ObserveStep(v StepView) error {
	if s.fromModels {
		s.proj = append(s.proj, v.ParamsDot(s.coords, s.w))
		return nil
	}
	gv, ok := v.(GradientStepView)
	if !ok {
		return invalidf("%s: needs the privatised gradients, and the release has none", s.d.Kind())
	}
	if v.Step() >= s.d.SkipSteps {
		s.stats.add(gv.NoisySumDot(s.coords, s.w))
	}
	return nil
}

func (s *watermarkScorer) Finish(final LossOracle) ([]float64, error) {
	if s.fromModels {
		mv, ok := final.(ModelView)
		if !ok {
			return nil, invalidf("%s: needs the final parameters, and the release has none", s.d.Kind())
		}
		s.proj = append(s.proj, mv.ParamsDot(s.coords, s.w))
		// Invert θ_{t+1} = θ_t − η·v_t with v_t = μ·v_{t−1} + s_t/N + λθ_t,
		// projected on u.
		prevV := 0.0
		for t := 0; t+1 < len(s.proj); t++ {
			v := (s.proj[t] - s.proj[t+1]) / s.eta
			g := v - s.mu*prevV
			prevV = v
			if t >= s.d.SkipSteps {
				s.stats.add(s.norm * (g - s.lambda*s.proj[t]))
			}
		}
	}
	return s.stats.scores(s.d.Form), nil
}

// scores are the three statistics, form's first (ScoreNames' order).
func (st *watermarkStats) scores(form string) []float64 {
	switch form {
	case FormWatermark:
		return []float64{st.watermark, st.llr, st.projection}
	case FormProjection:
		return []float64{st.projection, st.llr, st.watermark}
	}
	return []float64{st.llr, st.watermark, st.projection}
}

// ScoreSteps is the scores of observations y_t already projected on the
// canary direction (in the units of the sum: the canary adds C), as a
// trainer outside dpaudit reports them: the same statistics, in the same
// order, as the scorer's. sigma is the claimed noise multiplier, q the
// sampling rate.
func (d Watermark) ScoreSteps(ys []float64, sigma, C, q float64) ([]float64, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) || !(C > 0) || math.IsInf(C, 0) || !(q > 0 && q <= 1) {
		return nil, invalidf("%s: the likelihoods need σ > 0, C > 0 and q in (0, 1], got %v, %v, %v", d.Kind(), sigma, C, q)
	}
	st := newWatermarkStats(sigma, C, q)
	for t, y := range ys {
		if t >= d.SkipSteps {
			st.add(y)
		}
	}
	return st.scores(d.Form), nil
}
