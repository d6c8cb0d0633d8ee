package datasets

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func loadDigits(t *testing.T, o Options) *Split {
	t.Helper()
	s, err := Load(Source{Name: SourceDigits}, o, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handmade builds a float source from literal rows (3 classes, D = 2).
func handmade(trainX [][]float32, trainY []int32, testX [][]float32, testY []int32) *sourceData {
	flat := func(rows [][]float32) []float32 { return slices.Concat(rows...) }
	return &sourceData{
		name:             "handmade",
		train:            pool{n: len(trainY), d: 2, f32: flat(trainX), y: trainY},
		test:             pool{n: len(testY), d: 2, f32: flat(testX), y: testY},
		shape:            []int{2},
		classNames:       []string{"a", "b", "c"},
		unitMax:          1,
		defaultNormalize: NormalizeUnit,
	}
}

// Classes [3, 1] keeps digits 3 and 1, in the file's order, relabelled 3→0
// and 1→1. Counts: 183−46 = 137 threes and 182−46 = 136 ones in the train
// split (class counts and test shares from TestDigitsSplit).
func TestClassFilterRemapsInGivenOrder(t *testing.T) {
	full := loadDigits(t, Options{})
	s := loadDigits(t, Options{Classes: []int{3, 1}})
	if s.Train.Classes != 2 || !slices.Equal(s.Train.ClassNames, []string{"3", "1"}) {
		t.Fatalf("classes %d names %v, want 2 [3 1]", s.Train.Classes, s.Train.ClassNames)
	}
	if got := s.Train.ClassCounts(); !slices.Equal(got, []int{137, 136}) {
		t.Fatalf("train counts %v, want [137 136]", got)
	}
	r := 0
	for i := range full.Train.N {
		old := full.Train.Y[i]
		if old != 3 && old != 1 {
			continue
		}
		want := map[int32]int32{3: 0, 1: 1}[old]
		if s.Train.Y[r] != want || !slices.Equal(s.Train.Row(r), full.Train.Row(i)) {
			t.Fatalf("filtered row %d: label %d, want %d (or different pixels)", r, s.Train.Y[r], want)
		}
		r++
	}
	if r != s.Train.N {
		t.Fatalf("filtered %d rows, expected %d", s.Train.N, r)
	}
}

func TestClassFilterErrors(t *testing.T) {
	for _, classes := range [][]int{{10}, {-1}, {1, 1}} {
		_, err := Load(Source{Name: SourceDigits}, Options{Classes: classes}, "")
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("classes %v: got %v, want ErrInvalid", classes, err)
		}
	}
	// Class 2 exists (it has a name) but has no examples.
	sd := handmade([][]float32{{1, 0}, {0, 1}}, []int32{0, 1}, [][]float32{{1, 1}}, []int32{0})
	_, err := apply(sd, Options{Classes: []int{2}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "leaves no train examples") {
		t.Fatalf("empty filter: got %v", err)
	}
	_, err = apply(sd, Options{Classes: []int{1}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "leaves no test examples") {
		t.Fatalf("filter emptying only the test split: got %v", err)
	}
}

func TestSubsample(t *testing.T) {
	full := loadDigits(t, Options{})
	a := loadDigits(t, Options{TrainSize: 100, TestSize: 50, Seed: 7})
	b := loadDigits(t, Options{TrainSize: 100, TestSize: 50, Seed: 7})
	c := loadDigits(t, Options{TrainSize: 100, TestSize: 50, Seed: 8})
	if a.Train.N != 100 || a.Test.N != 50 {
		t.Fatalf("sizes %d/%d, want 100/50", a.Train.N, a.Test.N)
	}
	if !slices.Equal(a.Train.X, b.Train.X) || !slices.Equal(a.Test.Y, b.Test.Y) {
		t.Fatal("same seed gave different subsamples")
	}
	if slices.Equal(a.Train.X, c.Train.X) {
		t.Fatal("different seeds gave the same subsample")
	}
	// Every kept row is a distinct row of the full train split, in order.
	j := 0
	for i := range a.Train.N {
		for j < full.Train.N && !slices.Equal(full.Train.Row(j), a.Train.Row(i)) {
			j++
		}
		if j == full.Train.N {
			t.Fatalf("subsample row %d is not a later row of the full split", i)
		}
		j++
	}
	_, err := Load(Source{Name: SourceDigits}, Options{TrainSize: 1347}, "")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "1346") {
		t.Fatalf("oversized train: got %v", err)
	}
	_, err = Load(Source{Name: SourceDigits}, Options{Classes: []int{0}, TestSize: 46}, "")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "after the class filter") {
		t.Fatalf("oversized filtered test: got %v", err)
	}
	if _, err := Load(Source{Name: SourceDigits}, Options{TrainSize: -1}, ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative size: got %v", err)
	}
}

func TestNormalize(t *testing.T) {
	auto := loadDigits(t, Options{Normalize: NormalizeAuto})
	if hi := slices.Max(auto.Train.X); hi != 1 {
		t.Fatalf("auto on digits: max %v, want 1 (unit)", hi)
	}
	raw := loadDigits(t, Options{Normalize: NormalizeNone})
	if hi := slices.Max(raw.Train.X); hi != 16 {
		t.Fatalf("none: max %v, want 16", hi)
	}
	st := loadDigits(t, Options{Normalize: NormalizeStandardize})
	constant := 0
	for j := range st.Train.D {
		var sum, sq float64
		for i := range st.Train.N {
			v := float64(st.Train.Row(i)[j])
			sum += v
			sq += v * v
		}
		n := float64(st.Train.N)
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		// Standardised train features have mean 0 and std 1, or std 0
		// for features constant on train (the always-blank corner
		// pixel), up to float32 rounding: tolerance 1e-5.
		if sd < 1e-5 {
			constant++
		} else if math.Abs(mean) > 1e-5 || math.Abs(sd-1) > 1e-5 {
			t.Fatalf("feature %d: mean %v std %v after standardising", j, mean, sd)
		}
	}
	if constant == 0 || constant > 4 {
		t.Fatalf("%d constant features; digits has a few always-blank pixels, not none or many", constant)
	}
	if _, err := Load(Source{Name: SourceDigits}, Options{Normalize: "minmax"}, ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown mode: got %v", err)
	}
	_, err := Load(Source{Name: SourceGaussian, Separation: 1}, Options{Normalize: NormalizeUnit}, "")
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("unit on gaussian: got %v", err)
	}
}

