package attack

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
)

// Query sources of AdaptivePoison.
const (
	// QueryStaticPoison: the query is Crafter 2's poison (the paper).
	QueryStaticPoison = "static_poison"
	// QueryPool: the query is a random pool record.
	QueryPool = "pool"
)

// Methods of computing the adaptive poison's input gradient.
const (
	// MethodAuto uses the closed form for logistic regression on a flat
	// or single-channel input, finite differences otherwise.
	MethodAuto = "auto"
	// MethodClosedForm is the analytic double derivative of a logistic
	// regression (sigmoid or softmax head).
	MethodClosedForm = "closed_form"
	// MethodFiniteDifference computes the Hessian-vector products of the
	// double backpropagation by central differences of input gradients
	// along the parameter direction, for any model with input gradients.
	MethodFiniteDifference = "finite_difference"
)

// AdaptivePoison is Nasr et al.'s Crafter 3 (§IV-D, adaptive poisoning;
// note §3.4). A query record (x_q, y_q) is fixed at crafting and never
// inserted. In world 1, before every training step t, the trainer's
// current θ_t is shown to the adversary, who crafts a fresh poison (x, y_q)
// by InnerSteps steps of gradient DESCENT on
//
//	L(x) = ℓ(θ_t − η_v·clip_C(∇_θ ℓ(θ_t, x, y_q)), x_q, y_q),
//
// the query's loss after a virtual step on the poison (double
// backpropagation), so that training on the poison lowers the query's
// loss; the poison then takes the place of the differing record for step
// t. World 0 trains on D unchanged. The note fixes the paper's "+" (§3.4:
// the prose says minimise) and its y = 0⃗ (y_q here). The virtual step
// clips the poison's gradient like the trainer does unless
// IgnoreClipping (the pseudo-code's unclipped step, which rewards huge
// gradients the trainer would clip away).
//
// Threat model: rewrite the inserted record every step after seeing θ_t
// (intermediate models); use IntermediateLoss on the query. Cost at
// crafting: the query's (StaticPoison's shadow runs by default). Cost per
// world-1 trial: T × InnerSteps × (2 per-example gradients and 2–4 input
// gradients of one record, plus 3–5 parameter copies) — 4.8 ms per step
// (median of 5, wall clock) with the defaults on the benchmarks' MLP
// 784-64-2, an order of magnitude more than its training step
// (BenchmarkAdaptivePoisonStep).
type AdaptivePoison struct {
	// Query is QueryStaticPoison (default) or QueryPool.
	Query string
	// Static configures Crafter 2 when Query is QueryStaticPoison.
	Static StaticPoison
	// InnerSteps is the number of descent steps per training step (0
	// means 10).
	InnerSteps int
	// InputStepSize is s (0 means 0.1).
	InputStepSize float64
	// VirtualLR is η_v, the scale of the virtual step (0 means the
	// trainer's η/(q·N), the weight one record's clipped gradient gets in
	// a real update).
	VirtualLR float64
	// StepRule is StepNormalized (default) or StepGradient.
	StepRule string
	// WarmStart starts each step's descent from the previous poison
	// instead of from x = 0 (the pseudo-code's start).
	WarmStart bool
	// IgnoreClipping drops the clip from the virtual step.
	IgnoreClipping bool
	// Method is MethodAuto (default), MethodClosedForm or
	// MethodFiniteDifference.
	Method string
	// FeatureMin and FeatureMax clamp the poison's features; equal values
	// mean no clamp.
	FeatureMin, FeatureMax float64
}

// Kind implements Crafter.
func (AdaptivePoison) Kind() string { return KindAdaptivePoison }

// Access implements Crafter.
func (AdaptivePoison) Access() Access {
	return Access{ObserveIntermediateModels, InsertRecord | AdaptiveRecord}
}

