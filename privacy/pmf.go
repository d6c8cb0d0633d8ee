package privacy

import (
	"iter"
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// PMF is a discretised distribution of a privacy loss L: mass Prob(i) at
// the loss (Offset()+i)·Interval() for i in [0, Len()), plus InfinityMass()
// at L = +∞. For a pair of distributions (P, Q) it is the law of
// L = log(dP/dQ)(X) with X ∼ P — the privacy loss distribution (PLD) of
// Dwork & Rothblum, as in Google's dp_accounting — but nothing here assumes
// that: any distribution on the grid can be stored, composed and queried,
// e.g. the loss of a pair (μ, ν) evaluated under ν.
//
// Discretisation error. A pessimistic PMF dominates the true loss
// distribution (connect-the-dots builds the tightest such PMF on the grid,
// Doroshenko et al. 2022), so δ(ε) computed from it is an upper bound on the
// true δ(ε), and ε(δ) an upper bound on the true ε(δ); an optimistic PMF
// (losses rounded down) gives lower bounds. Rounding moves each loss by less
// than one interval h, so after T compositions ε is off by at most T·h. In
// practice connect-the-dots is far better: its error shrinks like h². For
// DP-SGD on MNIST (q = 256/60000, σ = 1.1, T = 14063, δ = 1e-5) the
// pessimistic ε is 2.383114, 2.382046, 2.381779, 2.381712, 2.381695 at
// h = 4e-4, 2e-4, 1e-4, 5e-5, 2.5e-5 — about 9e-5 above the limit at the
// default 1e-4. Rounding down (privacy buckets) is biased by ≈ T·h/2 (0.7
// there). Truncated tails are accounted for: in pessimistic mode their mass
// goes to the infinity atom, so results stay upper bounds.
type PMF struct {
	interval    float64
	offset      int
	probs       []float64
	infMass     float64
	pessimistic bool
	// roundingBound is the per-entry bound on the floating-point error of
	// the FFT that produced probs, already added to (pessimistic) or
	// subtracted from (optimistic) every mass; 0 for exact constructions.
	roundingBound float64
	// limit caps the grid points of compositions of this PMF (0:
	// MaxPMFLen); the accountant raises it to what Options.PLDMemory
	// allows, and compositions inherit it.
	limit int
}

// maxLen is the grid-point cap of compositions of p.
func (p *PMF) maxLen() int {
	if p.limit > 0 {
		return p.limit
	}
	return MaxPMFLen
}

// RoundingBound returns the bound on the floating-point error of each mass
// that the last FFT composition added (pessimistic) or subtracted
// (optimistic); 0 when the masses were not produced by an FFT.
func (p *PMF) RoundingBound() float64 { return p.roundingBound }

// NewPMF builds a PMF from its parts. probs is copied; its entries and
// infinityMass must be finite and ≥ 0, and the total mass must not exceed 1
// (up to 1e-9 of rounding). pessimistic records how the losses were rounded;
// only PMFs of the same interval and rounding can be composed.
func NewPMF(interval float64, offset int, probs []float64, infinityMass float64, pessimistic bool) (*PMF, error) {
	if !(interval > 0) || math.IsInf(interval, 1) {
		return nil, invalidf("PMF interval must be > 0 and finite, got %v", interval)
	}
	if !(infinityMass >= 0 && infinityMass <= 1) {
		return nil, invalidf("PMF infinity mass must be in [0, 1], got %v", infinityMass)
	}
	total := infinityMass
	for i, p := range probs {
		if !(p >= 0) || math.IsInf(p, 1) {
			return nil, invalidf("PMF probability %d must be finite and ≥ 0, got %v", i, p)
		}
		total += p
	}
	if total > 1+1e-9 {
		return nil, invalidf("PMF total mass must be ≤ 1, got %v", total)
	}
	return &PMF{interval: interval, offset: offset, probs: append([]float64(nil), probs...),
		infMass: infinityMass, pessimistic: pessimistic}, nil
}

// Interval returns the grid spacing h of the losses.
func (p *PMF) Interval() float64 { return p.interval }

// Offset returns the grid index of the first stored loss: Loss(0) = Offset()·h.
func (p *PMF) Offset() int { return p.offset }

// Len returns the number of stored grid points.
func (p *PMF) Len() int { return len(p.probs) }

// Loss returns the loss at stored index i, (Offset()+i)·Interval().
func (p *PMF) Loss(i int) float64 { return float64(p.offset+i) * p.interval }

// Prob returns the mass at stored index i.
func (p *PMF) Prob(i int) float64 { return p.probs[i] }

// Probs returns a copy of the stored masses.
func (p *PMF) Probs() []float64 { return append([]float64(nil), p.probs...) }

// InfinityMass returns the mass at L = +∞.
func (p *PMF) InfinityMass() float64 { return p.infMass }

// Pessimistic reports whether losses were rounded up (δ and ε computed from
// the PMF are upper bounds) rather than down.
func (p *PMF) Pessimistic() bool { return p.pessimistic }

// Mass returns the total mass, finite grid plus infinity (1 up to rounding
// and any truncation that was discarded rather than moved to infinity).
func (p *PMF) Mass() float64 {
	s := p.infMass
	for _, x := range p.probs {
		s += x
	}
	return s
}

// All iterates over the finite (loss, probability) pairs in increasing
// order of loss, zeros included. The infinity atom is not part of it.
func (p *PMF) All() iter.Seq2[float64, float64] {
	return func(yield func(float64, float64) bool) {
		for i, x := range p.probs {
			if !yield(p.Loss(i), x) {
				return
			}
		}
	}
}

// Survival returns P[L > t], the infinity atom included.
func (p *PMF) Survival(t float64) float64 {
	s := p.infMass
	for i := len(p.probs) - 1; i >= 0 && p.Loss(i) > t; i-- {
		s += p.probs[i]
	}
	return s
}

// DualSurvival returns Σ_{finite l > t} e^{−l}·P[L = l]. When the PMF is the
// loss of a pair (P, Q) under P, this is Q[L > t] (the infinity atom has no
// Q-mass); for a discretised PMF it inherits the rounding direction.
func (p *PMF) DualSurvival(t float64) float64 {
	s := 0.0
	for i := len(p.probs) - 1; i >= 0 && p.Loss(i) > t; i-- {
		s += p.probs[i] * math.Exp(-p.Loss(i))
	}
	return s
}

// DeltaForEpsilon returns the ε-hockey-stick divergence
//
//	δ(ε) = P[L = ∞] + Σ_{l > ε} (1 − e^{ε−l})·P[L = l],
//
// which is the δ of (ε, δ)-DP when the PMF is a mechanism's PLD.
func (p *PMF) DeltaForEpsilon(eps float64) float64 {
	d := p.infMass
	for i := len(p.probs) - 1; i >= 0; i-- {
		l := p.Loss(i)
		if l <= eps {
			break
		}
		d += -math.Expm1(eps-l) * p.probs[i]
	}
	return math.Min(math.Max(d, 0), 1)
}

// EpsilonForDelta returns the smallest ε ≥ 0 with DeltaForEpsilon(ε) ≤ δ,
// or +Inf when the infinity atom alone exceeds δ.
//
// It walks down from the largest loss keeping U = P[L ≥ l] (∞ included) and
// W = Σ_{l' ≥ l} e^{−l'}P[L = l']; between grid points δ(ε) = U − e^ε W, so the
// answer is log((U − δ)/W) as soon as that lies above the next loss down
// (the rule of dp_accounting's _get_epsilon_for_delta, with the log test
// rewritten as a product to save a log per point). W is kept scaled by
// e^{ref}, with ref moved down whenever e^{ref−l} would leave [1, e^600]:
// losses of several hundred nats (σ ≲ 0.03, or thousands of steps at small
// σ) would otherwise underflow e^{−l}, leaving only P[L ≥ l] ≥ δ to go by —
// an ε up to a nat too high, which in optimistic mode is no lower bound.
func (p *PMF) EpsilonForDelta(delta float64) float64 {
	if p.infMass > delta {
		return math.Inf(1)
	}
	upper, lower := p.infMass, 0.0
	ref := 0.0
	if n := len(p.probs); n > 0 {
		ref = p.Loss(n - 1)
	}
	// The weights e^{ref−l} of a block of losses come from numeric.ExpBlock
	// (math.Exp's bits, four at a time); a block ends early where ref must
	// move (ref − l > 600) and the walk where ε is found.
	var es, xs [epsBlock]float64
	for hi := len(p.probs) - 1; hi >= 0; {
		n := 0
		for ; n < epsBlock && hi-n >= 0; n++ {
			l := p.Loss(hi - n)
			if ref-l > 600 {
				if n == 0 {
					lower *= math.Exp(l - ref)
					ref = l
				} else {
					break
				}
			}
			xs[n] = ref - l
		}
		n4 := (n + 3) &^ 3
		for k := n; k < n4; k++ {
			xs[k] = 0
		}
		numeric.ExpBlock(es[:n4], xs[:n4])
		for k := range n {
			i, ex := hi-k, es[k]
			if upper > delta && lower > 0 && (upper-delta)*ex >= lower {
				return epsilonFrom(upper, lower, delta, ref) // log((U−δ)/W) ≥ l: ε lies at or above this loss
			}
			upper += p.probs[i]
			lower += ex * p.probs[i]
		}
		hi -= n
	}
	return epsilonFrom(upper, lower, delta, ref)
}

// epsBlock is how many weights EpsilonForDelta computes at a time (a
// multiple of 4).
const epsBlock = 256

// epsilonFrom is ε = log((U − δ)/W) + ref, or 0 when U ≤ δ.
func epsilonFrom(upper, lower, delta, ref float64) float64 {
	if upper <= delta || lower <= 0 {
		return 0
	}
	return math.Max(0, math.Log((upper-delta)/lower)+ref)
}
