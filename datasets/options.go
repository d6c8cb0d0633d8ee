package datasets

import (
	"math"
	"slices"
)

// Normalisation modes for Options.Normalize.
const (
	// NormalizeAuto (or "") picks the source's default: NormalizeUnit for
	// every source with a fixed range, NormalizeNone for the Gaussian
	// mixture.
	NormalizeAuto = "auto"
	// NormalizeUnit divides by the source's nominal maximum so values lie in
	// [0,1]: pixels/255 for MNIST and Fashion-MNIST, /16 for digits; the
	// tabular generators already emit [0,1]. Default for every source with
	// a fixed range. The Gaussian mixture has no fixed range and refuses it.
	NormalizeUnit = "unit"
	// NormalizeNone keeps raw values (MNIST 0..255, digits 0..16).
	NormalizeNone = "none"
	// NormalizeStandardize maps each feature to zero mean and unit variance
	// using the mean and standard deviation of the training split (after
	// class filter and subsample) and applies the same map to the test
	// split. A feature constant on the training split is only centred.
	NormalizeStandardize = "standardize"
)

// Options shape what Load returns. Every source supports all of them. The
// order of operations is: class filter → subsample → normalise → ℓ2 scaling
// → shape.
type Options struct {
	// Classes keeps only examples with these labels and remaps them to
	// 0..len(Classes)-1 in the order given: Classes [3, 1] makes old label 3
	// the new label 0 and old label 1 the new label 1. Empty keeps all
	// labels unchanged. Labels must be distinct and in range.
	Classes []int
	// TrainSize and TestSize: 0 keeps every example (after the class
	// filter); otherwise a uniform subsample without replacement of exactly
	// that many, drawn from the stream (Seed, "datasets", source, "train" or
	// "test"), kept in the source's original order. Asking for more than
	// are available is an error.
	TrainSize, TestSize int
	// Normalize is "" or "auto" (the source's default: "unit" except for
	// the Gaussian mixture, "none"), "unit", "none" or "standardize".
	Normalize string
	// L2Ball > 0 bounds every example's Euclidean norm after
	// normalisation: x ← x·min(1, L2Ball/‖x‖), so examples already inside
	// the ball are unchanged (projection onto the ball).
	L2Ball float64
	// L2Exact with L2Ball > 0 rescales every example to norm exactly
	// L2Ball (x ← x·L2Ball/‖x‖) instead; an all-zero example is an error.
	L2Exact bool
	// Flatten reports Shape as [D] instead of the source's (C, H, W).
	Flatten bool
	// Seed drives the subsample and, for synthetic sources, the data itself.
	Seed uint64
	// HeldOut > 0 also returns Split.HeldOut: that many examples of the
	// training pool that are NOT in Train (after the class filter), a
	// uniform sample from the stream (Seed, "datasets", source,
	// "held_out"), normalised like Train. An auditor pre-trains its
	// worst-case initial model on them (Annamalai & De Cristofaro 2024), so
	// they must be disjoint from the training records. Asking for more than
	// the pool holds beyond Train is an error. (The JSON tag keeps the
	// encoding, and so every cache key, of options without it unchanged.)
	HeldOut int `json:",omitempty"`
}

// validate checks the options that do not depend on the data.
func (o *Options) validate() error {
	if o.HeldOut < 0 {
		return invalidf("held-out size %d must be ≥ 0 (0 = none)", o.HeldOut)
	}
	if o.TrainSize < 0 || o.TestSize < 0 {
		return invalidf("train size %d and test size %d must be ≥ 0 (0 = all)", o.TrainSize, o.TestSize)
	}
	switch o.Normalize {
	case "", NormalizeAuto, NormalizeUnit, NormalizeNone, NormalizeStandardize:
	default:
		return invalidf("normalize %q: want %q, %q, %q or %q",
			o.Normalize, NormalizeAuto, NormalizeUnit, NormalizeNone, NormalizeStandardize)
	}
	if o.L2Ball < 0 || math.IsNaN(o.L2Ball) || math.IsInf(o.L2Ball, 0) {
		return invalidf("l2 ball radius %v: want a finite value ≥ 0 (0 = off)", o.L2Ball)
	}
	if o.L2Exact && o.L2Ball == 0 {
		return invalidf("l2 exact scaling needs a radius > 0")
	}
	return nil
}

// classMap turns the class filter into old label → new label (−1 = drop)
// and the new class names.
func (o *Options) classMap(names []string) ([]int32, []string, error) {
	k := len(names)
	m := make([]int32, k)
	if len(o.Classes) == 0 {
		for i := range m {
			m[i] = int32(i)
		}
		return m, slices.Clone(names), nil
	}
	for i := range m {
		m[i] = -1
	}
	newNames := make([]string, len(o.Classes))
	for j, c := range o.Classes {
		if c < 0 || c >= k {
			return nil, nil, invalidf("class %d out of range: labels are 0..%d", c, k-1)
		}
		if m[c] >= 0 {
			return nil, nil, invalidf("class %d listed twice in the class filter %v", c, o.Classes)
		}
		m[c] = int32(j)
		newNames[j] = names[c]
	}
	return m, newNames, nil
}
