package datasets

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dpaudit/dpaudit/rng"
)

// AdultPositiveRate is the share of Adult records earning >50K: 11,687 of
// the 48,842 records of adult.data + adult.test (UCI; 23.93%). The
// Adult-like generator is calibrated to it.
const AdultPositiveRate = 11687.0 / 48842.0

// AdultLike generates n census-like records standing in for UCI Adult,
// which cannot be obtained here: 104 features in [0,1] (see
// AdultFeatureNames: 5 min-max scaled numeric attributes, then one-hot
// blocks) and a binary label, 1 = ">50K".
//
// Categorical attributes follow Adult's marginal frequencies, with the
// couplings that matter most (husband ⇒ male and married, wife ⇒ female,
// own children are young, education shifts occupation). The label is
// Bernoulli(sigmoid(score + b)), where the score adds hand-set effects of
// marriage, education, age, hours, sex, occupation, workclass and capital
// gains/losses, and the intercept b is calibrated once (on a fixed
// reference sample) so that the positive rate is AdultPositiveRate in
// expectation. The records are i.i.d. given the seed; they are
// "realistic-ish", not a model of the census.
func AdultLike(n int, seed uint64) (*Dataset, error) {
	const d = AdultFeatures
	if err := checkSynthetic(SourceAdultLike, n, d, 2); err != nil {
		return nil, err
	}
	b := adultIntercept()
	r := rng.New(seed, "datasets", SourceAdultLike, "records")
	x := make([]float32, n*d)
	y := make([]int32, n)
	for i := range n {
		rec := sampleAdult(r)
		if r.Float64() < sigmoid(rec.score()+b) {
			y[i] = 1
		}
		rec.encode(x[i*d : (i+1)*d])
	}
	return &Dataset{
		X: x, Y: y, N: n, D: d, Shape: []int{d},
		Classes: 2, ClassNames: []string{"<=50K", ">50K"}, Name: SourceAdultLike,
	}, nil
}

// adultRecord holds one generated person: numeric attributes and the
// index of the value of every one-hot attribute (in adultOneHot order).
type adultRecord struct {
	age, eduNum, gain, loss, hours float64
	cat                            [8]int
}

// Indices into adultRecord.cat.
const (
	catWorkclass = iota
	catEducation
	catMarital
	catOccupation
	catRelationship
	catRace
	catSex
	catCountry
)

func sampleAdult(r *rand.Rand) adultRecord {
	var rec adultRecord
	rec.cat[catMarital] = sampleWeighted(r, adultMarital.weights)
	marital := adultMarital.values[rec.cat[catMarital]]
	married := marital == "Married-civ-spouse" || marital == "Married-AF-spouse"
	// Relationship given marriage: among married-civ-spouse records of
	// adult.data, 13,193 husbands and 1,568 wives out of 14,976.
	var rel string
	if married {
		switch u := r.Float64(); {
		case u < 0.881:
			rel = "Husband"
		case u < 0.986:
			rel = "Wife"
		default:
			rel = "Other-relative"
		}
	} else {
		rel = []string{"Not-in-family", "Own-child", "Unmarried", "Other-relative"}[sampleWeighted(r, []float64{8305, 5068, 3446, 981})]
	}
	rec.cat[catRelationship] = indexOf(adultRelationship.values, rel)
	// Sex: husbands are male, wives female; the remaining men (21,790 −
	// 13,193) share the remaining 17,800 records.
	male := rel == "Husband" || (rel != "Wife" && r.Float64() < 8597.0/17800.0)
	rec.cat[catSex] = 1
	if male {
		rec.cat[catSex] = 0
	}
	switch {
	case rel == "Own-child":
		rec.age = 17 + gammaInt(r, 2, 3.5)
	case marital == "Never-married":
		rec.age = 19 + gammaInt(r, 2, 5)
	case marital == "Widowed":
		rec.age = 45 + gammaInt(r, 3, 6)
	default:
		rec.age = 22 + gammaInt(r, 4, 5)
	}
	rec.age = math.Round(min(rec.age, 90))
	rec.cat[catEducation] = sampleWeighted(r, adultEducation.weights)
	rec.eduNum = float64(rec.cat[catEducation] + 1) // Preschool = 1 … Doctorate = 16
	rec.cat[catOccupation] = sampleWeighted(r, occupationWeights(rec.eduNum))
	rec.cat[catWorkclass] = sampleWeighted(r, adultWorkclass.weights)
	rec.cat[catRace] = sampleWeighted(r, adultRace.weights)
	rec.cat[catCountry] = sampleWeighted(r, adultCountry.weights)
	hours := 40 + 11*r.NormFloat64()
	if male {
		hours += 3
	}
	if rel == "Own-child" {
		hours -= 5
	}
	rec.hours = math.Round(math.Max(1, math.Min(99, hours)))
	// Capital gains and losses are rare and exclusive in adult.data
	// (2,712 and 1,519 nonzero rows of 32,561).
	switch u := r.Float64(); {
	case u < 2712.0/32561:
		rec.gain = math.Round(math.Max(114, math.Min(99999, math.Exp(8.4+0.9*r.NormFloat64()))))
	case u < (2712.0+1519.0)/32561:
		rec.loss = math.Round(math.Max(155, math.Min(4356, 1870+360*r.NormFloat64())))
	}
	return rec
}

