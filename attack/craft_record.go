package attack

import (
	"fmt"

	"github.com/dpaudit/dpaudit/rng"
)

// Record sources of the record crafters.
const (
	// SourcePool draws the record from CraftInput's pool: D′ = D ∪ {x}
	// (Crafter 1's pseudo-code, a fresh sample from the distribution).
	SourcePool = "pool"
	// SourceTrain removes a random record x from the training set: D is the
	// rest, D′ = D ∪ {x} (§IV-A's prose). Crafted.Exclude names it.
	SourceTrain = "train"
)

// RandomRecord is Nasr et al.'s Crafter 1 (§IV-A, "API access"): one
// random in-distribution record, add/remove adjacency. It is the weakest
// canary, the average-case membership question. Threat model: insert one
// record. Cost: none (no training).
type RandomRecord struct {
	// Source is SourcePool (default) or SourceTrain.
	Source string
	// PerTrial draws a fresh pool record in every trial (the paper's
	// protocol: the bound then holds for the average record of the
	// distribution). The default, one record fixed for all trials,
	// measures the leakage of that one record, which is what a DP
	// guarantee bounds for every record; SourcePool only.
	PerTrial bool
}

// Kind implements Crafter.
func (RandomRecord) Kind() string { return KindRandomRecord }

// Access implements Crafter.
func (RandomRecord) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (RandomRecord) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c RandomRecord) Validate() error {
	if c.PerTrial && c.Source == SourceTrain {
		return invalidf("%s: a fresh record per trial is drawn from the pool; source train removes one fixed record", c.Kind())
	}
	return checkSource(c.Kind(), c.Source)
}

// Craft implements Crafter.
func (c RandomRecord) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	out, rec, err := pickRecord(c.Kind(), c.Source, in, c.Products())
	if err != nil {
		return nil, err
	}
	out.Target, out.Query = rec, rec
	if c.PerTrial {
		out.FreshFromPool = true
		out.Notes = append(out.Notes, "a fresh pool record per trial (the record above is only an example)")
	}
	return out, nil
}

// MislabeledRecord is the common "mislabelled canary" of auditing tools
// (e.g. Jagielski et al. 2020; Nasr et al. 2023): a random record whose
// label is replaced by a different class drawn uniformly, added to the
// training set (add/remove adjacency). The model must memorise it to fit
// it, so its loss separates the worlds better than a random record's.
// Threat model: insert one record. Cost: none.
type MislabeledRecord struct {
	// Source is SourcePool (default) or SourceTrain.
	Source string
}

// Kind implements Crafter.
func (MislabeledRecord) Kind() string { return KindMislabeledRecord }

// Access implements Crafter.
func (MislabeledRecord) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (MislabeledRecord) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c MislabeledRecord) Validate() error { return checkSource(c.Kind(), c.Source) }

// Craft implements Crafter.
func (c MislabeledRecord) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	out, rec, err := pickRecord(c.Kind(), c.Source, in, c.Products())
	if err != nil {
		return nil, err
	}
	r := rng.New(in.Seed, "attack/craft", c.Kind(), "label")
	old := rec.Y
	rec.Y = int32((int(old) + 1 + r.IntN(in.Classes-1)) % in.Classes)
	out.Target, out.Query = rec, rec
	out.Notes = append(out.Notes, fmt.Sprintf("label %d replaced by %d", old, rec.Y))
	return out, nil
}

// SwappedLabel is the label audit under replace-one adjacency (Pradhan et
// al., ICLR 2026): both worlds hold a random record, world 0 with its own
// label and world 1 with a different class drawn uniformly — one record
// replaced by another, the dataset size unchanged. The query is world
// 1's record. Its gradient can point opposite to world 0's (for binary
// logistic regression it does), so the pair can reach the replace-one
// sensitivity 2C that an add/remove accountant does not cover.
// Threat model: insert one record. Cost: none.
type SwappedLabel struct {
	// Source is SourcePool (default) or SourceTrain.
	Source string
}

// Kind implements Crafter.
func (SwappedLabel) Kind() string { return KindSwappedLabel }

// Access implements Crafter.
func (SwappedLabel) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (SwappedLabel) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c SwappedLabel) Validate() error { return checkSource(c.Kind(), c.Source) }

// Craft implements Crafter.
func (c SwappedLabel) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	out, rec, err := pickRecord(c.Kind(), c.Source, in, c.Products())
	if err != nil {
		return nil, err
	}
	if in.Classes < 2 {
		return nil, invalidf("%s: a label swap needs at least 2 classes, got %d", c.Kind(), in.Classes)
	}
	r := rng.New(in.Seed, "attack/craft", c.Kind(), "label")
	swapped := &Record{X: rec.X, Y: int32((int(rec.Y) + 1 + r.IntN(in.Classes-1)) % in.Classes)}
	out.Adjacency = Replace
	out.Target0, out.Target, out.Query = rec, swapped, swapped
	out.Notes = append(out.Notes, fmt.Sprintf("label %d (world 0) replaced by %d (world 1)", rec.Y, swapped.Y))
	return out, nil
}