// ℓ2 scaling: ball mode leaves short examples alone and shortens long
// ones to exactly r; exact mode puts every example on the sphere.
// Tolerance: float32 rounding, relative 1e-6.
func TestL2Scaling(t *testing.T) {
	plain := loadDigits(t, Options{})
	norms := rowNorms(plain.Train)
	r := sortedMedian(norms)
	ball := loadDigits(t, Options{L2Ball: r})
	for i, n := range rowNorms(ball.Train) {
		if norms[i] <= r {
			if !slices.Equal(ball.Train.Row(i), plain.Train.Row(i)) {
				t.Fatalf("row %d (norm %v ≤ %v) was changed", i, norms[i], r)
			}
		} else if math.Abs(n-r) > 1e-6*r {
			t.Fatalf("row %d: norm %v after projection, want %v", i, n, r)
		}
	}
	exact := loadDigits(t, Options{L2Ball: 2, L2Exact: true})
	for i, n := range append(rowNorms(exact.Train), rowNorms(exact.Test)...) {
		if math.Abs(n-2) > 2e-6 {
			t.Fatalf("row %d: norm %v, want exactly 2", i, n)
		}
	}
	sd := handmade([][]float32{{0, 0}, {3, 4}}, []int32{0, 1}, [][]float32{{1, 0}}, []int32{0})
	if _, err := apply(sd, Options{L2Ball: 1, L2Exact: true}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero row with exact scaling: got %v", err)
	}
	for _, o := range []Options{{L2Ball: -1}, {L2Ball: math.NaN()}, {L2Exact: true}} {
		if _, err := apply(sd, o); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%+v: got %v, want ErrInvalid", o, err)
		}
	}
}

func rowNorms(ds *Dataset) []float64 {
	out := make([]float64, ds.N)
	for i := range out {
		for _, v := range ds.Row(i) {
			out[i] += float64(v) * float64(v)
		}
		out[i] = math.Sqrt(out[i])
	}
	return out
}

func sortedMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func TestFlatten(t *testing.T) {
	img := loadDigits(t, Options{})
	flat := loadDigits(t, Options{Flatten: true})
	if !slices.Equal(img.Train.Shape, []int{1, 8, 8}) || !slices.Equal(flat.Train.Shape, []int{64}) ||
		!slices.Equal(flat.Test.Shape, []int{64}) || !slices.Equal(img.Train.X, flat.Train.X) {
		t.Fatalf("shapes %v / %v", img.Train.Shape, flat.Train.Shape)
	}
}

// NaN and Inf in float data are refused with ErrFormat, wherever they are.
func TestNonFiniteDataRefused(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(-1))
	for _, sd := range []*sourceData{
		handmade([][]float32{{0, nan}}, []int32{0}, [][]float32{{1, 0}}, []int32{0}),
		handmade([][]float32{{0, 1}}, []int32{0}, [][]float32{{inf, 0}}, []int32{0}),
	} {
		_, err := apply(sd, Options{L2Ball: 1})
		if !errors.Is(err, ErrFormat) || !IsBadInput(err) || !strings.Contains(err.Error(), "split: value") {
			t.Fatalf("got %v, want ErrFormat", err)
		}
		t.Log(err)
	}
}

func TestSourceParamErrors(t *testing.T) {
	for _, src := range []Source{
		{Name: "cifar10"},
		{Name: SourceMNIST, Separation: 2},
		{Name: SourceMNIST, TestFraction: 0.1},
		{Name: SourceDigits, N: 10},
		{Name: SourceAdultLike, NumClasses: 3},
		{Name: SourceDigits, TestFraction: 1},
		{Name: SourceGaussian, N: -5},
		{Name: SourceGaussian, Separation: -1},
		{Name: SourceGaussian, Shape: []int{3, 0}},
		{Name: SourceGaussian, NumClasses: 1},
	} {
		_, err := Load(src, Options{}, t.TempDir())
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", src, err)
		}
	}
	// Names are case- and underscore-insensitive.
	if _, err := Load(Source{Name: "Purchase_Like", N: 200, NumClasses: 10}, Options{}, ""); err != nil {
		t.Fatal(err)
	}
}
