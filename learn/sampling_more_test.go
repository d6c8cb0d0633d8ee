package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestFixedSizeSubsetsUniform: with n = 6 and b = 2 every one of the 15
// subsets must be equally likely (Floyd's algorithm). Over T = 60,000
// draws the χ² statistic has 14 degrees of freedom; 5 standard deviations
// of it, 14 + 5·√28 = 40.5, is the bound. Every batch holds b distinct
// sorted indices.
func TestFixedSizeSubsetsUniform(t *testing.T) {
	const n, b, T = 6, 2, 60000
	s := newFixedSizeSampler(rand.New(rand.NewChaCha8(rng.Key(3, "fixed-test"))), n, b)
	counts := map[[2]int]int{}
	var batch []int
	for step := 0; step < T; step++ {
		batch = s.next(batch)
		if len(batch) != b || !slices.IsSorted(batch) || batch[0] == batch[1] || batch[0] < 0 || batch[1] >= n {
			t.Fatalf("step %d: batch %v", step, batch)
		}
		counts[[2]int{batch[0], batch[1]}]++
	}
	if len(counts) != 15 {
		t.Fatalf("%d distinct subsets, want 15", len(counts))
	}
	e := float64(T) / 15
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	if chi2 > 14+5*math.Sqrt(28) {
		t.Errorf("subset χ² = %.1f over 14 df", chi2)
	}
	t.Logf("subset χ² = %.1f (df 14)", chi2)
}

// TestFixedSizeInclusion: at n = 1000, b = 50, each record is in a
// Binomial(T, b/n) number of steps (χ² over records as for Poisson), and
// a pair of records shares a step with probability b(b−1)/(n(n−1)):
// counted over the n − 1 adjacent pairs (i, i+1) in T = 20,000 steps the
// expected total is T·b(b−1)/n = 49,000 (±5·√49,000; no structure such as
// consecutive windows, which would make adjacent pairs far more common).
func TestFixedSizeInclusion(t *testing.T) {
	const n, b, T = 1000, 50, 20000
	s := newFixedSizeSampler(rand.New(rand.NewChaCha8(rng.Key(4, "fixed-test"))), n, b)
	counts := make([]int, n)
	both := 0
	var batch []int
	for step := 0; step < T; step++ {
		batch = s.next(batch)
		for _, i := range batch {
			counts[i]++
		}
		for j := 1; j < len(batch); j++ {
			if batch[j] == batch[j-1]+1 {
				both++
			}
		}
	}
	q := float64(b) / n
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - T*q
		chi2 += d * d / (T * q * (1 - q))
	}
	// Fixed size makes the counts slightly negatively correlated; the
	// statistic's mean is n − 1 instead of n, well inside the bound.
	if math.Abs(chi2-n) > 5*math.Sqrt(2*n) {
		t.Errorf("per-record inclusion χ² = %.1f, want %d ± %.0f", chi2, n, 5*math.Sqrt(2*n))
	}
	want := float64(T) * float64(b*(b-1)) / n
	if math.Abs(float64(both)-want) > 5*math.Sqrt(want) {
		t.Errorf("adjacent pairs together %d times, want %.0f", both, want)
	}
	t.Logf("χ² %.1f (df %d); adjacent pairs %d (want %.0f)", chi2, n, both, want)
}

// TestBallsInBinsEpochs: every epoch of k steps uses each record exactly
// once; a record's batch is uniform over the k steps (χ² over k − 1 = 9
// df, 5σ bound); two records share a batch with probability 1/k; batch
// sizes are Binomial(n, 1/k); the virtual record (a canary) lands in
// exactly one step per epoch, uniformly.
func TestBallsInBinsEpochs(t *testing.T) {
	const n, k, epochs = 200, 10, 20000
	s := newBallsInBinsSampler(rand.New(rand.NewChaCha8(rng.Key(5, "bib-test"))), n, k)
	posOf0 := make([]int, k)
	virtualAt := make([]int, k)
	same := 0
	var sum, sumSq float64
	seen := make([]int, n)
	var batch []int
	for e := 0; e < epochs; e++ {
		clear(seen)
		virtual := 0
		bin0, bin1 := -1, -1
		for st := 0; st < k; st++ {
			batch = s.next(batch)
			if !slices.IsSorted(batch) {
				t.Fatalf("batch not sorted: %v", batch)
			}
			for _, i := range batch {
				seen[i]++
				if i == 0 {
					bin0 = st
				}
				if i == 1 {
					bin1 = st
				}
			}
			if s.virtualIn() {
				virtual++
				virtualAt[st]++
			}
			b := float64(len(batch))
			sum += b
			sumSq += b * b
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("epoch %d: record %d used %d times", e, i, c)
			}
		}
		if virtual != 1 {
			t.Fatalf("epoch %d: virtual record in %d steps", e, virtual)
		}
		posOf0[bin0]++
		if bin0 == bin1 {
			same++
		}
	}
	chi := func(c []int) float64 {
		x, want := 0.0, float64(epochs)/k
		for _, v := range c {
			x += (float64(v) - want) * (float64(v) - want) / want
		}
		return x
	}
	if x := chi(posOf0); x > k-1+5*math.Sqrt(2*(k-1)) {
		t.Errorf("record 0's batch: χ² = %.1f over %d df", x, k-1)
	}
	if x := chi(virtualAt); x > k-1+5*math.Sqrt(2*(k-1)) {
		t.Errorf("virtual record's batch: χ² = %.1f over %d df", x, k-1)
	}
	want := float64(epochs) / k
	if math.Abs(float64(same)-want) > 5*math.Sqrt(want*(1-1.0/k)) {
		t.Errorf("records 0 and 1 shared a batch in %d epochs, want %.0f", same, want)
	}
	steps := float64(epochs * k)
	mean, variance := sum/steps, sumSq/steps-(sum/steps)*(sum/steps)
	wantVar := n * (1.0 / k) * (1 - 1.0/k)
	if math.Abs(mean-n/k) > 1e-9 || math.Abs(variance-wantVar) > 5*wantVar*math.Sqrt(2/steps)*2 {
		t.Errorf("batch size mean %.3f (want %d), variance %.3f (want %.1f)", mean, n/k, variance, wantVar)
	}
}

