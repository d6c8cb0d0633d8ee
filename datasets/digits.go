package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/csv"
	"encoding/hex"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/dpaudit/dpaudit/rng"
)

// digitsGz is scikit-learn's digits.csv.gz, committed as is (see
// data/LICENSE.digits for provenance and the BSD-3-Clause license).
//
//go:embed data/digits.csv.gz
var digitsGz []byte

// digitsSHA256 pins the embedded file, so a botched edit of data/ cannot
// silently change the default data set.
const digitsSHA256 = "46abec6b12486ad9e51943373abcf22bbea1b5a51a1619b361570d8893f1464a"

// Digits facts (sklearn's descr/digits.rst: 1797 instances, 64 integer
// attributes in 0..16, 10 classes).
const (
	digitsRows     = 1797
	digitsFeatures = 64
	digitsMax      = 16
)

// parsedDigits is decoded once per process; it is 460 KB.
var parsedDigits = sync.OnceValues(parseDigits)

// Digits returns the whole embedded digits set (1797 × 64, raw values
// 0..16, Shape [1, 8, 8]). The caller owns the returned copy.
func Digits() (*Dataset, error) {
	ds, err := parsedDigits()
	if err != nil {
		return nil, err
	}
	c := *ds
	c.X = append([]float32(nil), ds.X...)
	c.Y = append([]int32(nil), ds.Y...)
	c.Shape = append([]int(nil), ds.Shape...)
	c.ClassNames = append([]string(nil), ds.ClassNames...)
	return &c, nil
}

func parseDigits() (*Dataset, error) {
	sum := sha256.Sum256(digitsGz)
	if got := hex.EncodeToString(sum[:]); got != digitsSHA256 {
		return nil, &ChecksumError{Path: "embedded data/digits.csv.gz", Want: digitsSHA256, Got: got,
			Hint: "restore datasets/data/digits.csv.gz from git"}
	}
	zr, err := gzip.NewReader(bytes.NewReader(digitsGz))
	if err != nil {
		return nil, formatf("digits: %v", err)
	}
	return parseDigitsCSV(zr)
}

// parseDigitsCSV reads rows of 64 features then the label, no header.
func parseDigitsCSV(r io.Reader) (*Dataset, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = digitsFeatures + 1
	cr.ReuseRecord = true
	x := make([]float32, 0, digitsRows*digitsFeatures)
	y := make([]int32, 0, digitsRows)
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formatf("digits: %v", err)
		}
		for j, field := range rec[:digitsFeatures] {
			v, err := strconv.ParseFloat(field, 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > digitsMax {
				return nil, formatf("digits: line %d, feature %d: %q is not a number in [0, %d]", line, j, field, digitsMax)
			}
			x = append(x, float32(v))
		}
		label, err := strconv.Atoi(rec[digitsFeatures])
		if err != nil || label < 0 || label > 9 {
			return nil, formatf("digits: line %d: label %q is not in 0..9", line, rec[digitsFeatures])
		}
		y = append(y, int32(label))
	}
	if len(y) != digitsRows {
		return nil, formatf("digits: %d rows, want %d", len(y), digitsRows)
	}
	names := make([]string, 10)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return &Dataset{
		X: x, Y: y, N: len(y), D: digitsFeatures,
		Shape: []int{1, 8, 8}, Classes: 10, ClassNames: names, Name: SourceDigits,
	}, nil
}

// digitsSource splits digits as documented on Source.TestFraction.
func digitsSource(frac float64) (*sourceData, error) {
	ds, err := parsedDigits()
	if err != nil {
		return nil, err
	}
	byClass := make([][]int, ds.Classes)
	for i, y := range ds.Y {
		byClass[y] = append(byClass[y], i)
	}
	isTest := make([]bool, ds.N)
	r := rng.New(0, "datasets", "digits", "split")
	for _, rows := range byClass {
		perm := r.Perm(len(rows))
		nTest := int(math.Round(frac * float64(len(rows))))
		for _, p := range perm[:nTest] {
			isTest[rows[p]] = true
		}
	}
	var train, test pool
	train.d, test.d = ds.D, ds.D
	for i := range ds.N {
		p := &train
		if isTest[i] {
			p = &test
		}
		p.f32 = append(p.f32, ds.Row(i)...)
		p.y = append(p.y, ds.Y[i])
		p.n++
	}
	if train.n == 0 || test.n == 0 {
		return nil, invalidf("digits: test fraction %v leaves %d train and %d test examples", frac, train.n, test.n)
	}
	return &sourceData{
		name: SourceDigits, train: train, test: test,
		shape: ds.Shape, classNames: ds.ClassNames,
		unitMax: digitsMax, defaultNormalize: NormalizeUnit,
	}, nil
}
