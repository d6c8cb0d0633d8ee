package attack

import (
	"bytes"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
)

// TestCraftedRoundTrip: every crafter's result survives MarshalBinary →
// UnmarshalBinary bit for bit (the craft stage stores it), including NaN
// payloads and −0 in float vectors.
func TestCraftedRoundTrip(t *testing.T) {
	in := staticInput()
	crafters := []Crafter{
		RandomRecord{}, RandomRecord{Source: SourceTrain}, MislabeledRecord{}, ConstantInput{Value: 0.5, Label: 1},
		NoiseInput{Low: -1, High: 1, Label: -1}, StaticPoison{Shadows: 1, Steps: 3, ShadowSteps: 5},
		AdaptivePoison{Query: QueryPool}, GradientCanary{Coordinates: 4}, MaliciousDataset{Size: 30},
	}
	for _, c := range crafters {
		cr, err := c.Craft(in)
		if err != nil {
			t.Fatalf("%s: %v", c.Kind(), err)
		}
		if err := cr.Validate(); err != nil {
			t.Fatalf("%s: %v", c.Kind(), err)
		}
		if cr.Kind != c.Kind() || cr.Access != c.Access() || cr.Products != c.Products() {
			t.Errorf("%s: crafted says %s/%v/%v", c.Kind(), cr.Kind, cr.Access, cr.Products)
		}
		if err := CheckPair(c, LossThreshold{}, Access{ObserveGradients, 1<<5 - 1}); (err == nil) != (c.Products()&HasQuery != 0) {
			t.Errorf("%s: loss distinguisher check %v", c.Kind(), err)
		}
		a, err := cr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Crafted
		if err := back.UnmarshalBinary(a); err != nil {
			t.Fatalf("%s: %v", c.Kind(), err)
		}
		b, err := back.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: re-encoding differs", c.Kind())
		}
	}
	f := Floats{float32(math.NaN()), float32(math.Copysign(0, -1)), 1e-45, math.MaxFloat32}
	j, err := f.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var g Floats
	if err := g.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if math.Float32bits(f[i]) != math.Float32bits(g[i]) {
			t.Errorf("value %d: %x → %x", i, math.Float32bits(f[i]), math.Float32bits(g[i]))
		}
	}
}

// TestCraftedAdjacency: the worlds must differ by one added record or one
// canary (add/remove), or by one substituted record under a declared
// replace adjacency; anything else is an ErrInvalid error, including when
// decoding a stored result.
func TestCraftedAdjacency(t *testing.T) {
	rec := &Record{X: Floats{1, 2}, Y: 0}
	canary := &Canary{NumParams: 4, Coords: []int{0, 1}, Signs: []int8{1, -1}, Value: canaryValue(1, 2), ClipNorm: 1}
	ok := []*Crafted{
		{Kind: "k", Adjacency: AddRemove, Target: rec, Query: rec, Products: HasQuery},
		{Kind: "k", Adjacency: AddRemove, Canary: canary, Products: HasCanary},
		{Kind: "k", Adjacency: Replace, Target: rec, Target0: &Record{X: Floats{3, 4}, Y: 1}},
	}
	for i, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("valid %d: %v", i, err)
		}
	}
	zero := 0.0
	bad := map[string]*Crafted{
		"undeclared substitution": {Kind: "k", Adjacency: AddRemove, Target: rec, Target0: rec},
		"two differences":         {Kind: "k", Adjacency: AddRemove, Target: rec, Canary: canary},
		"identical worlds":        {Kind: "k", Adjacency: AddRemove},
		"no adjacency":            {Kind: "k", Target: rec},
		"replace with canary":     {Kind: "k", Adjacency: Replace, Target: rec, Target0: rec, Canary: canary},
		"canary too long":         {Kind: "k", Adjacency: AddRemove, Canary: &Canary{NumParams: 4, Coords: []int{0, 1}, Signs: []int8{1, -1}, Value: 1, ClipNorm: 1}},
		"canary coordinate twice": {Kind: "k", Adjacency: AddRemove, Canary: &Canary{NumParams: 4, Coords: []int{1, 1}, Signs: []int8{1, -1}, Value: 0.5, ClipNorm: 1}},
		"promised query":          {Kind: "k", Adjacency: AddRemove, Target: rec, Products: HasQuery},
		"frozen without lr 0":     {Kind: "k", Adjacency: AddRemove, Canary: canary, Products: FreezesModel},
		"lr 0 not declared":       {Kind: "k", Adjacency: AddRemove, Canary: canary, LearningRate: &zero},
		"no kind":                 {Adjacency: AddRemove, Target: rec},
	}
	for name, c := range bad {
		if err := c.Validate(); !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
		data, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Crafted
		if err := back.UnmarshalBinary(data); !isInvalid(err) {
			t.Errorf("%s: decoding: err = %v, want ErrInvalid", name, err)
		}
	}
}

