package audit

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// Maximising the Eq. 5 bound over every threshold of 10⁶ trials would take
// two Beta quantiles (5–12 µs each) per candidate, seconds in all. The
// search below is exact but evaluates few of them: it brackets each
// candidate's bound between cheap values read off a sparse grid of counts,
// and computes the exact bound only for candidates whose upper bracket can
// still beat the best lower bracket (branch and bound).

// cpGrid brackets cpUpper(x, n, tail) for integer x by its exact values at
// grid counts, which it computes lazily. cpUpper is increasing in x, so for
// g_j ≤ x ≤ g_{j+1} it lies between the values at g_j and g_{j+1}. The
// grid spacing is ⌊√x/8⌋ (at least 1): about 1/16 of the interval's
// half-width, so brackets are tight, with 16√n grid points in all.
type cpGrid struct {
	n     int
	upper func(x float64) float64 // non-decreasing in x: cpUpper(x, n, tail) or a composition of it
	at    []int                   // grid counts, ascending, from 0 to n
	val   []float64               // upper at each grid count; NaN until computed
}

func newCPGrid(n int, tail float64) *cpGrid {
	return newBoundGrid(n, func(x float64) float64 { return cpUpper(x, float64(n), tail) })
}

// newBoundGrid brackets any non-decreasing bound of an integer count in
// [0, n] the way newCPGrid brackets cpUpper.
func newBoundGrid(n int, upper func(x float64) float64) *cpGrid {
	g := &cpGrid{n: n, upper: upper}
	for x := 0; ; {
		g.at = append(g.at, x)
		if x == n {
			break
		}
		x += max(1, int(math.Sqrt(float64(x))/8))
		x = min(x, n)
	}
	g.val = make([]float64, len(g.at))
	for i := range g.val {
		g.val[i] = math.NaN()
	}
	return g
}

func (g *cpGrid) value(j int) float64 {
	if math.IsNaN(g.val[j]) {
		g.val[j] = g.upper(float64(g.at[j]))
	}
	return g.val[j]
}

// prefill computes, on every core, the grid values that bracketing the
// counts x(0), …, x(n−1) reads: the values bracket would compute lazily
// one after another (thousands of Beta quantiles at 10⁶ trials), each the
// same pure function of its count, so the search's result does not
// depend on the number of cores. Afterwards filled reads those counts'
// brackets without writing to the grid.
func (g *cpGrid) prefill(n int, x func(i int) int) {
	need := make([]bool, len(g.at))
	var todo []int
	for i := range n {
		lo, hi := g.bracketIndices(x(i))
		for _, j := range []int{lo, hi} {
			if !need[j] && math.IsNaN(g.val[j]) {
				need[j] = true
				todo = append(todo, j)
			}
		}
	}
	if len(todo) < 128 { // too few to pay for goroutines
		for _, j := range todo {
			g.val[j] = g.upper(float64(g.at[j]))
		}
		return
	}
	err := parallel.Chunks(context.Background(), len(todo), 64, 0, func(_, lo, hi int) error {
		for _, j := range todo[lo:hi] {
			g.val[j] = g.upper(float64(g.at[j]))
		}
		return nil
	})
	if err != nil {
		panic(err) // only a panic inside a bound gets here
	}
}

// bracketIndices returns the grid indices whose values bracket the bound
// at count x: j and j for a grid count, else its neighbours below and
// above.
func (g *cpGrid) bracketIndices(x int) (lo, hi int) {
	j := sort.SearchInts(g.at, x) // first grid count ≥ x
	if g.at[j] == x {
		return j, j
	}
	return j - 1, j
}

// bracket returns lo ≤ cpUpper(x) ≤ hi.
func (g *cpGrid) bracket(x int) (lo, hi float64) {
	jlo, jhi := g.bracketIndices(x)
	return g.value(jlo), g.value(jhi)
}

// filled is bracket for a count whose values prefill computed: it only
// reads the grid, so several goroutines may call it at once.
func (g *cpGrid) filled(x int) (lo, hi float64) {
	jlo, jhi := g.bracketIndices(x)
	return g.val[jlo], g.val[jhi]
}

// exact returns cpUpper(x).
func (g *cpGrid) exact(x int) float64 {
	if lo, hi := g.bracketIndices(x); lo == hi {
		return g.value(lo)
	}
	return g.upper(float64(x))
}

