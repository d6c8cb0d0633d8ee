package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Exponential tilting for accurate upper tails of an FFT self-composition
// (the "shifted FFT" of Keich 2005, "sFFT: a faster accurate computation of
// the p-value of the entropy score", J. Comput. Biol. 12(4)). An FFT's
// rounding error is absolute, about u·log L·T relative to the largest mass,
// so masses far below it (the upper tail that decides ε at δ ≲ 1e-10) come
// out as noise. Tilting commutes with convolution: with
// p̃_i = p_i·e^{θ·h·i}/Z, the T-fold convolutions satisfy
//
//	p^{*T}_j = p̃^{*T}_j · exp(T·log Z − θ·h·j),
//
// so a tilt whose T-fold mean sits at the loss of interest makes those
// masses the bulk of p̃^{*T}, computed with an error small relative to them.
// Far below that loss the untilting factor amplifies the error instead,
// which is why the tilted bound is only taken where it is the tighter one.

// tiltedSelfCompose returns probs (the plain transform's bounds on the
// T-fold composition of p in the window starting at index lo, transform
// length L) refined with the bounds of the composition tilted towards the
// loss at: each mass becomes min(plain, tilted) for a pessimistic PMF (both
// are upper bounds) and max(plain, tilted) for an optimistic one (both
// lower bounds). The refined masses overwrite the tilted transform's own
// buffer, so probs is left as it is and no copy of it is made (at T = 10⁶
// each is 21 MB); when no tilt θ > 0 moves the mean up to at, probs itself
// is returned.
func (p *PMF) tiltedSelfCompose(T, L, lo int, at float64, probs []float64) []float64 {
	h := p.interval
	// The T-fold sum's loss is T·offset·h + j·h for index sum j; the tilted
	// mean index per step must be at/(T·h) − offset.
	target := at/(float64(T)*h) - float64(p.offset)
	theta, logZ, ok := tiltFor(p.probs, target)
	if !ok {
		return probs
	}
	n := len(p.probs)
	tilted := make([]float64, n)
	for i, x := range p.probs {
		if x > 0 {
			tilted[i] = math.Exp(math.Log(x) + theta*float64(i) - logZ)
		}
	}
	out := make([]float64, len(probs))
	eta := selfConvolveCircular(tilted, L, T, lo%L, out)
	t := float64(T)
	// Relative rounding of the tilt (each p̃_i to a few units of
	// 1 + |θi| + |log Z|, which the T-fold product multiplies by T) and of
	// the untilting exponent: a factor (1 ± rel) covers both.
	rel := 16 * 0x1p-53 * t * (2 + math.Abs(logZ) + theta*float64(n) + math.Log2(float64(n)+1))
	// Where η·e^e ≥ 2 the pessimistic tilted bound exceeds every mass
	// (each is at most 1 + 2η), so it cannot win and its exp is skipped: at
	// T = 10⁶ that is most of the window below the tilt.
	useless := 700.0 // the untilted error bound is useless (and would overflow) above this
	if p.pessimistic && eta > 0 && skipLosingUntilts {
		useless = math.Min(useless, math.Log(2/eta)+1)
	}
	// The exponent falls with k (θ > 0), so the skipped coefficients are a
	// prefix; the rest are untilted a block at a time, their exps by
	// numeric.ExpBlock (math.Exp's bits, four at a time).
	k0 := 0
	for k0 < len(out) && t*logZ-theta*float64(lo+k0) > useless {
		k0++
	}
	copy(out[:k0], probs)
	var es, fs [untiltBlock]float64
	for b0 := k0; b0 < len(out); b0 += untiltBlock {
		n := min(untiltBlock, len(out)-b0)
		n4 := (n + 3) &^ 3
		for i := range n4 {
			es[i] = 0
			if i < n {
				es[i] = t*logZ - theta*float64(lo+b0+i)
			}
		}
		numeric.ExpBlock(fs[:n4], es[:n4])
		for i, e := range es[:n] {
			k, f := b0+i, fs[i]
			plain, tilted := probs[k], out[k]
			out[k] = plain
			if e > useless {
				continue
			}
			if p.pessimistic {
				if b := (maxZero(tilted) + eta) * f * (1 + rel); b < plain {
					out[k] = b
				}
			} else if b := maxZero(tilted-eta) * f * (1 - rel); b > plain {
				out[k] = b
			}
		}
	}
	return out
}

