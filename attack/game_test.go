package attack

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
)

// canaryGame crafts a gradient canary on the blob MLP and returns its
// game with the watermark distinguisher d, training with σ_actual and
// telling the distinguisher σ_claimed (0: the same).
func canaryGame(t *testing.T, actual, claimed float64, d Distinguisher) *Game {
	t.Helper()
	in := canaryInput(1)
	in.DPSGD.NoiseMultiplier = actual
	in.DPSGD.Steps = 100
	cr, err := GradientCanary{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
		ClaimedNoiseMultiplier: claimed, X: in.X, Y: in.Y, Crafted: cr, Distinguisher: d, Threat: ThreatModels["gradient"]})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGradientCanaryGameSeparatesAtSmallNoise is the end-to-end game of the
// gradient attack (§IV-E, Crafter 4 + the note's LLR, §3.5) on synthetic
// data, q = 0.1, T = 100, 60 trials. At σ = 0.3 each of the ≈10 canary
// steps shifts y_t by C = 3.3 noise standard deviations, so the LLR
// separates the worlds almost perfectly: AUC ≥ 0.95. At σ = 100 the
// mechanism is μ ≈ 0.01 Gaussian-DP (CLT: μ = q·√(T(e^{1/σ²} − 1))) and the AUC must be 0.5 within 0.25 (the
// AUC's standard deviation with 30 trials per world is 0.075; 0.25 is
// over 3 sd).
func TestGradientCanaryGameSeparatesAtSmallNoise(t *testing.T) {
	small := auc(runTrials(t, canaryGame(t, 0.3, 0, Watermark{}), 7, 60))
	if small < 0.95 {
		t.Errorf("σ = 0.3: AUC %.3f, want ≥ 0.95", small)
	}
	huge := auc(runTrials(t, canaryGame(t, 100, 0, Watermark{}), 7, 60))
	if math.Abs(huge-0.5) > 0.25 {
		t.Errorf("σ = 100: AUC %.3f, want 0.5 ± 0.25", huge)
	}
}

// TestClaimedNoiseMultiplier: training uses σ_actual, the distinguisher is
// told σ_claimed (the find-a-bug example). An implementation that claims
// σ = 5 but adds σ = 0.3 is caught: the LLR computed with the claimed σ
// still separates the worlds (AUC ≥ 0.95, as in the σ = 0.3 game), while
// an honest σ = 5 run with the same claim does not (AUC ≤ 0.8; its
// ideal-mechanism AUC at q = 0.1, T = 100, σ = 5 is Φ(μ/√2) = 0.56 with the CLT μ = 0.20).
func TestClaimedNoiseMultiplier(t *testing.T) {
	buggy := canaryGame(t, 0.3, 5, Watermark{})
	if got := buggy.Info().NoiseMultiplier; got != 5 {
		t.Fatalf("distinguisher told σ = %v, want the claimed 5", got)
	}
	if a := auc(runTrials(t, buggy, 11, 60)); a < 0.95 {
		t.Errorf("σ_actual 0.3, claimed 5: AUC %.3f, want ≥ 0.95", a)
	}
	honest := canaryGame(t, 5, 5, Watermark{})
	if a := auc(runTrials(t, honest, 11, 60)); a > 0.8 {
		t.Errorf("σ_actual = σ_claimed = 5: AUC %.3f, want ≤ 0.8", a)
	}
}

// TestMislabeledRecordLossIsHigherWhenAbsent: a logistic regression that
// trains on a mislabelled record (world 1) fits it partly, so its loss on
// the final model is lower than when it is absent (world 0), for both
// Distinguisher 1 and Distinguisher 2 (max and mean). 40 trials; the
// worlds' mean losses must differ by more than 4 standard errors, and a
// low score must mean world 1 (AUC of "score higher in world 1" ≤ 0.2).
func TestMislabeledRecordLossIsHigherWhenAbsent(t *testing.T) {
	X, Y := blob(1, 100, 10, 2)
	PX, PY := blob(2, 100, 10, 2)
	arch := learn.Arch{Kind: learn.KindLogReg}
	cfg := learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 0.2, Steps: 200, LearningRate: 0.5}
	in := CraftInput{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y, PoolX: PX, PoolY: PY, Seed: 3, InitSeed: 4}
	cr, err := MislabeledRecord{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Distinguisher{LossThreshold{}, IntermediateLoss{}, IntermediateLoss{Reduce: ReduceMean}} {
		g, err := NewGame(GameConfig{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y,
			Crafted: cr, Distinguisher: d, Threat: ThreatModels["intermediate_poison"]})
		if err != nil {
			t.Fatal(err)
		}
		if !g.LowerMeansWorld1() {
			t.Errorf("%s: a loss must declare lower-means-world-1", d.Kind())
		}
		res := runTrials(t, g, 9, 40)
		m0, m1 := meanScore(res)
		se := pooledStdErr(res)
		if m0-m1 < 4*se {
			t.Errorf("%s %v: mean loss absent %.3f, present %.3f (se %.3f): want absent higher by > 4 se", d.Kind(), d.ScoreNames()[0], m0, m1, se)
		}
		if a := auc(res); a > 0.2 {
			t.Errorf("%s: AUC %.3f, want ≤ 0.2", d.Kind(), a)
		}
		for _, r := range res {
			if r.World == 1 && r.TargetSteps == 0 {
				t.Errorf("%s: a world-1 trial never sampled the record (q·T = 40)", d.Kind())
			}
			if r.World == 0 && r.TargetSteps != 0 {
				t.Errorf("%s: a world-0 trial sampled the record %d times", d.Kind(), r.TargetSteps)
			}
		}
	}
}