// objective scores a threshold from its two error rates (CP bounds or raw
// rates). It must be ≥ 0 and non-increasing in both rates, as Eq. 4/5's ε
// and the Gaussian-DP μ are: the pruning and bracketing rely on it.
type objective func(fpr, fnr float64) float64

// epsObjective is Eq. 5 (on CP bounds) or Eq. 4 (on raw rates).
func epsObjective(delta float64) objective {
	return func(fpr, fnr float64) float64 { return epsilonFromRates(fpr, fnr, delta) }
}

// bestCandidate returns the index of the candidate maximising f on the
// rates' CP upper bounds (each at one-end miss probability tail), that
// maximum and the bounds it used. Ties, including the common all-zero
// case, go to the larger f on the raw rates, then to the lower threshold,
// so the choice is deterministic and, when no threshold certifies
// anything, still the most promising one.
func bestCandidate(cands []candidate, n0, n1 int, tail float64, f objective) (best int, val, fpHi, fnHi float64) {
	return bestCandidateOn(cands, newCPGrid(n0, tail), newCPGrid(n1, tail), f)
}

// bestCandidateOn is bestCandidate with the two rates' upper bounds given
// as grids (g0 for the false positives, g1 for the false negatives).
func bestCandidateOn(cands []candidate, g0, g1 *cpGrid, f objective) (best int, val, fpHi, fnHi float64) {
	g0.prefill(len(cands), func(i int) int { return cands[i].fp })
	g1.prefill(len(cands), func(i int) int { return cands[i].fn })
	upper, point, floor := brackets(cands, g0, g1, f)
	order := make([]int, 0, len(cands))
	for i := range cands {
		if upper[i] >= floor {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(upper[a], upper[b]) })
	best, val = -1, -1
	// better orders by value, then value on raw rates, then lower threshold.
	better := func(i int, e float64) bool {
		switch {
		case best < 0 || e > val:
			return true
		case e < val:
			return false
		case point[i] != point[best]:
			return point[i] > point[best]
		}
		return i < best
	}
	for _, i := range order {
		if upper[i] < val {
			break // sorted: nothing later can reach the best
		}
		e := 0.0
		if upper[i] > 0 { // f ≥ 0, so an upper bracket of 0 means exactly 0
			e = f(g0.exact(cands[i].fp), g1.exact(cands[i].fn))
		}
		if better(i, e) {
			best, val = i, e
		}
	}
	c := cands[best]
	return best, val, g0.exact(c.fp), g1.exact(c.fn)
}

// brackets returns, for each candidate, the upper bracket of f on its
// rates' bounds and f on its raw rates, and floor, the best lower bracket
// (the maximum is at least that). At 10⁶ trials that is three
// objective values (logarithms or normal quantiles) for each of tens of
// thousands of candidates, between the parallel prefill and the search:
// they are computed in chunks on every core, each written to its own
// index, and floor is the maximum of the chunks' maxima, which is the
// same number whatever the chunks (math.Max is exact, NaN and ±0
// included). The grids must be prefilled for every candidate's counts.
func brackets(cands []candidate, g0, g1 *cpGrid, f objective) (upper, point []float64, floor float64) {
	const chunk = 4096
	n0, n1 := float64(g0.n), float64(g1.n)
	upper = make([]float64, len(cands))
	point = make([]float64, len(cands))
	floors := make([]float64, (len(cands)+chunk-1)/chunk)
	err := parallel.Chunks(context.Background(), len(cands), chunk, 0, func(_, lo, hi int) error {
		top := 0.0
		for i := lo; i < hi; i++ {
			c := cands[i]
			fpLo, fpHiB := g0.filled(c.fp)
			fnLo, fnHiB := g1.filled(c.fn)
			// f is non-increasing in both rates: larger rates, smaller value.
			upper[i] = f(fpLo, fnLo)
			point[i] = f(float64(c.fp)/n0, float64(c.fn)/n1)
			top = math.Max(top, f(fpHiB, fnHiB)) // certified lower bracket
		}
		floors[lo/chunk] = top
		return nil
	})
	if err != nil {
		panic(err) // only a panic inside the objective gets here
	}
	for _, v := range floors {
		floor = math.Max(floor, v)
	}
	return upper, point, floor
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
