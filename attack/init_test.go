package attack

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
)

// A crafted θ_0 (Crafted.Init, the last-iterate audit's worst-case
// initial parameters) is where every trial starts: with learning rate 0
// the loss distinguisher's score is the target's loss at θ_0 itself, not
// at the model of InitSeed. A θ_0 of the wrong size, or with a fresh
// initialisation per trial, is refused.
func TestCraftedInitIsTheStart(t *testing.T) {
	X, Y := blob(1, 40, 10, 2)
	arch := learn.Arch{Kind: "mlp", Hidden: []int{8}}
	cfg := learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 1, Steps: 3, LearningRate: 0}
	cr, err := ConstantInput{Value: 1, Label: 1}.Craft(CraftInput{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y, Seed: 3, InitSeed: 4})
	if err != nil {
		t.Fatal(err)
	}
	random, err := learn.NewModel(arch, []int{10}, 2, cr.InitSeed)
	if err != nil {
		t.Fatal(err)
	}
	theta := random.Params()
	for i := range theta {
		theta[i] = 0.3 * float32(i%7-3) // any θ_0 other than the seed's
	}
	crafted := random.Clone()
	if err := crafted.SetParams(theta); err != nil {
		t.Fatal(err)
	}
	lossAt := func(m *learn.Model) float64 {
		l, err := m.Loss(cr.Target.X, []int32{cr.Target.Y})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cr.Init = theta
	game := func(c *Crafted, randomInit bool) (*Game, error) {
		return NewGame(GameConfig{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y,
			Crafted: c, Distinguisher: LossThreshold{}, Threat: ThreatModels["api_access"], RandomInit: randomInit})
	}
	g, err := game(cr, false)
	if err != nil {
		t.Fatal(err)
	}
	want, other := lossAt(crafted), lossAt(random)
	for _, r := range runTrials(t, g, 9, 4) {
		if math.Abs(r.Score()-want) > 1e-9 {
			t.Errorf("world %d: score %v, want the loss at the crafted θ_0 %v (at the seed's θ_0: %v)", r.World, r.Score(), want, other)
		}
	}
	if math.Abs(want-other) < 1e-3 {
		t.Fatalf("the test's θ_0 does not change the target's loss (%v vs %v)", want, other)
	}
	if _, err := game(cr, true); err == nil {
		t.Error("a random initialisation per trial was accepted with a crafted θ_0")
	}
	short := *cr
	short.Init = theta[1:]
	if _, err := game(&short, false); err == nil {
		t.Error("a θ_0 of the wrong size was accepted")
	}
}