// occupationWeights tilts the occupation marginal by education.
func occupationWeights(eduNum float64) []float64 {
	w := adultOccupation.weights
	switch {
	case eduNum >= 13: // Bachelors and above
		w = append([]float64(nil), w...)
		w[indexOf(adultOccupation.values, "Prof-specialty")] *= 3
		w[indexOf(adultOccupation.values, "Exec-managerial")] *= 2
	case eduNum <= 8: // no high-school diploma
		w = append([]float64(nil), w...)
		w[indexOf(adultOccupation.values, "Prof-specialty")] *= 0.2
		for _, v := range []string{"Handlers-cleaners", "Other-service", "Machine-op-inspct"} {
			w[indexOf(adultOccupation.values, v)] *= 2
		}
	}
	return w
}

// score is the log-odds of ">50K" without the intercept.
func (rec *adultRecord) score() float64 {
	s := 0.0
	marital := adultMarital.values[rec.cat[catMarital]]
	if marital == "Married-civ-spouse" || marital == "Married-AF-spouse" {
		s += 2
	}
	s += 0.32 * (rec.eduNum - 10)
	a := rec.age - 40
	s += 0.04*a - 0.0015*a*a
	s += 0.03 * (rec.hours - 40)
	if rec.cat[catSex] == 0 {
		s += 0.3
	}
	s += adultOccupationEffect[adultOccupation.values[rec.cat[catOccupation]]]
	s += adultWorkclassEffect[adultWorkclass.values[rec.cat[catWorkclass]]]
	if rec.gain >= 7000 {
		s += 2.5
	}
	if rec.loss >= 1800 {
		s += 1.2
	}
	return s
}

// encode writes the 104 features of rec into row.
func (rec *adultRecord) encode(row []float32) {
	clear(row)
	for j, v := range []float64{rec.age, rec.eduNum, rec.gain, rec.loss, rec.hours} {
		c := adultContinuous[j]
		row[j] = float32((v - c.min) / (c.max - c.min))
	}
	off := len(adultContinuous)
	for k, cat := range adultOneHot {
		row[off+rec.cat[k]] = 1
		off += len(cat.values)
	}
}

// adultIntercept calibrates b so that the mean of sigmoid(score + b) over
// a fixed reference sample of 50,000 records equals AdultPositiveRate. It
// is computed once and does not depend on the caller's seed or n.
var adultIntercept = sync.OnceValue(func() float64 {
	r := rng.New(0, "datasets", SourceAdultLike, "calibration")
	scores := make([]float64, 50000)
	for i := range scores {
		rec := sampleAdult(r)
		scores[i] = rec.score()
	}
	lo, hi := -30.0, 30.0
	for range 60 {
		mid := (lo + hi) / 2
		mean := 0.0
		for _, s := range scores {
			mean += sigmoid(s + mid)
		}
		if mean/float64(len(scores)) < AdultPositiveRate {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
})

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// sampleWeighted draws an index with probability proportional to w.
func sampleWeighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, v := range w {
		total += v
	}
	u := r.Float64() * total
	for i, v := range w {
		if u < v {
			return i
		}
		u -= v
	}
	return len(w) - 1
}

// gammaInt draws a Gamma(shape, scale) variate for integer shape as a sum
// of exponentials.
func gammaInt(r *rand.Rand, shape int, scale float64) float64 {
	s := 0.0
	for range shape {
		s += r.ExpFloat64()
	}
	return s * scale
}

func indexOf(values []string, v string) int {
	for i, s := range values {
		if s == v {
			return i
		}
	}
	panic("datasets: unknown category value " + v) // programming error in the tables above
}
