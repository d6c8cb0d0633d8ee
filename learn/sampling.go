package learn

import (
	"math"
	"math/rand/v2"
	"slices"
)

// batchSampler draws the record indices of one step.
type batchSampler interface {
	next(dst []int) []int
}

// poissonSampler includes each of n records independently with probability
// q. It draws the gaps between included records from the geometric
// distribution, P(gap = k) = (1−q)^k·q via k = ⌊ln(1−U)/ln(1−q)⌋, so a step
// costs O(batch size) random numbers instead of n Bernoulli draws.
//
// U is the 53-bit uniform of rand.Rand.Float64, read straight from the
// ChaCha8 source (the same numbers as through the rand.Rand wrapping it,
// without an interface call per draw). 1−U is exact in float64 (U is a
// multiple of 2⁻⁵³), so math.Log(1−U), assembly on amd64, is as accurate
// as math.Log1p(−U) and 2–3× cheaper; the logarithm was a fifth of a
// logistic-regression audit step (BenchmarkAuditTrial). The two can round
// differently in the last bit, which changes a gap only when
// ln(1−U)/ln(1−q) lies within an ulp of an integer: the law is the same
// geometric law (TestPoissonBatchSizeDistribution, TestPoissonGapLaw).
type poissonSampler struct {
	src    *rand.ChaCha8
	n      int
	q      float64
	logNot float64 // ln(1 − q)
}

func newPoissonSampler(src *rand.ChaCha8, n int, q float64) *poissonSampler {
	return &poissonSampler{src: src, n: n, q: q, logNot: math.Log1p(-q)}
}

func (p *poissonSampler) next(dst []int) []int {
	dst = dst[:0]
	if p.q >= 1 {
		for i := 0; i < p.n; i++ {
			dst = append(dst, i)
		}
		return dst
	}
	i := -1
	for {
		gap := p.gap()
		if gap >= float64(p.n-i) {
			return dst
		}
		i += int(gap) + 1
		if i >= p.n {
			return dst
		}
		dst = append(dst, i)
	}
}

// gap draws the number of records skipped before the next included one,
// P(gap = k) = (1−q)^k·q, as a float64 (it may exceed any int).
func (p *poissonSampler) gap() float64 {
	// U as rand.Rand.Float64 makes it; 1−U ∈ (0, 1], so the logarithm is
	// finite and ≤ 0.
	u := float64(p.src.Uint64()<<11>>11) / (1 << 53)
	return math.Floor(math.Log(1-u) / p.logNot)
}

// shuffleSampler returns consecutive batches of size b from a random
// permutation of the n records, reshuffling when fewer than b remain (the
// partial batch is dropped). A batch of all n records is returned in order.
// Batches are sorted so that gathering reads memory in order.
type shuffleSampler struct {
	r    *rand.Rand
	n, b int
	perm []int
	pos  int
}

func newShuffleSampler(r *rand.Rand, n, b int) *shuffleSampler {
	s := &shuffleSampler{r: r, n: n, b: b, perm: make([]int, n), pos: n}
	for i := range s.perm {
		s.perm[i] = i
	}
	return s
}

func (s *shuffleSampler) next(dst []int) []int {
	dst = dst[:0]
	if s.b >= s.n {
		return append(dst, s.perm...)
	}
	if s.pos+s.b > s.n {
		s.r.Shuffle(s.n, func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
		s.pos = 0
	}
	dst = append(dst, s.perm[s.pos:s.pos+s.b]...)
	s.pos += s.b
	slices.Sort(dst)
	return dst
}
