package learn

import (
	"math/rand/v2"
	"slices"
)

// fixedSizeSampler draws each step's batch as a uniformly random subset of
// b of the n records, afresh every step (sampling without replacement
// within a step, independently across steps): what privacy's
// SamplingFixedSize accounts. Floyd's algorithm draws the subset with b
// random numbers, whatever n.
type fixedSizeSampler struct {
	r    *rand.Rand
	n, b int
	seen map[int]struct{}
}

func newFixedSizeSampler(r *rand.Rand, n, b int) *fixedSizeSampler {
	return &fixedSizeSampler{r: r, n: n, b: min(b, n), seen: make(map[int]struct{}, b)}
}

func (s *fixedSizeSampler) next(dst []int) []int {
	dst = dst[:0]
	if s.b >= s.n {
		for i := 0; i < s.n; i++ {
			dst = append(dst, i)
		}
		return dst
	}
	clear(s.seen)
	// Floyd: for j = n−b … n−1, pick t uniform in [0, j]; take t unless
	// already taken, else take j. Every b-subset is equally likely.
	for j := s.n - s.b; j < s.n; j++ {
		t := s.r.IntN(j + 1)
		if _, ok := s.seen[t]; ok {
			t = j
		}
		s.seen[t] = struct{}{}
		dst = append(dst, t)
	}
	slices.Sort(dst)
	return dst
}

// ballsInBinsSampler puts every record, at the start of each epoch of k
// steps, into one of the k batches uniformly at random and independently
// of the others (random allocation: batch sizes are multinomial, each
// record is used exactly once per epoch): what privacy's
// SamplingBallsInBins accounts. One extra virtual record — a gradient
// canary — is allocated the same way (virtualIn).
type ballsInBinsSampler struct {
	r       *rand.Rand
	n, k    int
	step    int     // step within the epoch
	bins    [][]int // this epoch's batches
	virtual int     // the virtual record's batch this epoch
	inStep  bool    // the virtual record is in the last batch returned
}

func newBallsInBinsSampler(r *rand.Rand, n, k int) *ballsInBinsSampler {
	return &ballsInBinsSampler{r: r, n: n, k: k, bins: make([][]int, k), step: k}
}

func (s *ballsInBinsSampler) next(dst []int) []int {
	if s.step == s.k {
		for i := range s.bins {
			s.bins[i] = s.bins[i][:0]
		}
		for i := 0; i < s.n; i++ { // ascending, so every bin is sorted
			j := s.r.IntN(s.k)
			s.bins[j] = append(s.bins[j], i)
		}
		s.virtual = s.r.IntN(s.k)
		s.step = 0
	}
	dst = append(dst[:0], s.bins[s.step]...)
	s.inStep = s.virtual == s.step
	s.step++
	return dst
}

// virtualSampler is a sampler that also allocates a virtual record (a
// gradient canary) with the real ones.
type virtualSampler interface {
	virtualIn() bool
}

// virtualIn reports whether the virtual record is in the last batch.
func (s *ballsInBinsSampler) virtualIn() bool { return s.inStep }

// cyclicSampler splits the n records at random into g groups once, and at
// step t samples each record of group t mod g with probability q (all of
// it at q = 1; geometric gaps as the Poisson sampler otherwise).
type cyclicSampler struct {
	groups [][]int
	step   int
	pois   *poissonSampler // within the group, over its positions
	q      float64
	pos    []int
	// The virtual record (placeVirtual): its group, its own draws, and
	// whether it is in the last batch returned.
	vGroup int
	vDraws *rand.Rand
	vIn    bool
}

// placeVirtual puts the virtual record (a gradient canary) into a group
// drawn from r, which also draws its Poisson inclusions within the group.
func (s *cyclicSampler) placeVirtual(r *rand.Rand) {
	s.vGroup, s.vDraws = r.IntN(len(s.groups)), r
}

// virtualIn reports whether the virtual record is in the last batch.
func (s *cyclicSampler) virtualIn() bool { return s.vIn }

func newCyclicSampler(r *rand.Rand, src *rand.ChaCha8, n, g int, q float64) *cyclicSampler {
	s := &cyclicSampler{groups: make([][]int, g), q: q}
	for i := 0; i < n; i++ { // ascending: every group is sorted
		j := r.IntN(g)
		s.groups[j] = append(s.groups[j], i)
	}
	if q < 1 {
		s.pois = newPoissonSampler(src, 0, q)
	}
	return s
}

func (s *cyclicSampler) next(dst []int) []int {
	g := s.step % len(s.groups)
	grp := s.groups[g]
	s.step++
	s.vIn = s.vDraws != nil && g == s.vGroup && (s.q >= 1 || s.vDraws.Float64() < s.q)
	if s.pois == nil {
		return append(dst[:0], grp...)
	}
	s.pois.n = len(grp)
	s.pos = s.pois.next(s.pos)
	dst = dst[:0]
	for _, p := range s.pos {
		dst = append(dst, grp[p])
	}
	return dst
}