// TestReplaceAdjacencyGame runs a declared substitution: world 0 trains
// with Target0, world 1 with Target; both count the record's steps.
func TestReplaceAdjacencyGame(t *testing.T) {
	in := staticInput()
	in.Arch = learn.Arch{Kind: learn.KindLogReg}
	cr, err := MislabeledRecord{}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	orig := *cr.Target
	orig.Y = 1 - orig.Y // the correct label of the binary record
	cr.Adjacency, cr.Target0 = Replace, &orig
	g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
		X: in.X, Y: in.Y, Crafted: cr, Distinguisher: LossThreshold{}, Threat: ThreatModels["api_access"]})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runTrials(t, g, 1, 4) {
		if r.TargetSteps == 0 {
			t.Errorf("world %d: the differing record was never sampled (q·T = 20)", r.World)
		}
	}
}

// TestRecordCrafters: the record canaries are what they claim.
func TestRecordCrafters(t *testing.T) {
	in := staticInput()
	in.Classes = 3
	for i := range in.Y {
		in.Y[i], in.PoolY[i] = int32(i%3), int32(i%3)
	}
	for _, src := range []string{SourcePool, SourceTrain} {
		rr, err := RandomRecord{Source: src}.Craft(in)
		if err != nil {
			t.Fatal(err)
		}
		ml, err := MislabeledRecord{Source: src}.Craft(in)
		if err != nil {
			t.Fatal(err)
		}
		X, Y := in.PoolX, in.PoolY
		if src == SourceTrain {
			X, Y = in.X, in.Y
			if len(rr.Exclude) != 1 || len(ml.Exclude) != 1 {
				t.Fatalf("train source: exclude %v / %v, want one index", rr.Exclude, ml.Exclude)
			}
		}
		found := -1
		for i := range Y {
			if slicesEqual(X[i*10:(i+1)*10], ml.Target.X) {
				found = i
			}
		}
		if found < 0 {
			t.Fatalf("%s: mislabelled record's features are not a record of the source", src)
		}
		if ml.Target.Y == Y[found] || ml.Target.Y < 0 || ml.Target.Y > 2 {
			t.Errorf("%s: mislabelled record has label %d, the original %d", src, ml.Target.Y, Y[found])
		}
		if src == SourceTrain && ml.Exclude[0] != found {
			t.Errorf("train source: excluded %d, the record is %d", ml.Exclude[0], found)
		}
		if rr.Target != rr.Query {
			t.Error("random record: the query must be the inserted record")
		}
	}
	ci, err := ConstantInput{Value: 0, Label: 2}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ci.Target.X {
		if v != 0 {
			t.Fatalf("constant input has feature %v, want 0", v)
		}
	}
	ni, err := NoiseInput{Low: 5, High: 6, Label: -1}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ni.Target.X {
		if v < 5 || v > 6 {
			t.Fatalf("noise input has feature %v outside [5, 6]", v)
		}
	}
	if _, err := (ConstantInput{Label: 3}).Craft(in); !isInvalid(err) {
		t.Errorf("label out of range: err = %v, want ErrInvalid", err)
	}
	if _, err := (NoiseInput{Low: 1, High: 1}).Craft(in); !isInvalid(err) {
		t.Errorf("empty range: err = %v, want ErrInvalid", err)
	}
	in.PoolX, in.PoolY = nil, nil
	if _, err := (RandomRecord{}).Craft(in); !isInvalid(err) {
		t.Errorf("empty pool: err = %v, want ErrInvalid", err)
	}
}

func slicesEqual(a []float32, b Floats) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
