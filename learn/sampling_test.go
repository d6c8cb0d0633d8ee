package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestPoissonBatchSizeDistribution: with independent inclusion, the batch
// size is Binomial(N, q): mean qN, variance qN(1−q), and every record is
// included in a Binomial(T, q) number of the T steps. Checked over
// T = 20,000 steps with N = 1,000, q = 0.05 (mean 50, variance 47.5).
// Tolerances: 5 standard errors — SE(mean) = √(47.5/T) = 0.049,
// SE(variance) ≈ 47.5·√(2/T) = 0.47; the per-record counts give a χ²
// statistic with N degrees of freedom, |χ² − N| ≤ 5·√(2N) = 224.
func TestPoissonBatchSizeDistribution(t *testing.T) {
	const n, q, T = 1000, 0.05, 20000
	s := newPoissonSampler(rng.New(1, "poisson-test"), n, q)
	counts := make([]int, n)
	var sum, sumSq float64
	var batch []int
	for step := 0; step < T; step++ {
		batch = s.next(batch)
		for k, i := range batch {
			if i < 0 || i >= n || (k > 0 && i <= batch[k-1]) {
				t.Fatalf("step %d: batch %v is not strictly increasing within [0, %d)", step, batch, n)
			}
			counts[i]++
		}
		b := float64(len(batch))
		sum += b
		sumSq += b * b
	}
	mean := sum / T
	variance := sumSq/T - mean*mean
	wantMean, wantVar := q*n, q*n*(1-q)
	if math.Abs(mean-wantMean) > 5*math.Sqrt(wantVar/T) {
		t.Errorf("mean batch size %.4f, want %.4f", mean, wantMean)
	}
	if math.Abs(variance-wantVar) > 5*wantVar*math.Sqrt(2.0/T) {
		t.Errorf("batch size variance %.4f, want %.4f", variance, wantVar)
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - T*q
		chi2 += d * d / (T * q * (1 - q))
	}
	if math.Abs(chi2-n) > 5*math.Sqrt(2*n) {
		t.Errorf("per-record inclusion χ² = %.1f, want %d ± %.0f", chi2, n, 5*math.Sqrt(2*n))
	}
	t.Logf("mean %.3f (want %.1f), variance %.3f (want %.2f), χ² %.1f (df %d)", mean, wantMean, variance, wantVar, chi2, n)
}

// TestPoissonSamplerEdgeCases: q = 1 takes every record in order; a tiny q
// gives mostly empty batches whose sizes still average qN (T = 200,000,
// qN = 0.01, so the expected total is 2,000 ± 5·√2000 ≈ 224).
func TestPoissonSamplerEdgeCases(t *testing.T) {
	all := newPoissonSampler(rng.New(2, "edge"), 7, 1).next(nil)
	if len(all) != 7 || all[0] != 0 || all[6] != 6 {
		t.Errorf("q = 1 batch %v, want 0…6", all)
	}
	s := newPoissonSampler(rng.New(3, "edge"), 100, 1e-4)
	total := 0
	var batch []int
	for step := 0; step < 200000; step++ {
		batch = s.next(batch)
		total += len(batch)
	}
	if math.Abs(float64(total)-2000) > 5*math.Sqrt(2000) {
		t.Errorf("total included %d over 200,000 steps, want 2000 ± 224", total)
	}
}

// TestShuffleBatches: fixed-size batches that cover each epoch without
// repetition (N = 10, B = 3: three batches per epoch, one record dropped).
func TestShuffleBatches(t *testing.T) {
	s := newShuffleSampler(rng.New(4, "shuffle"), 10, 3)
	for epoch := 0; epoch < 50; epoch++ {
		seen := map[int]bool{}
		for k := 0; k < 3; k++ {
			b := s.next(nil)
			if len(b) != 3 {
				t.Fatalf("batch size %d, want 3", len(b))
			}
			for _, i := range b {
				if seen[i] || i < 0 || i >= 10 {
					t.Fatalf("epoch %d: record %d repeated or out of range", epoch, i)
				}
				seen[i] = true
			}
		}
	}
}