// Products implements Crafter.
func (AdaptivePoison) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c AdaptivePoison) Validate() error {
	switch c.Query {
	case "", QueryStaticPoison, QueryPool:
	default:
		return invalidf("%s: query %q, want %q or %q", c.Kind(), c.Query, QueryStaticPoison, QueryPool)
	}
	if c.InnerSteps < 0 || c.InputStepSize < 0 || c.VirtualLR < 0 || math.IsNaN(c.InputStepSize) || math.IsNaN(c.VirtualLR) {
		return invalidf("%s: inner_steps, input_step_size and virtual_lr must be ≥ 0", c.Kind())
	}
	if err := checkStepRule(c.Kind(), c.StepRule); err != nil {
		return err
	}
	switch c.Method {
	case "", MethodAuto, MethodClosedForm, MethodFiniteDifference:
	default:
		return invalidf("%s: method %q, want %q, %q or %q", c.Kind(), c.Method, MethodAuto, MethodClosedForm, MethodFiniteDifference)
	}
	if c.FeatureMin > c.FeatureMax {
		return invalidf("%s: feature_min %v > feature_max %v", c.Kind(), c.FeatureMin, c.FeatureMax)
	}
	if c.Query == "" || c.Query == QueryStaticPoison {
		return c.Static.Validate()
	}
	return nil
}

// Craft implements Crafter.
func (c AdaptivePoison) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := checkInputGradients(c.Kind(), in.Arch); err != nil {
		return nil, err
	}
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	var query *Record
	if c.Query == QueryPool {
		o, rec, err := pickRecord(c.Kind(), SourcePool, in, c.Products())
		if err != nil {
			return nil, err
		}
		query, out.Notes = rec, o.Notes
	} else {
		rec, notes, err := c.Static.poison(c.Kind(), in)
		if err != nil {
			return nil, err
		}
		query, out.Notes = rec, notes
	}
	plan := &AdaptivePlan{
		InnerSteps: c.InnerSteps, InputStepSize: c.InputStepSize, VirtualLR: c.VirtualLR,
		Label: query.Y, Normalize: c.StepRule != StepGradient, WarmStart: c.WarmStart,
		ClipInVirtual: !c.IgnoreClipping, Method: c.Method,
		FeatureMin: c.FeatureMin, FeatureMax: c.FeatureMax,
	}
	if plan.InnerSteps == 0 {
		plan.InnerSteps = 10
	}
	if plan.InputStepSize == 0 {
		plan.InputStepSize = 0.1
	}
	if plan.Method == "" {
		plan.Method = MethodAuto
	}
	if plan.VirtualLR == 0 {
		if !(in.DPSGD.LearningRate > 0) || !(in.DPSGD.SamplingRate > 0) || len(in.Y) == 0 {
			return nil, invalidf("%s: the default virtual step η/(q·N) needs η > 0, q > 0 and data", c.Kind())
		}
		norm := in.DPSGD.SamplingRate * float64(len(in.Y))
		if in.DPSGD.ExpectedBatchSize > 0 {
			norm = in.DPSGD.ExpectedBatchSize
		}
		plan.VirtualLR = in.DPSGD.LearningRate / norm
	}
	m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
	if err != nil {
		return nil, invalidf("%s: model: %v", c.Kind(), err)
	}
	if err := checkAdaptive(plan, m); err != nil {
		return nil, err
	}
	out.Query = query
	out.Target = &Record{X: make(Floats, len(query.X)), Y: query.Y} // replaced before step 0
	out.Adaptive = plan
	rule := StepNormalized
	if !plan.Normalize {
		rule = StepGradient
	}
	out.Notes = append(out.Notes, fmt.Sprintf("adaptive poison: %d inner steps of %g (%s), virtual lr %.4g, method %s",
		plan.InnerSteps, plan.InputStepSize, rule, plan.VirtualLR, plan.Method))
	return out, nil
}

// checkAdaptive checks a plan against the model it will run on.
func checkAdaptive(p *AdaptivePlan, m *learn.Model) error {
	if p.Label < 0 || int(p.Label) >= m.Classes() {
		return invalidf("adaptive poison: label %d, model has %d classes", p.Label, m.Classes())
	}
	if err := checkInputGradients(KindAdaptivePoison, m.Arch()); err != nil {
		return err
	}
	switch p.Method {
	case MethodAuto, MethodFiniteDifference:
	case MethodClosedForm:
		if _, ok := logRegLayoutOf(m); !ok {
			return invalidf("adaptive poison: the closed form needs a logistic regression on a flat or single-channel input, got %s on %v", m.Arch(), m.InputShape())
		}
	default:
		return invalidf("adaptive poison: method %q", p.Method)
	}
	return nil
}
