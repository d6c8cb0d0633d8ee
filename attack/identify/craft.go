package identify

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/dpaudit/dpaudit/rng"
)

// Adjacency of the neighbouring datasets.
const (
	Bounded   = "bounded"   // D′ replaces one record of D by a pool record
	Unbounded = "unbounded" // D′ = D without one record
)

// How the differing record is chosen.
const (
	ChooseMax    = "max"    // dataset sensitivity: the rank-th most dissimilar (Def. 6)
	ChooseMin    = "min"    // the rank-th least dissimilar (the paper's Fig. 4 min_k)
	ChooseRandom = "random" // a seeded uniform record (bounded: and a uniform pool record)
	ChooseIndex  = "index"  // a given record (bounded: a given or the most dissimilar pool record)
)

// CraftInput is what the crafter sees: D (n records of dim features, in
// the model's layout), the candidate pool U∖D for bounded adjacency, and
// how to choose.
type CraftInput struct {
	X     []float32 // D, n × dim
	PoolX []float32 // U∖D, m × dim (bounded only)
	Dim   int
	Shape []int // one record's shape ([C, H, W] for images)
	// Adjacency is Bounded or Unbounded.
	Adjacency string
	// Distance is one of the Dist* names.
	Distance string
	// Choose is one of the Choose* names; Rank (≥ 1) picks among the
	// ordered scores; Index and Candidate (≥ 0, or −1) are for ChooseIndex.
	Choose           string
	Rank             int
	Index, Candidate int
	// Seed drives ChooseRandom.
	Seed uint64
	// Workers is the number of goroutines (0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
}

// Neighbours is the crafted pair D, D′: D′ is D with record Remove
// removed (Unbounded) or replaced by pool record Add (Bounded; −1 when
// unbounded). Score is the dataset-sensitivity score of Remove: its
// summed dissimilarity to the rest of D (unbounded, Eq. 18) or its
// dissimilarity to Add (bounded, Eq. 20).
type Neighbours struct {
	Adjacency string  `json:"adjacency"`
	Remove    int     `json:"remove"`
	Add       int     `json:"add"`
	Distance  string  `json:"distance"`
	Score     float64 `json:"score"`
}

// Validate checks the input and says why a pair cannot be built.
func (in CraftInput) Validate() error {
	if in.Dim <= 0 || len(in.X)%in.Dim != 0 {
		return fmt.Errorf("craft: %d features do not hold records of %d", len(in.X), in.Dim)
	}
	n := len(in.X) / in.Dim
	switch in.Adjacency {
	case Bounded, Unbounded:
	default:
		return fmt.Errorf("craft: adjacency %q: want bounded or unbounded", in.Adjacency)
	}
	if n < 2 {
		return fmt.Errorf("craft: %s adjacency needs a dataset of at least 2 records, got %d (D′ would share no record with D)", in.Adjacency, n)
	}
	if in.Adjacency == Bounded && len(in.PoolX) < in.Dim {
		return fmt.Errorf("craft: bounded adjacency needs a candidate pool (U∖D) to take the replacing record from; it is empty")
	}
	switch in.Choose {
	case ChooseMax, ChooseMin:
		if in.Rank < 1 || in.Rank > n {
			return fmt.Errorf("craft: rank %d outside 1..%d", in.Rank, n)
		}
	case ChooseRandom:
	case ChooseIndex:
		if in.Index < 0 || in.Index >= n {
			return fmt.Errorf("craft: index %d outside the dataset's 0..%d", in.Index, n-1)
		}
		if m := len(in.PoolX) / in.Dim; in.Candidate >= m && in.Adjacency == Bounded {
			return fmt.Errorf("craft: candidate %d outside the pool's 0..%d", in.Candidate, m-1)
		}
	default:
		return fmt.Errorf("craft: choose %q: want max, min, random or index", in.Choose)
	}
	return nil
}

// Craft builds the neighbouring datasets. Dataset sensitivity costs
// O(n²) dissimilarities unbounded (each pair once) and O(n·m) bounded,
// once per point (the paper's Table 1).
func Craft(in CraftInput) (Neighbours, error) {
	if err := in.Validate(); err != nil {
		return Neighbours{}, err
	}
	out := in.preselect()
	met, err := in.metric(out)
	if err != nil || met == nil {
		return out, err
	}
	c := crafter{in: in, met: met, workers: in.Workers}
	if c.workers <= 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	c.pd = c.prep(in.X)
	if in.Adjacency == Unbounded {
		c.unbounded(&out)
	} else {
		c.bounded(&out)
	}
	return out, nil
}

