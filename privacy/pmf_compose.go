package privacy

import (
	"fmt"
	"math"
)

// DefaultTailMass is the probability mass that Compose and SelfCompose may
// truncate from the tails (dp_accounting's default, 1e-15). In pessimistic
// mode it is added to the infinity atom, so δ stays an upper bound.
const DefaultTailMass = 1e-15

// MaxPMFLen caps the number of grid points of any PMF built or composed
// here through the exported PMF API (2^23 points: 64 MiB per buffer). A
// request beyond it — a noise multiplier so small, or an interval so fine,
// that the losses span more than MaxPMFLen·h — returns ErrTooLarge. The
// accountant's PLDs use Options.PLDMemory instead (by default a quarter of
// physical RAM), and coarsen the interval only past that.
const MaxPMFLen = 1 << 23

// ErrTooLarge is wrapped by PMF operations whose result would exceed
// their grid-point cap (MaxPMFLen, or the accountant's memory cap).
var ErrTooLarge = fmt.Errorf("PMF too large (more grid points than the cap)")

// tooLargeError is ErrTooLarge with the number of points that was asked
// for, so that the accountant can coarsen the interval by the right factor
// at once.
type tooLargeError struct {
	points float64
	limit  int
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("PMF too large (%.4g grid points, more than %d)", e.points, e.limit)
}

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

func tooLarge(points float64, limit int) error { return &tooLargeError{points, limit} }

func (p *PMF) checkComposable(o *PMF) error {
	if p.interval != o.interval {
		return invalidf("cannot compose PMFs with different intervals (%v vs %v)", p.interval, o.interval)
	}
	if p.pessimistic != o.pessimistic {
		return invalidf("cannot compose a pessimistic PMF with an optimistic one")
	}
	return nil
}

// Compose returns the distribution of the sum of independent losses from p
// and o (the composition of the two mechanisms), truncating at most
// tailMass of probability from the tails (DefaultTailMass is a good value;
// 0 keeps everything). Both must have the same interval and rounding.
func (p *PMF) Compose(o *PMF, tailMass float64) (*PMF, error) {
	if err := p.checkComposable(o); err != nil {
		return nil, err
	}
	if err := checkTailMass(tailMass); err != nil {
		return nil, err
	}
	limit := max(p.maxLen(), o.maxLen())
	if n := len(p.probs) + len(o.probs) - 1; n > limit {
		return nil, tooLarge(float64(n), limit)
	}
	probs, eta := convolve(p.probs, o.probs)
	applyErrorBound(probs, eta, p.pessimistic)
	inf := p.infMass + o.infMass - p.infMass*o.infMass
	r := &PMF{interval: p.interval, offset: p.offset + o.offset, probs: probs, infMass: inf, pessimistic: p.pessimistic,
		roundingBound: eta, limit: max(p.limit, o.limit)}
	r.truncateTails(tailMass)
	return r, nil
}

func checkTailMass(t float64) error {
	if !(t >= 0 && t < 1) {
		return invalidf("tail mass must be in [0, 1), got %v", t)
	}
	return nil
}

// applyErrorBound turns FFT output with a per-entry absolute error bound η
// into masses that are bounds on the exact ones in the PMF's direction:
// max(p, 0) + η for a pessimistic PMF (so δ(ε), a positive combination of
// the masses above ε, stays an upper bound whatever the rounding did),
// max(p − η, 0) for an optimistic one. Without this, rounding noise of
// ~1e-17 per entry is all the upper tail holds at δ ≲ 1e-12, and ε came
// out below the exact value.
func applyErrorBound(x []float64, eta float64, pessimistic bool) {
	if eta == 0 {
		clipNegative(x)
		return
	}
	for i, v := range x {
		if pessimistic {
			x[i] = maxZero(v) + eta
		} else {
			x[i] = maxZero(v - eta)
		}
	}
}

// maxZero is math.Max(v, 0), bit for bit (−0 and negatives give +0, NaN
// gives NaN), in a form the compiler inlines: the loops over millions of
// masses at T = 10⁶ spent a twentieth of their time calling math.Max.
func maxZero(v float64) float64 {
	if v > 0 {
		return v
	}
	if v != v {
		return math.NaN()
	}
	return 0
}

// clipNegative zeroes the tiny negative values (~1e-18) that FFT rounding
// leaves where the true mass is 0.
func clipNegative(x []float64) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// truncateTails drops the longest prefix and suffix whose masses are each at
// most tailMass/2, as dp_accounting's _truncate_tails: in pessimistic mode the
// left mass is moved up onto the first kept point and the right mass to
// infinity; in optimistic mode the right mass is moved down onto the last
// kept point and the left mass is dropped.
func (p *PMF) truncateTails(tailMass float64) {
	if tailMass == 0 || len(p.probs) == 0 {
		return
	}
	half := tailMass / 2
	// Keep at least one point: the prefix may not swallow the last one.
	left, leftMass := 0, 0.0
	for left < len(p.probs)-1 && leftMass+p.probs[left] <= half {
		leftMass += p.probs[left]
		left++
	}
	right, rightMass := len(p.probs), 0.0
	for right > left+1 && rightMass+p.probs[right-1] <= half {
		rightMass += p.probs[right-1]
		right--
	}
	kept := p.probs[left:right]
	if p.pessimistic {
		kept[0] += leftMass
		p.infMass += rightMass
	} else {
		kept[len(kept)-1] += rightMass
	}
	p.probs = kept
	p.offset += left
}

