package attack

import (
	"testing"
)

// spy is a distinguisher with a chosen access level that records what the
// trial runner hands it.
type spy struct {
	access Observation
	steps  int
	views  []StepView // the first view (kept only for type checks)
	final  LossOracle
}

func (s *spy) Kind() string                        { return "spy" }
func (s *spy) Access() Access                      { return Access{Observe: s.access} }
func (s *spy) Accepts(Products) error              { return nil }
func (s *spy) Validate() error                     { return nil }
func (s *spy) ScoreNames() []string                { return []string{"zero"} }
func (s *spy) LowerMeansWorld1() bool              { return false }
func (s *spy) NewScorer(TrialInfo) (Scorer, error) { return s, nil }
func (s *spy) ObserveStep(v StepView) error {
	if s.steps == 0 {
		s.views = append(s.views, v)
	}
	s.steps++
	return nil
}
func (s *spy) Finish(final LossOracle) ([]float64, error) {
	s.final = final
	return []float64{0}, nil
}

// Methods that would leak more than black-box access.
type (
	paramsGetter interface{ Params() []float32 }
	paramsCopier interface{ CopyParams([]float32) error }
	sumReader    interface {
		NoisySumDot([]int, []float64) float64
	}
	modelGetter interface{ Model() any }
)

// TestThreatModelIsEnforced: each access level receives exactly its
// release. A black-box distinguisher is never called
// per step and its final release offers loss queries only: no parameters,
// no gradients. An intermediate-model distinguisher sees every step's
// parameters but no noisy sum; a gradient distinguisher sees both.
func TestThreatModelIsEnforced(t *testing.T) {
	in := canaryInput(1)
	cr, err := GradientCanary{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	cr.Products |= HasQuery // let the spy pair with anything
	cr.Query = &Record{X: make(Floats, 10), Y: 0}
	run := func(obs Observation) *spy {
		s := &spy{access: obs}
		g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
			X: in.X, Y: in.Y, Crafted: cr, Distinguisher: s, Threat: Access{ObserveGradients, InsertGradient}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.RunTrialIndex(1, "p", 1); err != nil {
			t.Fatal(err)
		}
		return s
	}

	bb := run(ObserveBlackBox)
	if bb.steps != 0 {
		t.Errorf("black box: observed %d steps, want none", bb.steps)
	}
	if _, err := bb.final.Loss(make([]float32, 10), 1); err != nil {
		t.Errorf("black box: loss query failed: %v", err)
	}
	for name, ok := range map[string]bool{
		"ModelView":        is[ModelView](bb.final),
		"StepView":         is[StepView](bb.final),
		"GradientStepView": is[GradientStepView](bb.final),
		"Params()":         is[paramsGetter](bb.final),
		"CopyParams()":     is[paramsCopier](bb.final),
		"NoisySumDot()":    is[sumReader](bb.final),
		"Model()":          is[modelGetter](bb.final),
	} {
		if ok {
			t.Errorf("black box: the final release offers %s", name)
		}
	}

	fm := run(ObserveFinalModel)
	if fm.steps != 0 || !is[ModelView](fm.final) || is[StepView](fm.final) {
		t.Errorf("final model: %d steps, ModelView %v, StepView %v; want 0, true, false", fm.steps, is[ModelView](fm.final), is[StepView](fm.final))
	}

	im := run(ObserveIntermediateModels)
	if im.steps != in.DPSGD.Steps {
		t.Errorf("intermediate models: observed %d steps, want %d", im.steps, in.DPSGD.Steps)
	}
	if v := im.views[0]; is[GradientStepView](v) || is[sumReader](v) {
		t.Error("intermediate models: the step view offers the noisy sum")
	}
	if !is[ModelView](im.final) {
		t.Error("intermediate models: the final release has no parameters")
	}

	gr := run(ObserveGradients)
	if gr.steps != in.DPSGD.Steps || !is[GradientStepView](gr.views[0]) {
		t.Errorf("gradients: %d steps, GradientStepView %v; want %d, true", gr.steps, is[GradientStepView](gr.views[0]), in.DPSGD.Steps)
	}
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

// TestCheckPair: the six adversaries of Table I pass under their threat
// models; pairs needing more access than granted, or that cannot work on
// what the crafter makes, are ErrInvalid errors.
func TestCheckPair(t *testing.T) {
	ok := []struct {
		threat string
		c      Crafter
		d      Distinguisher
	}{
		{"api_access", RandomRecord{}, LossThreshold{}},
		{"static_poison", StaticPoison{}, LossThreshold{}},
		{"intermediate_poison", StaticPoison{}, IntermediateLoss{}},
		{"adaptive_poison", AdaptivePoison{}, IntermediateLoss{Reduce: ReduceMean}},
		{"gradient", GradientCanary{}, Watermark{}},
		{"gradient", GradientCanary{}, Watermark{Observe: ObserveIntermediateModels}},
		{"malicious_dataset", MaliciousDataset{}, Watermark{}},
		{"api_access", MislabeledRecord{}, LossThreshold{}},
		{"api_access", ConstantInput{}, LossThreshold{}},
		{"api_access", NoiseInput{Low: 0, High: 1}, LossThreshold{}},
	}
	for _, p := range ok {
		if err := CheckPair(p.c, p.d, ThreatModels[p.threat]); err != nil {
			t.Errorf("%s: %s + %s: %v", p.threat, p.c.Kind(), p.d.Kind(), err)
		}
	}
	bad := []struct {
		why    string
		threat Access
		c      Crafter
		d      Distinguisher
	}{
		{"intermediate models under API access", ThreatModels["api_access"], RandomRecord{}, IntermediateLoss{}},
		{"gradient insertion under intermediate poison", ThreatModels["intermediate_poison"], GradientCanary{}, Watermark{Observe: ObserveIntermediateModels}},
		{"adaptive record under static poison", ThreatModels["static_poison"], AdaptivePoison{}, LossThreshold{}},
		{"choosing the dataset under the gradient attack", ThreatModels["gradient"], MaliciousDataset{}, Watermark{}},
		{"no query record for a loss", ThreatModels["gradient"], GradientCanary{}, LossThreshold{}},
		{"no canary for the watermark", ThreatModels["gradient"], RandomRecord{}, Watermark{}},
		{"weights read on a frozen model", ThreatModels["malicious_dataset"], MaliciousDataset{}, Watermark{Observe: ObserveIntermediateModels}},
		{"nothing granted", Access{}, RandomRecord{}, LossThreshold{}},
	}
	for _, b := range bad {
		if err := CheckPair(b.c, b.d, b.threat); !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", b.why, err)
		}
	}
}

// TestNewGameChecksThreat: NewGame re-checks the stored crafted result's
// access (it may come from disk) against the game's threat model.
func TestNewGameChecksThreat(t *testing.T) {
	in := canaryInput(1)
	cr, err := GradientCanary{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	base := GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD, X: in.X, Y: in.Y, Crafted: cr, Distinguisher: Watermark{}}
	for name, threat := range map[string]Access{
		"undeclared":          {},
		"intermediate_poison": ThreatModels["intermediate_poison"],
		"no gradients":        {ObserveIntermediateModels, InsertGradient},
	} {
		cfg := base
		cfg.Threat = threat
		if _, err := NewGame(cfg); !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestParseAccessNames(t *testing.T) {
	for o := ObserveNothing; o <= ObserveGradients; o++ {
		got, err := ParseObservation(o.String())
		if err != nil || got != o {
			t.Errorf("%v: parsed %v, %v", o, got, err)
		}
	}
	c, err := ParseCapabilities([]string{"insert_gradient", "choose_dataset"})
	if err != nil || c != InsertGradient|ChooseDataset || c.String() != "insert_gradient+choose_dataset" {
		t.Errorf("capabilities: %v (%s), %v", c, c, err)
	}
	if _, err := ParseObservation("root"); !isInvalid(err) {
		t.Errorf("unknown observation: err = %v", err)
	}
	if _, err := ParseCapabilities([]string{"bribe"}); !isInvalid(err) {
		t.Errorf("unknown capability: err = %v", err)
	}
}

func TestRegistry(t *testing.T) {
	for _, k := range CrafterKinds() {
		c, err := NewCrafter(k)
		if err != nil || c.Kind() != k {
			t.Errorf("crafter %s: %v, %v", k, c, err)
		}
	}
	for _, k := range DistinguisherKinds() {
		d, err := NewDistinguisher(k)
		if err != nil || d.Kind() != k || d.Validate() != nil {
			t.Errorf("distinguisher %s: %v, %v", k, d, err)
		}
	}
	if _, err := NewCrafter("telepathy"); !isInvalid(err) {
		t.Errorf("unknown crafter: err = %v", err)
	}
	if _, err := NewDistinguisher("telepathy"); !isInvalid(err) {
		t.Errorf("unknown distinguisher: err = %v", err)
	}
	if n := ThreatModelNames(); len(n) != 6 || n[0] != "api_access" || n[5] != "malicious_dataset" {
		t.Errorf("threat model names %v", n)
	}
}
