package datasets

import (
	"slices"
	"testing"
)

// The embedded file: 1797 rows, values in 0..16 (sklearn descr/digits.rst)
// and per-class counts 178, 182, 177, 183, 181, 182, 181, 179, 174, 180
// (confirmed with `zcat digits.csv.gz | cut -d, -f65 |
// sort | uniq -c`). Exact integers, no tolerance.
func TestDigitsEmbedded(t *testing.T) {
	ds, err := Digits()
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 1797 || ds.D != 64 || len(ds.X) != 1797*64 || !slices.Equal(ds.Shape, []int{1, 8, 8}) {
		t.Fatalf("got N=%d D=%d len(X)=%d shape %v", ds.N, ds.D, len(ds.X), ds.Shape)
	}
	want := []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}
	if got := ds.ClassCounts(); !slices.Equal(got, want) {
		t.Fatalf("class counts %v, want %v", got, want)
	}
	lo, hi := slices.Min(ds.X), slices.Max(ds.X)
	if lo != 0 || hi != 16 {
		t.Fatalf("values span [%v, %v], want [0, 16]", lo, hi)
	}
	// First row of digits.csv.gz (`zcat | head -1`), label 0.
	first := []float32{0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0}
	if !slices.Equal(ds.Row(0)[:16], first) || ds.Y[0] != 0 {
		t.Fatalf("row 0 starts %v label %d, want %v label 0", ds.Row(0)[:16], ds.Y[0], first)
	}
	// Callers get a copy: mutating it must not change the next call.
	ds.X[0] = 99
	again, _ := Digits()
	if again.X[0] != 0 {
		t.Fatal("Digits returned shared memory")
	}
}

// The fixed stratified split: per class round(0.25·count) test examples,
// i.e. 45+46+44+46+45+46+45+45+44+45 = 451 test and 1346 train (counts
// above; math.Round rounds halves away from zero: 44.5→45, 43.5→44).
func TestDigitsSplit(t *testing.T) {
	s, err := Load(Source{Name: "digits"}, Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	wantTest := []int{45, 46, 44, 46, 45, 46, 45, 45, 44, 45}
	if got := s.Test.ClassCounts(); !slices.Equal(got, wantTest) {
		t.Fatalf("test class counts %v, want %v", got, wantTest)
	}
	if s.Train.N != 1346 || s.Test.N != 451 {
		t.Fatalf("train %d test %d, want 1346 / 451", s.Train.N, s.Test.N)
	}
	// Default normalisation is "unit": raw 0..16 divided by 16.
	if lo, hi := slices.Min(s.Train.X), slices.Max(s.Train.X); lo != 0 || hi != 1 {
		t.Fatalf("unit-normalised values span [%v, %v], want [0, 1]", lo, hi)
	}
	// The split does not depend on the options' seed.
	s2, err := Load(Source{Name: "digits"}, Options{Seed: 12345}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Test.X, s2.Test.X) || !slices.Equal(s.Train.Y, s2.Train.Y) {
		t.Fatal("digits split changed with Options.Seed")
	}
	// Train and test partition the file: their rows together are the
	// file's rows (compare sums of all values as a cheap multiset check).
	all, _ := Digits()
	var sumAll, sumSplit float64
	for _, v := range all.X {
		sumAll += float64(v)
	}
	for _, v := range append(slices.Clone(s.Train.X), s.Test.X...) {
		sumSplit += float64(v) * 16
	}
	if sumAll != sumSplit {
		t.Fatalf("train+test value sum %v, file %v", sumSplit, sumAll)
	}
	// A custom fraction: round(0.5·count) per class =
	// 89+91+89+92+91+91+91+90+87+90 = 901.
	s3, err := Load(Source{Name: "digits", TestFraction: 0.5}, Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s3.Test.N != 901 || s3.Train.N != 896 {
		t.Fatalf("test fraction 0.5 gave %d / %d, want 896 / 901", s3.Train.N, s3.Test.N)
	}
}
