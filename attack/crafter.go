package attack

import (
	"math"

	"github.com/dpaudit/dpaudit/learn"
)

// Crafter kinds (spec names).
const (
	KindRandomRecord     = "random_record"
	KindMislabeledRecord = "mislabeled_record"
	KindSwappedLabel     = "swapped_label"
	KindConstantInput    = "constant_input"
	KindNoiseInput       = "noise_input"
	KindStaticPoison     = "static_poison"
	KindAdaptivePoison   = "adaptive_poison"
	KindGradientCanary   = "gradient_canary"
	KindMaliciousDataset = "malicious_dataset"
)

// A Crafter is the first half of an adversary (Nasr et al. 2021, §III-B):
// it chooses the two neighbouring worlds. Craft runs once per audit point
// (the craft stage) and returns a serialisable Crafted; the trials then
// only read it. Implementations are plain value types whose exported
// fields are the spec parameters; the zero value of every optional field
// means its documented default.
type Crafter interface {
	// Kind is the spec name, e.g. "gradient_canary".
	Kind() string
	// Access is what crafting and the world-1 trials need: how much of the
	// target run the adversary observes and how it changes training.
	Access() Access
	// Products says what the crafted result offers distinguishers.
	Products() Products
	// Validate checks the parameters without any data.
	Validate() error
	// Craft builds the worlds. It is deterministic in in.Seed.
	Craft(in CraftInput) (*Crafted, error)
}

// CraftInput is what a crafter may use: the model and trainer the target
// will use (the adversary knows the hyperparameters and θ_0's seed, as in
// the DP game), the training set D, and a pool of records from the same
// distribution but not in D (candidate records and shadow-model data).
type CraftInput struct {
	Arch    learn.Arch
	InShape []int
	Classes int
	// DPSGD is the trainer's configuration as the adversary knows it (with
	// the claimed noise multiplier when testing an implementation).
	DPSGD learn.DPSGD
	// X, Y is the training set D, row-major N × InputSize.
	X []float32
	Y []int32
	// PoolX, PoolY are records from the data distribution outside D; may be
	// empty for crafters that do not need them.
	PoolX []float32
	PoolY []int32
	// Seed names every random stream of the crafter:
	// rng.New(Seed, "attack/craft", kind, …).
	Seed uint64
	// InitSeed is the seed of the initial model θ_0 (learn.NewModel) used
	// by reference and shadow runs and recorded in the Crafted result.
	InitSeed uint64
}

// inputSize returns the number of features per record.
func (in *CraftInput) inputSize() int {
	if len(in.InShape) == 0 {
		return 0
	}
	n := 1
	for _, d := range in.InShape {
		n *= d
	}
	return n
}

// validate checks shapes and labels of the data and the pool.
func (in *CraftInput) validate(needPool bool) error {
	D := in.inputSize()
	if D <= 0 {
		return invalidf("craft: input shape %v has no features", in.InShape)
	}
	if in.Classes < 2 {
		return invalidf("craft: %d classes, need at least 2", in.Classes)
	}
	if err := checkData("training set", in.X, in.Y, D, in.Classes); err != nil {
		return err
	}
	if len(in.PoolY) > 0 || len(in.PoolX) > 0 {
		if err := checkData("pool", in.PoolX, in.PoolY, D, in.Classes); err != nil {
			return err
		}
	}
	if needPool && len(in.PoolY) == 0 {
		return invalidf("craft: this crafter draws records from the pool, which is empty")
	}
	return nil
}

// checkData checks a row-major data set against the feature count and
// the class count.
func checkData(what string, X []float32, Y []int32, D, classes int) error {
	if len(X) != len(Y)*D {
		return invalidf("%s: %d features for %d records of %d features", what, len(X), len(Y), D)
	}
	for i, y := range Y {
		if y < 0 || int(y) >= classes {
			return invalidf("%s: record %d has label %d, want 0…%d", what, i, y, classes-1)
		}
	}
	for j, v := range X {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return invalidf("%s: record %d feature %d is %v", what, j/D, j%D, v)
		}
	}
	return nil
}

// row returns record i of a row-major data set as a Record (copied).
func row(X []float32, Y []int32, D, i int) *Record {
	return &Record{X: append(Floats(nil), X[i*D:(i+1)*D]...), Y: Y[i]}
}

// inputGradientKinds are the model kinds whose learn.Model provides
// InputGradient (∂loss/∂x), which poison crafting needs.
var inputGradientKinds = map[string]bool{learn.KindLogReg: true, learn.KindMLP: true, learn.KindCNN: true, learn.KindLayers: true}

// checkInputGradients rejects a model kind that cannot differentiate its
// loss with respect to the input.
func checkInputGradients(kind string, a learn.Arch) error {
	if !inputGradientKinds[a.Kind] {
		return invalidf("%s: crafting needs input gradients, which model kind %q does not provide (want logreg, mlp, cnn or layers)", kind, a.Kind)
	}
	return nil
}