// pooledStdErr is the standard error of the difference of the worlds'
// mean primary scores.
func pooledStdErr(res []TrialResult) float64 {
	m0, m1 := meanScore(res)
	var v0, v1, n0, n1 float64
	for _, r := range res {
		if r.World == 1 {
			v1 += (r.Score() - m1) * (r.Score() - m1)
			n1++
		} else {
			v0 += (r.Score() - m0) * (r.Score() - m0)
			n0++
		}
	}
	return math.Sqrt(v0/(n0-1)/n0 + v1/(n1-1)/n1)
}

// TestTrialDeterminism: the same trial seed gives the same scores bit for
// bit; different trials differ; worlds alternate.
func TestTrialDeterminism(t *testing.T) {
	g := canaryGame(t, 1, 0, Watermark{})
	a, err := g.RunTrialIndex(42, "p", 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.RunTrialIndex(42, "p", 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Scores {
		if a.Scores[i] != b.Scores[i] {
			t.Errorf("score %d: %v then %v for the same trial", i, a.Scores[i], b.Scores[i])
		}
	}
	if a.CanarySteps != b.CanarySteps || a.World != 1 {
		t.Errorf("same trial: canary steps %d vs %d, world %d (want 1)", a.CanarySteps, b.CanarySteps, a.World)
	}
	c, err := g.RunTrialIndex(42, "p", 5)
	if err != nil {
		t.Fatal(err)
	}
	if c.Score() == a.Score() {
		t.Errorf("trials 3 and 5 gave the same score %v", c.Score())
	}
	d, err := g.RunTrialIndex(43, "p", 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.Score() == a.Score() {
		t.Errorf("seeds 42 and 43 gave the same score %v", d.Score())
	}
	n := [2]int{}
	for i := 0; i < 10; i++ {
		n[WorldOf(i)]++
	}
	if n[0] != 5 || n[1] != 5 {
		t.Errorf("worlds of trials 0…9: %v, want balanced", n)
	}
}

// TestWatermarkFromModelsMatchesGradients: with intermediate-model access
// the watermark detector recovers ⟨s_t, u⟩ by inverting the public update
// (momentum and weight decay included); its scores must equal those read
// from the privatised sums in the same trial, up to float32 rounding of
// the parameters (relative 1e-3).
func TestWatermarkFromModelsMatchesGradients(t *testing.T) {
	in := canaryInput(1)
	in.DPSGD.Momentum, in.DPSGD.WeightDecay, in.DPSGD.Steps = 0.5, 1e-3, 60
	cr, err := GradientCanary{Coordinates: 4}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	scores := map[Observation][]float64{}
	for _, obs := range []Observation{ObserveGradients, ObserveIntermediateModels} {
		g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
			X: in.X, Y: in.Y, Crafted: cr, Distinguisher: Watermark{Observe: obs}, Threat: ThreatModels["gradient"]})
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.RunTrialIndex(1, "p", 1)
		if err != nil {
			t.Fatal(err)
		}
		scores[obs] = r.Scores
	}
	a, b := scores[ObserveGradients], scores[ObserveIntermediateModels]
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-3*math.Max(1, math.Abs(a[i])) {
			t.Errorf("score %d: %v from gradients, %v from models", i, a[i], b[i])
		}
	}
}

