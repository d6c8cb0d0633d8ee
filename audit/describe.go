package audit

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Descriptive statistics of repeated measurements (training runs, GLM
// releases, repeats of an audit): the median, the mean with its sample
// standard deviation, and the Student-t interval of a mean. They describe
// and bracket; none of them tests a privacy claim.

// Median is the median of xs (the mean of the two middle values for an
// even count); NaN if xs is empty or holds a NaN.
func Median(xs []float64) float64 {
	if len(xs) == 0 || slices.ContainsFunc(xs, math.IsNaN) {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MeanStd is the mean and the sample standard deviation (n − 1 in the
// denominator; 0 for one value); NaN, NaN for none.
func MeanStd(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	if len(x) < 2 {
		return m, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-1))
}

// TInterval is the two-sided Student-t confidence interval of a mean from
// n ≥ 2 measurements with sample mean and standard deviation sd:
// mean ± t_{(1+confidence)/2, n−1}·sd/√n. It assumes the measurements are
// independent and roughly normal (or n large). NaN, NaN for n < 2.
func TInterval(mean, sd float64, n int, confidence float64) (lo, hi float64) {
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.5 + confidence/2)
	half := t * sd / math.Sqrt(float64(n))
	return mean - half, mean + half
}

// FractionAtLeast is the fraction of measurements x[i] that respect their
// lower bounds, x[i] ≥ bound[i] (NaN for none): how often, e.g., a
// reconstruction's MSE stays above its Cramér–Rao bound.
func FractionAtLeast(x, bound []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	k := 0
	for i, v := range x {
		if v >= bound[i] {
			k++
		}
	}
	return float64(k) / float64(len(x))
}
