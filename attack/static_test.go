package attack

import (
	"bytes"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

func staticInput() CraftInput {
	X, Y := blob(1, 100, 10, 2)
	PX, PY := blob(2, 100, 10, 2)
	return CraftInput{Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{16}}, InShape: []int{10}, Classes: 2,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 0.2, Steps: 100, LearningRate: 0.5},
		X:     X, Y: Y, PoolX: PX, PoolY: PY, Seed: 3, InitSeed: 4}
}

// TestStaticPoisonRaisesLoss: Crafter 2 (§IV-B) ascends the shadow
// models' loss, so the poison must have a higher loss than the record it
// started from on models the crafter never saw (same DP-SGD
// configuration, other seeds), and it keeps the record's label.
func TestStaticPoisonRaisesLoss(t *testing.T) {
	in := staticInput()
	c := StaticPoison{Shadows: 2, Steps: 30}
	cr, err := c.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	start := rng.New(in.Seed, "attack/craft", KindStaticPoison, "start").IntN(len(in.PoolY))
	orig := row(in.PoolX, in.PoolY, 10, start)
	if cr.Target.Y != orig.Y || cr.Query != cr.Target {
		t.Fatalf("poison label %d, start label %d; query must be the target", cr.Target.Y, orig.Y)
	}
	for k := 0; k < 3; k++ {
		m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, 100+uint64(k))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := learn.Train(m, in.PoolX, in.PoolY, in.DPSGD, rng.New(200+uint64(k)), nil); err != nil {
			t.Fatal(err)
		}
		var l [2]float64
		if err := m.PerExampleLoss(append(append([]float32(nil), orig.X...), cr.Target.X...), []int32{orig.Y, orig.Y}, l[:]); err != nil {
			t.Fatal(err)
		}
		if l[1] <= l[0] {
			t.Errorf("fresh model %d: poison loss %.4g ≤ start record's %.4g", k, l[1], l[0])
		}
	}
	// Deterministic in the seed.
	again, err := c.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cr.MarshalBinary()
	b, _ := again.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("crafting twice with one seed gave different results")
	}
}

// TestStaticPoisonBadInput: shadow models need input gradients; a model
// kind without them is an ErrInvalid error, as are an empty pool and bad
// parameters.
func TestStaticPoisonBadInput(t *testing.T) {
	in := staticInput()
	in.Arch = learn.Arch{Kind: "forest"}
	if _, err := (StaticPoison{}).Craft(in); !isInvalid(err) {
		t.Errorf("model kind without input gradients: err = %v, want ErrInvalid", err)
	}
	if _, err := (AdaptivePoison{}).Craft(in); !isInvalid(err) {
		t.Errorf("adaptive poison on a model kind without input gradients: err = %v, want ErrInvalid", err)
	}
	in = staticInput()
	in.PoolX, in.PoolY = nil, nil
	if _, err := (StaticPoison{}).Craft(in); !isInvalid(err) {
		t.Errorf("empty pool: err = %v, want ErrInvalid", err)
	}
	for name, c := range map[string]StaticPoison{
		"rule":  {StepRule: "sideways"},
		"box":   {FeatureMin: 1, FeatureMax: 0},
		"steps": {Steps: -1},
		"data":  {ShadowData: "elsewhere"},
	} {
		if err := c.Validate(); !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	in = staticInput()
	in.Arch = learn.Arch{Kind: learn.KindMLP, Hidden: []int{4}}
	if _, err := (AdaptivePoison{Query: QueryPool, Method: MethodClosedForm}).Craft(in); !isInvalid(err) {
		t.Errorf("closed form on an MLP: err = %v, want ErrInvalid", err)
	}
}