// TestWatermarkStepScores checks one step's three scores against the
// note's formulas (§3.5) by hand: y = C (the canary alone), q = 0.5, σ = 1:
// LLR = log(0.5 + 0.5·e^{1/2}) = 0.2809298, watermark = 0, projection = 1;
// and a step far in the tail (σ = 0.01, q = 0.01, y = C) where e^z
// overflows: LLR = 5000 + log 0.01 + log1p(0.99·e^−5000) = 4995.394830.
func TestWatermarkStepScores(t *testing.T) {
	w := newWatermarkStats(1, 2, 0.5)
	w.add(2)
	if math.Abs(w.llr-0.2809298) > 1e-7 || w.watermark != 0 || w.projection != 1 {
		t.Errorf("y = C: llr %v watermark %v projection %v, want 0.2809298, 0, 1", w.llr, w.watermark, w.projection)
	}
	w = newWatermarkStats(1, 2, 0.5)
	w.add(0)
	// y = 0: llr = log(0.5 + 0.5·e^{−1/2}) = −0.2190702; watermark = −1/2.
	if math.Abs(w.llr+0.2190702) > 1e-7 || w.watermark != -0.5 || w.projection != 0 {
		t.Errorf("y = 0: llr %v watermark %v, want −0.2190702, −0.5", w.llr, w.watermark)
	}
	w = newWatermarkStats(0.01, 1, 0.01)
	w.add(1)
	if math.Abs(w.llr-4995.394830) > 1e-6 {
		t.Errorf("tail step: llr %v, want 4995.394830", w.llr)
	}
}

// TestWatermarkScoreSteps: the scores of projections a trainer reported
// are the scorer's (the values of TestWatermarkStepScores), skipped steps
// left out, the form's score first.
func TestWatermarkScoreSteps(t *testing.T) {
	got, err := Watermark{Form: FormProjection, SkipSteps: 1}.ScoreSteps([]float64{100, 2, 0}, 1, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0]-1) > 1e-12 || math.Abs(got[1]-(0.2809298-0.2190702)) > 1e-7 || got[2] != -0.5 {
		t.Errorf("scores %v, want projection 1, llr 0.0618596, watermark −0.5", got)
	}
	if _, err := (Watermark{}).ScoreSteps([]float64{1}, 0, 1, 0.5); err == nil {
		t.Error("σ = 0 accepted")
	}
}

// TestGameBadInput: mismatches between the crafted result, the model and
// the data are ErrInvalid errors at NewGame, not failures mid-trial.
func TestGameBadInput(t *testing.T) {
	in := canaryInput(1)
	cr, err := GradientCanary{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	base := GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD, X: in.X, Y: in.Y,
		Crafted: cr, Distinguisher: Watermark{}, Threat: ThreatModels["gradient"]}
	rec, err := RandomRecord{Source: SourceTrain}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(c *GameConfig){
		"other model":       func(c *GameConfig) { c.Arch = learn.Arch{Kind: learn.KindLogReg} },
		"other clip norm":   func(c *GameConfig) { c.DPSGD.ClipNorm = 2 },
		"negative claim":    func(c *GameConfig) { c.ClaimedNoiseMultiplier = -1 },
		"no distinguisher":  func(c *GameConfig) { c.Distinguisher = nil },
		"no crafted result": func(c *GameConfig) { c.Crafted = nil },
		"bad form":          func(c *GameConfig) { c.Distinguisher = Watermark{Form: "vibes"} },
		"short data":        func(c *GameConfig) { c.X = c.X[:len(c.X)-1] },
		"excluded index": func(c *GameConfig) {
			r := *rec
			r.Exclude = []int{len(in.Y)}
			c.Crafted, c.Distinguisher, c.Threat = &r, LossThreshold{}, ThreatModels["api_access"]
		},
		"query width": func(c *GameConfig) {
			r := *rec
			r.Query = &Record{X: Floats{1}, Y: 0}
			c.Crafted, c.Distinguisher, c.Threat = &r, LossThreshold{}, ThreatModels["api_access"]
		},
		"zero σ for the LLR": func(c *GameConfig) { c.DPSGD.NoiseMultiplier = 0 },
	}
	for name, mod := range cases {
		cfg := base
		mod(&cfg)
		g, err := NewGame(cfg)
		if err == nil {
			_, err = g.RunTrial(1, TrialStream(1, "p", 1))
		}
		if !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	g, err := NewGame(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.RunTrial(2, TrialStream(1, "p", 1)); !isInvalid(err) {
		t.Errorf("world 2: err = %v, want ErrInvalid", err)
	}
	if _, err := g.RunTrial(0, nil); !isInvalid(err) {
		t.Errorf("nil stream: err = %v, want ErrInvalid", err)
	}
}

// TestConcurrentTrials: a Game is shared read-only, so trials on several
// goroutines give the rows a sequential run gives.
func TestConcurrentTrials(t *testing.T) {
	g := canaryGame(t, 1, 0, Watermark{})
	want := runTrials(t, g, 5, 8)
	got := make([]TrialResult, len(want))
	errs := make(chan error, len(want))
	for i := range got {
		go func() {
			r, err := g.RunTrialIndex(5, "test-point", i)
			got[i] = r
			errs <- err
		}()
	}
	for range got {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range want {
		if got[i].Score() != want[i].Score() || got[i].CanarySteps != want[i].CanarySteps {
			t.Errorf("trial %d: concurrent %v, sequential %v", i, got[i], want[i])
		}
	}
}