// ConstantInput is the "blank" canary of auditing tools: a record whose
// features all equal Value (0: the all-zero input) with label Label,
// added to the training set. Far from the data, its gradient is not
// masked by other records'. Threat model: insert one record. Cost: none.
type ConstantInput struct {
	Value float32
	Label int32
}

// Kind implements Crafter.
func (ConstantInput) Kind() string { return KindConstantInput }

// Access implements Crafter.
func (ConstantInput) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (ConstantInput) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c ConstantInput) Validate() error {
	if c.Label < 0 {
		return invalidf("%s: label must be ≥ 0, got %d", c.Kind(), c.Label)
	}
	return nil
}

// Craft implements Crafter.
func (c ConstantInput) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := in.validate(false); err != nil {
		return nil, err
	}
	if int(c.Label) >= in.Classes {
		return nil, invalidf("%s: label %d, model has %d classes", c.Kind(), c.Label, in.Classes)
	}
	x := make(Floats, in.inputSize())
	for i := range x {
		x[i] = c.Value
	}
	rec := &Record{X: x, Y: c.Label}
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	out.Target, out.Query = rec, rec
	return out, nil
}

// NoiseInput is an out-of-distribution canary: features drawn uniformly
// from [Low, High] (once, at crafting), with label Label, or a uniformly
// random class when Label < 0. Threat model: insert one record. Cost: none.
type NoiseInput struct {
	Low, High float64
	Label     int32
}

// Kind implements Crafter.
func (NoiseInput) Kind() string { return KindNoiseInput }

// Access implements Crafter.
func (NoiseInput) Access() Access { return Access{ObserveNothing, InsertRecord} }

// Products implements Crafter.
func (NoiseInput) Products() Products { return HasQuery }

// Validate implements Crafter.
func (c NoiseInput) Validate() error {
	if !(c.Low < c.High) {
		return invalidf("%s: need low < high, got [%v, %v]", c.Kind(), c.Low, c.High)
	}
	return nil
}

// Craft implements Crafter.
func (c NoiseInput) Craft(in CraftInput) (*Crafted, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := in.validate(false); err != nil {
		return nil, err
	}
	if int(c.Label) >= in.Classes {
		return nil, invalidf("%s: label %d, model has %d classes", c.Kind(), c.Label, in.Classes)
	}
	r := rng.New(in.Seed, "attack/craft", c.Kind())
	x := make(Floats, in.inputSize())
	for i := range x {
		x[i] = float32(c.Low + (c.High-c.Low)*r.Float64())
	}
	y := c.Label
	if y < 0 {
		y = int32(r.IntN(in.Classes))
	}
	rec := &Record{X: x, Y: y}
	out := newCrafted(c.Kind(), c.Access(), c.Products(), in)
	out.Target, out.Query = rec, rec
	return out, nil
}

func checkSource(kind, s string) error {
	switch s {
	case "", SourcePool, SourceTrain:
		return nil
	}
	return invalidf("%s: source %q, want %q or %q", kind, s, SourcePool, SourceTrain)
}

// newCrafted starts an add/remove result for the given crafter.
func newCrafted(kind string, a Access, p Products, in CraftInput) *Crafted {
	return &Crafted{Kind: kind, Access: a, Products: p, Adjacency: AddRemove, InitSeed: in.InitSeed}
}

// pickRecord draws the crafter's record from the pool or the training set
// (then excluded from both worlds) with the stream (seed, "attack/craft",
// kind, "record").
func pickRecord(kind, source string, in CraftInput, p Products) (*Crafted, *Record, error) {
	if source == "" {
		source = SourcePool
	}
	if err := in.validate(source == SourcePool); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", kind, err)
	}
	D := in.inputSize()
	r := rng.New(in.Seed, "attack/craft", kind, "record")
	out := &Crafted{Kind: kind, Products: p, Adjacency: AddRemove, InitSeed: in.InitSeed}
	out.Access = Access{ObserveNothing, InsertRecord}
	if source == SourceTrain {
		if len(in.Y) < 2 {
			return nil, nil, invalidf("%s: removing a record from a training set of %d leaves nothing to train on", kind, len(in.Y))
		}
		i := r.IntN(len(in.Y))
		out.Exclude = []int{i}
		out.Notes = append(out.Notes, fmt.Sprintf("record %d of the training set", i))
		return out, row(in.X, in.Y, D, i), nil
	}
	i := r.IntN(len(in.PoolY))
	out.Notes = append(out.Notes, fmt.Sprintf("record %d of the pool", i))
	return out, row(in.PoolX, in.PoolY, D, i), nil
}
