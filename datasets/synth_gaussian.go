package datasets

import (
	"math"
	"slices"
	"strconv"

	"github.com/dpaudit/dpaudit/rng"
)

// maxSyntheticValues caps n × D for generated data (2^28 float32 = 1 GiB).
const maxSyntheticValues = 1 << 28

// GaussianMixture generates n examples x = μ_y + z with z ~ N(0, I_D),
// D = the product of shape, labels y in 0..classes-1.
//
// Labels are exactly balanced (class counts differ by at most one) and in
// random order. The class means are μ_k = (separation/√2)·q_k: when
// classes ≤ D the q_k are random orthonormal vectors, so every pair of
// means is exactly `separation` apart and, for two classes, the Bayes
// error is Φ(−separation/2); when classes > D they are independent random
// unit vectors and the distances only approximate `separation`.
//
// It stands in for data sets that cannot be obtained here; with shape
// [3, 32, 32] and 10 classes it has CIFAR-10's shape (not its content).
// Means, labels and noise come from independent streams of seed, so the
// means do not change with n.
func GaussianMixture(n int, shape []int, classes int, separation float64, seed uint64) (*Dataset, error) {
	d, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if err := checkSynthetic(SourceGaussian, n, d, classes); err != nil {
		return nil, err
	}
	if separation < 0 || math.IsNaN(separation) || math.IsInf(separation, 0) {
		return nil, invalidf("gaussian: separation %v must be finite and ≥ 0", separation)
	}
	means := gaussianMeans(d, classes, separation, seed)
	y := balancedLabels(n, classes, rng.New(seed, "datasets", SourceGaussian, "labels"))
	noise := rng.New(seed, "datasets", SourceGaussian, "noise")
	x := make([]float32, n*d)
	for i := range n {
		mu := means[int(y[i])*d : (int(y[i])+1)*d]
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = float32(mu[j] + noise.NormFloat64())
		}
	}
	return &Dataset{
		X: x, Y: y, N: n, D: d, Shape: slices.Clone(shape),
		Classes: classes, ClassNames: numberedNames(classes), Name: SourceGaussian,
	}, nil
}

// gaussianMeans returns classes × d means, row-major.
func gaussianMeans(d, classes int, separation float64, seed uint64) []float64 {
	r := rng.New(seed, "datasets", SourceGaussian, "means")
	q := make([]float64, classes*d)
	for k := range classes {
		v := q[k*d : (k+1)*d]
		for {
			for j := range v {
				v[j] = r.NormFloat64()
			}
			if k < d {
				// Gram–Schmidt against the previous directions (done twice
				// for numerical orthogonality).
				for range 2 {
					for p := range k {
						u := q[p*d : (p+1)*d]
						dot := 0.0
						for j := range v {
							dot += v[j] * u[j]
						}
						for j := range v {
							v[j] -= dot * u[j]
						}
					}
				}
			}
			norm := 0.0
			for _, x := range v {
				norm += x * x
			}
			norm = math.Sqrt(norm)
			if norm > 1e-8 {
				for j := range v {
					v[j] /= norm
				}
				break
			}
		}
	}
	// Scale last: Gram–Schmidt above needs the unit vectors.
	for i := range q {
		q[i] *= separation / math.Sqrt2
	}
	return q
}

// balancedLabels returns n labels with counts differing by at most one, in
// a uniformly random order.
func balancedLabels(n, classes int, r interface{ IntN(int) int }) []int32 {
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(i % classes)
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		y[i], y[j] = y[j], y[i]
	}
	return y
}

// checkShape validates a per-example shape and returns its product.
func checkShape(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, invalidf("shape is empty")
	}
	d := 1
	for _, s := range shape {
		if s <= 0 {
			return 0, invalidf("shape %v: every dimension must be > 0", shape)
		}
		if d > maxSyntheticValues/s {
			return 0, invalidf("shape %v is too large", shape)
		}
		d *= s
	}
	return d, nil
}

// checkSynthetic validates the common generator parameters.
func checkSynthetic(name string, n, d, classes int) error {
	if n <= 0 {
		return invalidf("%s: n %d must be > 0", name, n)
	}
	if classes < 2 {
		return invalidf("%s: %d classes, need at least 2", name, classes)
	}
	if n > maxSyntheticValues/d {
		return invalidf("%s: %d × %d values exceed the limit of %d", name, n, d, maxSyntheticValues)
	}
	return nil
}

// numberedNames returns "0", "1", … .
func numberedNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}