// preselect makes the choices that need no distance: a random pair (drawn
// from the seed) or the caller's index and candidate.
func (in CraftInput) preselect() Neighbours {
	n, m := len(in.X)/in.Dim, len(in.PoolX)/in.Dim
	out := Neighbours{Adjacency: in.Adjacency, Remove: -1, Add: -1, Distance: in.Distance}
	switch in.Choose {
	case ChooseRandom:
		r := rng.New(in.Seed, "identify/craft")
		out.Remove = r.IntN(n)
		if in.Adjacency == Bounded {
			out.Add = r.IntN(m)
		}
	case ChooseIndex:
		out.Remove = in.Index
		if in.Adjacency == Bounded && in.Candidate >= 0 {
			out.Add = in.Candidate
		}
	}
	return out
}

// metric is the distance the choice or the score needs (nil when there is
// none: a random pair without a distance).
func (in CraftInput) metric(out Neighbours) (metric, error) {
	chosen := in.Choose == ChooseRandom || (in.Choose == ChooseIndex && (in.Adjacency == Unbounded || out.Add >= 0))
	if !chosen && in.Distance == "" {
		return nil, fmt.Errorf("craft: choose %s needs a distance", in.Choose)
	}
	if in.Distance == "" {
		return nil, nil
	}
	lo, hi := valueRange(in.X, in.PoolX)
	return newMetric(in.Distance, in.Shape, float64(hi-lo))
}

// crafter scores candidate pairs under one metric.
type crafter struct {
	in      CraftInput
	met     metric
	workers int
	pd      []any // the metric's prepared form of each row of X
}

func (c *crafter) row(X []float32, i int) []float32 { return X[i*c.in.Dim : (i+1)*c.in.Dim] }

// prep prepares every row of X for the metric.
func (c *crafter) prep(X []float32) []any {
	p := make([]any, len(X)/c.in.Dim)
	for i := range p {
		p[i] = c.met.prepare(c.row(X, i))
	}
	return p
}

// unbounded chooses (or scores the chosen) record to remove by its summed
// distance to the others.
func (c *crafter) unbounded(out *Neighbours) {
	X, n, met := c.in.X, len(c.in.X)/c.in.Dim, c.met
	if out.Remove >= 0 { // chosen already: only its own score
		scr := met.scratch()
		for j := 0; j < n; j++ {
			if j != out.Remove {
				out.Score += met.dist(c.row(X, out.Remove), c.row(X, j), c.pd[out.Remove], c.pd[j], scr)
			}
		}
		return
	}
	// d[i][j] for i < j, each pair once; row sums in float64, added in a
	// fixed order so the result does not depend on workers.
	dist := make([]float64, n*n)
	parallel(n, c.workers, met, func(i int, scr any) {
		for j := i + 1; j < n; j++ {
			d := met.dist(c.row(X, i), c.row(X, j), c.pd[i], c.pd[j], scr)
			dist[i*n+j], dist[j*n+i] = d, d
		}
	})
	score := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			score[i] += dist[i*n+j]
		}
	}
	out.Remove = pick(score, c.in.Choose == ChooseMax, c.in.Rank)
	out.Score = score[out.Remove]
}

// bounded chooses the record to replace and its farthest pool candidate.
func (c *crafter) bounded(out *Neighbours) {
	X, P, met := c.in.X, c.in.PoolX, c.met
	n, m := len(X)/c.in.Dim, len(P)/c.in.Dim
	pp := c.prep(P)
	best, arg := make([]float64, n), make([]int, n)
	rows := []int{out.Remove}
	if out.Remove < 0 {
		rows = nil
		for i := 0; i < n; i++ {
			rows = append(rows, i)
		}
	}
	parallel(len(rows), c.workers, met, func(k int, scr any) {
		i := rows[k]
		best[i], arg[i] = -1, -1
		for j := 0; j < m; j++ {
			if d := met.dist(c.row(X, i), c.row(P, j), c.pd[i], pp[j], scr); d > best[i] {
				best[i], arg[i] = d, j
			}
		}
	})
	if out.Remove < 0 {
		out.Remove = pick(best, c.in.Choose == ChooseMax, c.in.Rank)
	}
	if out.Add < 0 {
		out.Add = arg[out.Remove]
	}
	out.Score = met.dist(c.row(X, out.Remove), c.row(P, out.Add), c.pd[out.Remove], met.prepare(c.row(P, out.Add)), met.scratch())
}

// pick returns the index of the rank-th largest (desc) or smallest score;
// ties go to the lower index.
func pick(score []float64, desc bool, rank int) int {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if desc {
			return score[idx[a]] > score[idx[b]]
		}
		return score[idx[a]] < score[idx[b]]
	})
	return idx[rank-1]
}

// parallel runs fn(i) for i in [0, n) on workers goroutines, each with its
// own scratch.
func parallel(n, workers int, met metric, fn func(i int, scr any)) {
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scr := met.scratch()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i, scr)
			}
		}()
	}
	wg.Wait()
}

func valueRange(sets ...[]float32) (lo, hi float32) {
	first := true
	for _, s := range sets {
		for _, v := range s {
			if first || v < lo {
				lo = v
			}
			if first || v > hi {
				hi = v
			}
			first = false
		}
	}
	return lo, hi
}
