package membership

import (
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// gradNorms returns the per-example gradient norms of (X, Y) at m.
func gradNorms(t *testing.T, m *learn.Model, X []float32, Y []int32) []float64 {
	t.Helper()
	dst := make([]float32, len(Y)*m.NumParams())
	norms := make([]float64, len(Y))
	if err := m.PerExampleGradients(X, Y, dst, norms); err != nil {
		t.Fatal(err)
	}
	return norms
}

func medianNorm(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// The mechanism behind the worst-case θ_0 (Annamalai & De Cristofaro 2024,
// §4: "the gradients of the other records are small, the target's is
// large"): after pre-training on held-out digits, the training records'
// gradients at θ_0 are far smaller than at the random θ_0 the crafter
// would otherwise use, while the blank target's stays above the clip norm
// (1) and becomes many times the typical training record's. Without the
// pre-training (c.Init unset, or θ_0 = the random model) every check fails.
func TestWorstCaseInitShrinksOtherGradients(t *testing.T) {
	arch := learn.Arch{Kind: "mlp", Hidden: []int{16}}
	data := stages.DataParams{Source: datasets.Source{Name: "digits"},
		Options: datasets.Options{TrainSize: 100, Flatten: true, HeldOut: 1000, Seed: 7}}
	split, err := stages.LoadSplit(data, "")
	if err != nil {
		t.Fatal(err)
	}
	tr := split.Train
	target := &attack.Record{X: make([]float32, tr.D), Y: 9}
	c := &attack.Crafted{Kind: "constant_input", Adjacency: attack.AddRemove, InitSeed: 11, Target: target, Query: target}
	p := craftParams{Data: data, Arch: arch, Seed: 5,
		WorstCase: &spec.WorstCaseInit{HeldOut: 1000, Epochs: 20, BatchSize: 32, LearningRate: 0.5}}
	if err := worstCaseInit(c, p, split); err != nil {
		t.Fatal(err)
	}
	random, err := learn.NewModel(arch, tr.Shape, tr.Classes, c.InitSeed)
	if err != nil {
		t.Fatal(err)
	}
	if c.Init == nil {
		t.Fatal("no crafted θ_0")
	}
	worst := random.Clone()
	if err := worst.SetParams(c.Init); err != nil {
		t.Fatal(err)
	}
	rTrain, wTrain := medianNorm(gradNorms(t, random, tr.X, tr.Y)), medianNorm(gradNorms(t, worst, tr.X, tr.Y))
	rTarget, wTarget := gradNorms(t, random, target.X, []int32{9})[0], gradNorms(t, worst, target.X, []int32{9})[0]
	t.Logf("median training-record gradient norm: random θ_0 %.4g, worst-case %.4g; target's: %.4g, %.4g; notes %q", rTrain, wTrain, rTarget, wTarget, c.Notes)
	if !(wTrain < 0.3*rTrain) {
		t.Errorf("training gradients %.4g at the worst-case θ_0, %.4g at the random one: want < 0.3×", wTrain, rTrain)
	}
	if !(wTarget > 1 && wTarget/wTrain > 5*rTarget/rTrain) {
		t.Errorf("target/typical gradient ratio %.4g (target %.4g) at the worst-case θ_0, %.4g at the random one", wTarget/wTrain, wTarget, rTarget/rTrain)
	}
	// The same inputs give the same θ_0 (the craft node is cached by them).
	c2 := &attack.Crafted{Kind: "constant_input", Adjacency: attack.AddRemove, InitSeed: 11, Target: target, Query: target}
	if err := worstCaseInit(c2, p, split); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Init, c2.Init) {
		t.Error("the pre-trained θ_0 differs between two identical crafts")
	}
}