// TestNewSamplersDeterministic: the batches are a function of the run's
// seed only (the same random source gives the same batches; another gives
// others), through Train.
func TestNewSamplersDeterministic(t *testing.T) {
	X, Y := make([]float32, 40*3), make([]int32, 40)
	for i := range Y {
		Y[i] = int32(i % 2)
		X[3*i] = float32(i) / 40
	}
	batches := func(sampling string, seed uint64) [][]int {
		m, err := NewModel(Arch{Kind: KindLogReg}, []int{3}, 2, 7)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]int
		cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 0.25, Steps: 12, LearningRate: 0.1, Sampling: sampling}
		h := &Hooks{OnStep: func(s *Step) error { out = append(out, slices.Clone(s.Batch)); return nil }}
		if _, err := Train(m, X, Y, cfg, rand.New(rand.NewPCG(seed, 1)), h); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, sampling := range []string{SampleFixedSize, SampleBallsInBins} {
		a, b, c := batches(sampling, 1), batches(sampling, 1), batches(sampling, 2)
		if !slices.EqualFunc(a, b, slices.Equal) {
			t.Errorf("%s: same seed, different batches", sampling)
		}
		if slices.EqualFunc(a, c, slices.Equal) {
			t.Errorf("%s: different seeds, same batches", sampling)
		}
		if sampling == SampleFixedSize && len(a[0]) != 10 {
			t.Errorf("fixed size: batch of %d, want 10", len(a[0]))
		}
	}
	if err := (DPSGD{ClipNorm: 1, SamplingRate: 0.3, Steps: 1, Sampling: SampleBallsInBins}).Validate(); err == nil {
		t.Error("balls-in-bins with 1/q = 3.33 steps per epoch accepted")
	}
}

// TestCyclicCanariesInTheirGroup: under cyclic sampling a Dirac canary
// and the gradient canary take part only in the steps of one group each
// (a record's participations are Groups steps apart, as the accountant's
// participation schema assumes), at rate q within it, and the groups of
// the Dirac canaries are spread over all groups.
func TestCyclicCanariesInTheirGroup(t *testing.T) {
	X, Y := make([]float32, 40*3), make([]int32, 40)
	for i := range Y {
		Y[i] = int32(i % 2)
		X[3*i] = float32(i) / 40
	}
	m, err := NewModel(Arch{Kind: KindLogReg}, []int{3}, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	const groups, steps, q = 4, 400, 0.5
	dirac := []int{0, 1, 2, 3}
	seenAt := make([]map[int]int, len(dirac)) // step mod groups → inclusions
	for j := range seenAt {
		seenAt[j] = map[int]int{}
	}
	canaryAt := map[int]int{}
	h := &Hooks{Canary: make([]float32, m.NumParams()), Dirac: dirac, DiracValue: 1, OnStep: func(s *Step) error {
		for j, in := range s.DiracIncluded {
			if in {
				seenAt[j][s.Index%groups]++
			}
		}
		if s.CanaryIncluded {
			canaryAt[s.Index%groups]++
		}
		return nil
	}}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: q, Steps: steps, LearningRate: 0.1, Sampling: SampleCyclic, Groups: groups}
	if _, err := Train(m, X, Y, cfg, rand.New(rand.NewPCG(3, 1)), h); err != nil {
		t.Fatal(err)
	}
	used := map[int]bool{}
	for j, at := range append(seenAt, canaryAt) {
		if len(at) != 1 {
			t.Errorf("canary %d took part in steps of %d groups (%v), want one", j, len(at), at)
		}
		for g, c := range at {
			used[g] = true
			if want := float64(steps/groups) * q; math.Abs(float64(c)-want) > 5*math.Sqrt(want*(1-q)) {
				t.Errorf("canary %d: %d inclusions in its group's %d steps, want about %.0f", j, c, steps/groups, want)
			}
		}
	}
	if len(used) < 2 {
		t.Errorf("every canary in the same group: %v", used)
	}
}