// untiltBlock is how many untilting factors tiltedSelfCompose computes at
// a time (a multiple of 4; 4 KiB each for exponents and factors).
const untiltBlock = 512

// skipLosingUntilts is false only in the test that checks the skip
// against the full loop.
var skipLosingUntilts = true

// tiltComposed returns plain — p's T-fold self-composition by SelfCompose
// with DefaultTailMass — with its masses refined as SelfComposeAt(T,
// DefaultTailMass, at) refines them: the same PMF, bit for bit, without
// running the plain transform a second time.
func (p *PMF) tiltComposed(T int, at float64, plain *PMF) (*PMF, error) {
	if math.IsNaN(at) || math.IsInf(at, 0) {
		return nil, invalidf("tilt loss must be finite, got %v", at)
	}
	lo := plain.offset - p.offset*T
	L := fftLen(max(len(plain.probs), len(p.probs)))
	c := *plain
	c.probs = p.tiltedSelfCompose(T, L, lo, at, plain.probs)
	if len(c.probs) > 0 && &c.probs[0] == &plain.probs[0] {
		c.probs = append([]float64(nil), plain.probs...) // no tilt: plain's masses, in a PMF of their own
	}
	return &c, nil
}

// tiltFor returns θ > 0 (per grid index) such that the distribution
// ∝ probs_i·e^{θi} has mean index ≈ target, and log Z = log Σ probs_i·e^{θi}
// for that θ; ok is false when the untilted mean is already at or above
// target (no tilt helps) or no θ below 1e6 reaches it. θ need not be
// accurate — every θ gives valid bounds, a poor one only less tight ones —
// so the search starts from the Gaussian guess (target − mean)/variance and
// bisects θ in log scale to 2% (about 15 passes over probs).
func tiltFor(probs []float64, target float64) (theta, logZ float64, ok bool) {
	lp := make([]float64, len(probs))
	for i, x := range probs {
		lp[i] = math.Log(x) // −Inf for 0: e^{−Inf} = 0 below
	}
	moments := func(th float64) (m, v, lz float64) {
		mx := math.Inf(-1)
		for i, l := range lp {
			mx = math.Max(mx, l+th*float64(i))
		}
		// The weights a block at a time by numeric.ExpBlock (math.Exp's
		// bits), summed in index order as one at a time.
		var s, si, sii float64
		var es, ws [untiltBlock]float64
		for b := 0; b < len(lp); b += untiltBlock {
			n := min(untiltBlock, len(lp)-b)
			n4 := (n + 3) &^ 3
			for k := range n4 {
				es[k] = 0
				if k < n {
					es[k] = lp[b+k] + th*float64(b+k) - mx
				}
			}
			numeric.ExpBlock(ws[:n4], es[:n4])
			for k, w := range ws[:n] {
				i := b + k
				s += w
				si += w * float64(i)
				sii += w * float64(i) * float64(i)
			}
		}
		m = si / s
		return m, math.Max(sii/s-m*m, 1e-12), mx + math.Log(s)
	}
	m0, v0, _ := moments(0)
	if !(m0 < target) {
		return 0, 0, false
	}
	lo, hi := 0.0, (target-m0)/v0
	for {
		if m, _, _ := moments(hi); m >= target {
			break
		}
		lo, hi = hi, 4*hi
		if hi > 1e6 {
			return 0, 0, false
		}
	}
	for hi-lo > 0.02*hi {
		mid := math.Sqrt(math.Max(lo, hi/64) * hi)
		if m, _, _ := moments(mid); m < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, _, logZ = moments(hi)
	return hi, logZ, true
}