// SelfCompose returns the T-fold composition of p with itself, truncating at
// most tailMass from the tails (DefaultTailMass is a good value).
//
// Method (as dp_accounting's self_convolve): Chernoff bounds on the T-fold
// sum give an index window outside of which at most tailMass lies; the PMF
// is transformed once with a real FFT of a 2^a·3^b·5^c length covering the
// window, the spectrum is raised to the T-th power, and the window is read
// back from the circular result. Mass outside the window wraps around into
// it, which is why, in pessimistic mode, tailMass is added to the infinity
// atom: the result stays an upper bound.
func (p *PMF) SelfCompose(T int, tailMass float64) (*PMF, error) {
	return p.selfCompose(T, tailMass, math.NaN())
}

// SelfComposeAt is SelfCompose with masses also accurate, relative to their
// size, in the upper tail around the loss `at`: besides the plain
// transform, the PMF tilted by e^{θ·l} (θ chosen so that the tilted T-fold
// sum has mean `at`) is composed and untilted (see tiltedSelfCompose), and
// each mass is the tighter of the two bounds. The plain transform's error
// (~1e-14 per grid point) swamps masses below ~1e-12; the tilted one's is
// relative to the masses near `at`. Use it for δ(ε) or ε(δ) at δ ≲ 1e-8.
func (p *PMF) SelfComposeAt(T int, tailMass, at float64) (*PMF, error) {
	if math.IsNaN(at) || math.IsInf(at, 0) {
		return nil, invalidf("tilt loss must be finite, got %v", at)
	}
	return p.selfCompose(T, tailMass, at)
}

func (p *PMF) selfCompose(T int, tailMass, at float64) (*PMF, error) {
	if T < 1 {
		return nil, invalidf("composition count must be ≥ 1, got %d", T)
	}
	if err := checkTailMass(tailMass); err != nil {
		return nil, err
	}
	if T == 1 {
		c := *p
		c.probs = append([]float64(nil), p.probs...)
		return &c, nil
	}
	n := len(p.probs)
	lo, hi := chernoffWindow(p.probs, T, tailMass)
	outLen := hi - lo + 1
	if limit := p.maxLen(); outLen > limit || n > limit {
		return nil, tooLarge(float64(max(outLen, n)), limit)
	}
	L := fftLen(max(outLen, n))
	probs := make([]float64, outLen)
	eta := selfConvolveCircular(p.probs, L, T, lo%L, probs)
	applyErrorBound(probs, eta, p.pessimistic)
	if !math.IsNaN(at) {
		probs = p.tiltedSelfCompose(T, L, lo, at, probs)
	}
	// 1 − (1−m)^T without cancellation.
	inf := -math.Expm1(float64(T) * math.Log1p(-p.infMass))
	if p.pessimistic {
		inf = math.Min(1, inf+tailMass)
	}
	return &PMF{interval: p.interval, offset: p.offset*T + lo, probs: probs, infMass: inf, pessimistic: p.pessimistic,
		roundingBound: eta, limit: p.limit}, nil
}

