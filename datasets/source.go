package datasets

import (
	"math"
	"slices"
)

// Source names.
const (
	SourceDigits       = "digits"        // embedded sklearn digits, 8×8, 10 classes
	SourceMNIST        = "mnist"         // data dir, 28×28, 10 classes
	SourceFashionMNIST = "fashion-mnist" // data dir, 28×28, 10 classes
	SourceGaussian     = "gaussian"      // synthetic Gaussian mixture
	SourcePurchaseLike = "purchase-like" // synthetic, stands in for Purchase-100
	SourceAdultLike    = "adult-like"    // synthetic, stands in for UCI Adult
	// SourceFile ("file") is a user's own file: see FileSource.
)

// SourceNames lists every source Load accepts, in a stable order.
func SourceNames() []string {
	return []string{SourceDigits, SourceMNIST, SourceFashionMNIST, SourceGaussian, SourcePurchaseLike, SourceAdultLike, SourceFile}
}

// Defaults for Source fields left zero.
const (
	// DefaultTestFraction is the share of digits and of synthetic data held
	// out for testing, as in scikit-learn's train_test_split.
	DefaultTestFraction = 0.25
	// DefaultSyntheticN is the number of examples a synthetic source
	// generates (train + test).
	DefaultSyntheticN = 10000
	// DefaultGaussianDim is the Gaussian mixture's dimension without Shape.
	DefaultGaussianDim = 20
	// DefaultGaussianClasses and DefaultPurchaseClasses are the class counts
	// without NumClasses (Purchase-100 has 100; Nasr et al. use a 10-class
	// clustering of the same records).
	DefaultGaussianClasses = 2
	DefaultPurchaseClasses = 100
)

// Source names a data source and its own parameters. Fields that do not
// apply to the named source must be left zero (a set field that the source
// ignores would hide a mistake, so it is an error).
type Source struct {
	// Name is one of SourceNames (case-insensitive; "_" may replace "-").
	Name string
	// N is the number of examples a synthetic source generates, train and
	// test together; 0 = DefaultSyntheticN. Synthetic sources only.
	N int
	// TestFraction is the share held out as the test split, in (0, 1);
	// 0 = DefaultTestFraction. Digits and synthetic sources only (MNIST and
	// Fashion-MNIST have canonical 60,000/10,000 splits).
	//
	// Digits has no canonical split; ours is stratified and fixed: within
	// each class, in file order, a permutation drawn from the stream
	// (0, "datasets", "digits", "split") sends round(TestFraction × class
	// count) examples to the test split. It does not depend on
	// Options.Seed, so experiments with different seeds share a test set,
	// as with MNIST. At the default fraction: 1346 train, 451 test.
	//
	// Synthetic sources generate N i.i.d. examples (exchangeable, for the
	// class-balanced Gaussian mixture) from Options.Seed; the last
	// round(TestFraction × N) form the test split.
	TestFraction float64
	// Shape is the Gaussian mixture's per-example shape, e.g. [3, 32, 32]
	// to stand in for CIFAR-10; nil = [DefaultGaussianDim].
	Shape []int
	// NumClasses: Gaussian mixture (default 2) and Purchase-like (default
	// 100) only.
	NumClasses int
	// Separation is the Gaussian mixture's Euclidean distance between any
	// two class means in units of the noise standard deviation (exact when
	// NumClasses ≤ D). 0 is allowed and makes labels independent of the
	// features. Gaussian only.
	Separation float64
	// File is the user's file and how to read it; source "file" only,
	// which needs it. (omitempty keeps the encoding, and so every cache
	// key, of the other sources unchanged.)
	File *FileSource `json:",omitempty"`
}

