package learn

import (
	"math"
	"math/rand/v2"
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
	s := newPoissonSampler(rand.NewChaCha8(rng.Key(1, "poisson-test")), n, q)
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
	all := newPoissonSampler(rand.NewChaCha8(rng.Key(2, "edge")), 7, 1).next(nil)
	if len(all) != 7 || all[0] != 0 || all[6] != 6 {
		t.Errorf("q = 1 batch %v, want 0…6", all)
	}
	s := newPoissonSampler(rand.NewChaCha8(rng.Key(3, "edge")), 100, 1e-4)
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

// TestPoissonGapLaw: the gaps between included records follow the
// geometric law P(gap = k) = (1−q)^k·q. 10⁶ gaps at q = 0.2, binned
// k = 0…39 and a tail bin (expected counts ≥ 33), give a χ² statistic
// with 40 degrees of freedom: |χ² − 40| ≤ 5·√80 ≈ 45. (Checked to fail:
// with ln(1 − 1.05q) in place of ln(1 − q), χ² = 3004.)
func TestPoissonGapLaw(t *testing.T) {
	const q, draws, bins = 0.2, 1000000, 40
	s := newPoissonSampler(rand.NewChaCha8(rng.Key(5, "gap-law")), 1<<30, q)
	var count [bins + 1]float64
	for i := 0; i < draws; i++ {
		k := s.gap()
		if k < 0 || k != math.Floor(k) {
			t.Fatalf("gap %v is not a non-negative integer", k)
		}
		count[min(int(k), bins)]++
	}
	chi2 := 0.0
	for k := 0; k <= bins; k++ {
		p := math.Pow(1-q, float64(k)) * q
		if k == bins {
			p = math.Pow(1-q, bins) // P(gap ≥ bins)
		}
		d := count[k] - draws*p
		chi2 += d * d / (draws * p)
	}
	if math.Abs(chi2-bins) > 5*math.Sqrt(2*bins) {
		t.Errorf("gap χ² = %.1f with %d degrees of freedom", chi2, bins)
	}
	t.Logf("gap χ² = %.1f (df %d)", chi2, bins)
}

// TestPoissonGapLogMatchesLog1p: the sampler's ⌊ln(1−U)/ln(1−q)⌋ with
// math.Log equals the math.Log1p(−U) form it replaced on 10⁶ uniforms at
// each of q = 0.01, 0.2, 0.9: the random stream, hence every cached
// result, is unchanged unless a quotient lies within an ulp of an integer.
func TestPoissonGapLogMatchesLog1p(t *testing.T) {
	for _, q := range []float64{0.01, 0.2, 0.9} {
		s := newPoissonSampler(rand.NewChaCha8(rng.Key(6, "gap-log")), 1<<30, q)
		ref := rand.NewChaCha8(rng.Key(6, "gap-log"))
		diff := 0
		for i := 0; i < 1000000; i++ {
			got := s.gap()
			u := float64(ref.Uint64()<<11>>11) / (1 << 53)
			if want := math.Floor(math.Log1p(-u) / math.Log1p(-q)); got != want {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("q = %g: %d of 10⁶ gaps differ from the log1p form", q, diff)
		}
	}
}