// chernoffWindow returns index bounds [lo, hi] for the T-fold sum of an
// index distributed as probs, such that each side outside holds at most
// tailMass/2: P[S ≥ a] ≤ e^{−sa}·M(s)^T for s > 0 (and symmetrically below),
// minimised over s. Any s gives a valid bound, and the bound is unimodal in
// s (its derivative's numerator T·(s·K′(s) − K(s)) − log(2/tail) increases
// with s, K = log M convex), so a coarse-to-fine search on a log-s grid
// finds the best grid point with 9 evaluations per side instead of 17.
// The grid is centred on the Gaussian approximation of the optimum,
// s* ≈ √(2·log(2/tail)/(T·var)), in steps of √2 over a factor 16 each way
// and beyond while the bound improves (see minOnLogGrid): a narrower range
// misses badly when the per-step loss is heavy-tailed and T small
// (q = 0.01, σ = 0.6, T = 100: 164008 points with this range, 3.8M with a
// factor 4). dp_accounting tries s = ±1/n … ±20/n instead, often far from
// s*, which leaves the window and hence the FFT larger. The moment
// generating function is evaluated by a multiplicative recurrence (one
// multiply per point and order), shifted so that nothing overflows.
//
// Soundness does not depend on the search: every s gives a valid bound, so
// a poor s only widens the window (a larger FFT, or ErrTooLarge where a
// tighter window would fit); the mass outside any window is at most
// tailMass, which SelfCompose adds to the infinity atom.
func chernoffWindow(probs []float64, T int, tailMass float64) (lo, hi int) {
	n := len(probs)
	lo, hi = 0, (n-1)*T
	if tailMass == 0 || n <= 1 {
		return lo, hi
	}
	logTail := math.Log(2 / tailMass)
	t := float64(T)
	var mass, mean, sq float64
	for i, p := range probs {
		mass += p
		mean += p * float64(i)
	}
	if mass <= 0 {
		return lo, hi
	}
	mean /= mass
	for i, p := range probs {
		d := float64(i) - mean
		sq += p * d * d
	}
	variance := math.Max(sq/mass, 1e-12)
	sStar := math.Sqrt(2 * logTail / (t * variance))
	order := func(k int) float64 { return sStar * math.Exp2(float64(k)/2) }
	// upper(k) is the index bound above which at most tail/2 lies, using
	// s = order(k): M(s) = e^{s(n−1)}·Σ p_i e^{−s(n−1−i)}.
	upper := func(k int) float64 {
		s := order(k)
		acc := decayingSum(probs, mass, math.Exp(-s), true)
		if acc <= 0 {
			return math.Inf(1)
		}
		logM := s*float64(n-1) + math.Log(acc) + 1e-12 // slack for rounding in the recurrence
		return (t*logM + logTail) / s
	}
	// lower(k): M(−s) = Σ p_i e^{−s·i}; returns minus the bound, so that
	// both sides are minimised.
	lower := func(k int) float64 {
		s := order(k)
		acc := decayingSum(probs, mass, math.Exp(-s), false)
		if acc <= 0 {
			return math.Inf(1)
		}
		return (t*(math.Log(acc)+1e-12) + logTail) / s
	}
	if b := minOnLogGrid(upper); b < float64(hi) {
		hi = int(math.Ceil(b))
	}
	if b := -minOnLogGrid(lower); b > float64(lo) {
		lo = int(math.Floor(b))
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// decayingSum returns Σ_j probs[i_j]·step^j with i_j running down from the
// last index (fromTop) or up from the first, by a multiplicative recurrence.
// Once step^j falls below decayFloor the loop stops and the remaining mass
// (mass minus what was seen) is counted at decayFloor, so the result stays
// an upper bound — which the Chernoff bound needs — even when the masses
// at the start are tiny or zero, instead of silently dropping terms whose
// factor underflowed.
func decayingSum(probs []float64, mass, step float64, fromTop bool) float64 {
	f, acc, seen := 1.0, 0.0, 0.0
	n := len(probs)
	j := 0
	for ; j < n && f >= decayFloor; j++ {
		i := j
		if fromTop {
			i = n - 1 - j
		}
		acc += probs[i] * f
		seen += probs[i]
		f *= step
	}
	if j < n {
		acc += math.Max(mass-seen, 0) * decayFloor
	}
	return acc
}

// decayFloor is where decayingSum stops: far below any sum that matters,
// above the subnormal range where the recurrence loses precision.
const decayFloor = 1e-300

// minOnLogGrid minimises f, which is quasi-convex in k (see
// chernoffWindow), over k in [−logGridReach, logGridReach]: a coarse pass at
// step 4 over −8 … 8, continued in steps of 4 beyond an end for as long as f
// keeps decreasing there, then refinements at steps 2 and 1 around the best
// point. The continuation matters for exponentially thin but far tails,
// where the optimum lies far from the Gaussian guess: the pessimistic "add"
// PMF of q = 0.01, σ = 0.1 at h = 1e-3 has its bulk within a grid point
// of 0.01 (variance 0.2 index²) and a 4e-87 atom at −142.85 (the truncated
// tail, put on the first grid point), so over T = 100 steps its lower bound
// is best at s ≈ s*/2900 (−60 nats); within s*/16 … 16s* it stays below
// −14000 nats, a window of 14.1M points instead of 61k — ErrTooLarge (ε =
// +Inf) instead of ε = 354.196.
func minOnLogGrid(f func(int) float64) float64 {
	best, bestK := math.Inf(1), 0
	for k := -8; k <= 8; k += 4 {
		if v := f(k); v < best {
			best, bestK = v, k
		}
	}
	for _, dir := range [...]int{-1, 1} {
		if bestK != 8*dir {
			continue
		}
		for k := bestK + 4*dir; -logGridReach <= k && k <= logGridReach; k += 4 * dir {
			v := f(k)
			if !(v < best) {
				break
			}
			best, bestK = v, k
		}
	}
	for _, step := range [...]int{2, 1} {
		c := bestK
		for _, k := range [...]int{c - step, c + step} {
			if k < -logGridReach || k > logGridReach {
				continue
			}
			if v := f(k); v < best {
				best, bestK = v, k
			}
		}
	}
	return best
}

// logGridReach bounds the search of minOnLogGrid to s*·2^{±40} (a factor
// 1e12 each way), far beyond any useful order but finite.
const logGridReach = 80