// Load materialises the train/test split of src shaped by o. dataDir is
// where MNIST and Fashion-MNIST live (see DefaultDataDir for the layout);
// it is not touched for the other sources, and nothing is written
// anywhere. Errors for bad input wrap ErrInvalid, ErrNotFetched,
// ErrChecksum or ErrFormat (see IsBadInput).
func Load(src Source, o Options, dataDir string) (*Split, error) {
	// Check what can be checked before reading 55 MB of MNIST.
	if err := o.validate(); err != nil {
		return nil, err
	}
	sd, err := sourceDataFor(src, o.Seed, dataDir)
	if err != nil {
		return nil, err
	}
	split, err := apply(sd, o)
	if verr := sd.verified(); verr != nil {
		return nil, verr
	}
	return split, err
}

// sourceDataFor validates src and produces its pools.
func sourceDataFor(src Source, seed uint64, dataDir string) (*sourceData, error) {
	name := canonicalName(src.Name)
	if err := src.checkParams(name); err != nil {
		return nil, err
	}
	frac := src.TestFraction
	if frac == 0 {
		frac = DefaultTestFraction
	}
	n := src.N
	if n == 0 {
		n = DefaultSyntheticN
	}
	var (
		ds          *Dataset
		err         error
		unitMax     float64
		defaultNorm string
	)
	switch name {
	case SourceDigits:
		return digitsSource(frac)
	case SourceMNIST, SourceFashionMNIST:
		return loadIDXSource(fetchables[name], dataDir)
	case SourceFile:
		return fileSource(src.File)
	case SourceGaussian:
		shape := src.Shape
		if shape == nil {
			shape = []int{DefaultGaussianDim}
		}
		k := src.NumClasses
		if k == 0 {
			k = DefaultGaussianClasses
		}
		ds, err = GaussianMixture(n, shape, k, src.Separation, seed)
		unitMax, defaultNorm = 0, NormalizeNone // no fixed range
	case SourcePurchaseLike:
		k := src.NumClasses
		if k == 0 {
			k = DefaultPurchaseClasses
		}
		ds, err = PurchaseLike(n, k, seed)
		unitMax, defaultNorm = 1, NormalizeUnit // binary already
	case SourceAdultLike:
		ds, err = AdultLike(n, seed)
		unitMax, defaultNorm = 1, NormalizeUnit // scaled to [0,1] already
	default:
		return nil, invalidf("unknown source %q (known: %v)", src.Name, SourceNames())
	}
	if err != nil {
		return nil, err
	}
	// The last round(frac·N) generated rows are the test split.
	train, test := splitPool(ds, int(math.Round(frac*float64(ds.N))))
	return &sourceData{
		name: ds.Name, train: train, test: test,
		shape: ds.Shape, classNames: ds.ClassNames,
		unitMax: unitMax, defaultNormalize: defaultNorm,
	}, nil
}

// checkParams rejects parameters the named source does not take and
// values out of range.
func (s Source) checkParams(name string) error {
	if !slices.Contains(SourceNames(), name) {
		return invalidf("unknown source %q (known: %v)", s.Name, SourceNames())
	}
	synthetic := name == SourceGaussian || name == SourcePurchaseLike || name == SourceAdultLike
	type param struct {
		set     bool
		field   string
		allowed bool
	}
	for _, p := range []param{
		{s.N != 0, "N", synthetic},
		{s.TestFraction != 0, "TestFraction", synthetic || name == SourceDigits},
		{s.Shape != nil, "Shape", name == SourceGaussian},
		{s.NumClasses != 0, "NumClasses", name == SourceGaussian || name == SourcePurchaseLike},
		{s.Separation != 0, "Separation", name == SourceGaussian},
		{s.File != nil, "File", name == SourceFile},
	} {
		if p.set && !p.allowed {
			return invalidf("source %s takes no parameter %s", name, p.field)
		}
	}
	if name == SourceFile && s.File == nil {
		return invalidf("source file needs its File (path, format, label)")
	}
	if s.N < 0 {
		return invalidf("%s: N %d must be > 0", name, s.N)
	}
	if s.TestFraction < 0 || s.TestFraction >= 1 || math.IsNaN(s.TestFraction) {
		return invalidf("%s: test fraction %v must be in (0, 1)", name, s.TestFraction)
	}
	return nil
}
