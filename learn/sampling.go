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
type poissonSampler struct {
	r      *rand.Rand
	n      int
	q      float64
	logNot float64 // ln(1 − q)
}

func newPoissonSampler(r *rand.Rand, n int, q float64) *poissonSampler {
	return &poissonSampler{r: r, n: n, q: q, logNot: math.Log1p(-q)}
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
		// 1−U ∈ (0, 1], so the logarithm is finite and ≤ 0.
		gap := math.Floor(math.Log1p(-p.r.Float64()) / p.logNot)
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
