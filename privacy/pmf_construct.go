package privacy

import (
	"fmt"
	"math"
)

// MonotoneLoss describes a privacy loss L(x) = log(p(x)/q(x)) of a pair of
// distributions (P, Q) on the real line that is non-increasing in the
// outcome x — the shape of every additive-noise mechanism, with the outcome
// axis mirrored if needed (for an increasing loss, substitute x → −x).
// Outcomes below XLow and above XHigh form the truncated tails.
type MonotoneLoss struct {
	// Loss returns L(x); it must be non-increasing.
	Loss func(x float64) float64
	// InverseLoss returns the largest x with L(x) ≥ l: +Inf when l is at or
	// below the infimum of L, −Inf when l is above its supremum.
	InverseLoss func(l float64) float64
	// CDF is the distribution function of P, under which the loss is drawn.
	CDF func(x float64) float64
	// LowerLogCDF is log of the distribution function of Q. Only the
	// connect-the-dots constructor needs it, and only when HockeyStick is nil.
	LowerLogCDF func(x float64) float64
	// HockeyStick optionally gives δ(ε) = P[L > ε] − e^ε·Q[L > ε] directly
	// (faster or more accurate than the generic formula).
	HockeyStick func(eps float64) float64
	// XLow and XHigh bound the outcomes discretised explicitly.
	XLow, XHigh float64

	// split, when set, evaluates δ(ε) in the more accurate of two forms (see
	// hockeySplit); the sampled Gaussian provides it.
	split hockeySplit
}

// hockeySplit returns the hockey-stick divergence at ε either directly
// (sf == false: v = δ(ε)) or in survival form (sf == true:
// v = δ(ε) − (1 − e^ε) = e^ε·Q[L < ε] − P[L < ε]). Both are exact algebraic
// forms; the survival form keeps full precision where δ ≈ 1 − e^ε (the
// low-loss end), which matters because connect-the-dots takes second
// differences of δ: with δ ≈ 1 rounded to 1e-16, each mass would carry
// ~1e-12 of noise, and clipping it at zero adds ~1e-8 of spurious mass per
// step — 2e-4 after 14063 steps. The affine part 1 − e^ε has zero second
// difference on the grid, so it can be dropped from the stencil exactly.
// The caller passes em1 = expm1(ε), which it needs anyway.
type hockeySplit func(eps, em1 float64) (v float64, sf bool)

// Delta returns the hockey-stick divergence δ(ε) of the pair: for a loss
// that is non-increasing in x, L(x) ≥ ε exactly when x ≤ x_ε = InverseLoss(ε),
// so δ(ε) = CDF(x_ε) − e^ε·exp(LowerLogCDF(x_ε)), clipped to [0, 1].
func (m MonotoneLoss) Delta(eps float64) float64 {
	var d float64
	if m.split != nil {
		em1 := math.Expm1(eps)
		v, sf := m.split(eps, em1)
		if sf {
			v -= em1
		}
		d = v
	} else if m.HockeyStick != nil {
		d = m.HockeyStick(eps)
	} else {
		x := m.InverseLoss(eps)
		d = m.CDF(x) - math.Exp(eps+m.LowerLogCDF(x))
	}
	return math.Min(math.Max(d, 0), 1)
}

func (m MonotoneLoss) check(interval float64) error {
	if m.Loss == nil || m.InverseLoss == nil || m.CDF == nil {
		return invalidf("MonotoneLoss needs Loss, InverseLoss and CDF")
	}
	if !(interval > 0) || math.IsInf(interval, 1) {
		return invalidf("discretisation interval must be > 0 and finite, got %v", interval)
	}
	if !(m.XLow < m.XHigh) || math.IsInf(m.XLow, 0) || math.IsInf(m.XHigh, 0) {
		return invalidf("truncation bounds must be finite with XLow < XHigh, got [%v, %v]", m.XLow, m.XHigh)
	}
	return nil
}

// ConnectDots returns the pessimistic connect-the-dots PMF of the loss
// (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, Algorithm 1) on the
// grid from ⌊L(XHigh)/h⌋·h to ⌈L(XLow)/h⌉·h. It needs Delta (HockeyStick, or
// CDF with LowerLogCDF).
func (m MonotoneLoss) ConnectDots(interval float64) (*PMF, error) {
	if err := m.check(interval); err != nil {
		return nil, err
	}
	if m.split != nil {
		return connectDots(interval, m.Loss(m.XHigh), m.Loss(m.XLow), m.split)
	}
	if m.HockeyStick == nil && m.LowerLogCDF == nil {
		return nil, invalidf("connect-the-dots needs HockeyStick or LowerLogCDF")
	}
	return ConnectDotsPMF(interval, m.Loss(m.XHigh), m.Loss(m.XLow), m.Delta)
}

// ConnectDotsPMF returns the pessimistic connect-the-dots PMF supported on
// the grid points k·h for ⌊lossLow/h⌋ ≤ k ≤ ⌈lossHigh/h⌉, plus +∞, given the
// mechanism's hockey-stick divergence δ(ε). With δ_k = δ(k·h) and d = h, the
// masses are (Doroshenko et al. 2022, specialised to a fixed gap as in
// dp_accounting's create_pmf_pessimistic_connect_dots_fixed_gap):
//
//	p_first = 1 − δ_first + (δ_2 − δ_1)/(e^d − 1)
//	p_k     = ((δ_{k+1} − δ_k) − e^d (δ_k − δ_{k−1}))/(e^d − 1)
//	p_last  = (δ_last − δ_{last−1})/(e^{−d} − 1)
//	p_∞     = δ_last,
//
// clipped at 0. δ must be non-increasing in ε (up to 1e-12).
func ConnectDotsPMF(interval, lossLow, lossHigh float64, hockeyStick func(eps float64) float64) (*PMF, error) {
	if hockeyStick == nil {
		return nil, invalidf("connect-the-dots needs a hockey-stick function")
	}
	return connectDots(interval, lossLow, lossHigh, func(eps, _ float64) (float64, bool) { return hockeyStick(eps), false })
}

func connectDots(interval, lossLow, lossHigh float64, f hockeySplit) (*PMF, error) {
	g, err := evalHockeyGrid(interval, lossLow, lossHigh, f)
	if err != nil {
		return nil, err
	}
	return g.pmf()
}

// connectDotsDual returns the connect-the-dots PMFs of a pair (P, Q) and of
// the reversed pair (Q, P), evaluating δ_{P,Q} once. For every event S,
// e^{−ε}Q(S) − P(S) = P(Sᶜ) − e^{−ε}Q(Sᶜ) − (1 − e^{−ε}), so
//
//	δ_{Q,P}(ε) = 1 − e^ε + e^ε·δ_{P,Q}(−ε):
//
// in the split representation the reversed value at ε is e^ε times the
// forward value at −ε with the form flipped (direct ↔ survival), which
// keeps the precision of each end. The reversed grid is the negated forward
// grid. The sampled Gaussian's "add" pair is the reverse of its "remove"
// pair under x → −x, so this halves the special-function work of a PLD.
func connectDotsDual(interval, lossLow, lossHigh float64, f hockeySplit) (forward, reverse *PMF, err error) {
	g, err := evalHockeyGrid(interval, lossLow, lossHigh, f)
	if err != nil {
		return nil, nil, err
	}
	if forward, err = g.pmf(); err != nil {
		return nil, nil, err
	}
	n := len(g.vals)
	r := hockeyGrid{interval: interval, k0: -(g.k0 + n - 1), vals: make([]float64, n), affine: make([]float64, n), sf: make([]bool, n)}
	for j := range r.vals {
		i := n - 1 - j
		ep := 1 - g.affine[i] // e^{ε_i} of the forward point, ε_i = −ε_j
		r.vals[j] = g.vals[i] / ep
		r.sf[j] = !g.sf[i]
		r.affine[j] = -g.affine[i] / ep // 1 − e^{−ε_i} = (e^{ε_i} − 1)/e^{ε_i}
	}
	reverse, err = r.pmf()
	return forward, reverse, err
}

// hockeyGrid holds δ on the grid ε_j = (k0 + j)·h in split form (see
// hockeySplit) with affine[j] = 1 − e^{ε_j}.
type hockeyGrid struct {
	interval float64
	k0       int
	vals     []float64
	affine   []float64
	sf       []bool
}

func evalHockeyGrid(interval, lossLow, lossHigh float64, f hockeySplit) (*hockeyGrid, error) {
	if !(interval > 0) || math.IsInf(interval, 1) {
		return nil, invalidf("discretisation interval must be > 0 and finite, got %v", interval)
	}
	if math.IsNaN(lossLow) || math.IsNaN(lossHigh) || math.IsInf(lossLow, 0) || math.IsInf(lossHigh, 0) || lossLow > lossHigh {
		return nil, invalidf("loss range must be finite with low ≤ high, got [%v, %v]", lossLow, lossHigh)
	}
	lo, hi := math.Floor(lossLow/interval), math.Ceil(lossHigh/interval)
	if hi-lo+1 > MaxPMFLen {
		return nil, fmt.Errorf("connect-the-dots on [%v, %v] at interval %v: %w", lossLow, lossHigh, interval, ErrTooLarge)
	}
	n := int(hi-lo) + 1
	g := &hockeyGrid{interval: interval, k0: int(lo), vals: make([]float64, n), affine: make([]float64, n), sf: make([]bool, n)}
	for i := range g.vals {
		eps := float64(g.k0+i) * interval
		em1 := math.Expm1(eps)
		v, s := f(eps, em1)
		if math.IsNaN(v) {
			return nil, fmt.Errorf("privacy: hockey-stick divergence is NaN at ε = %v", eps)
		}
		g.vals[i], g.sf[i], g.affine[i] = v, s, -em1
	}
	return g, nil
}

// delta returns δ_j in the form `survival` asks for.
func (g *hockeyGrid) delta(j int, survival bool) float64 {
	switch {
	case g.sf[j] == survival:
		return g.vals[j]
	case survival:
		return g.vals[j] - g.affine[j]
	default:
		return g.vals[j] + g.affine[j]
	}
}

// pmf applies the connect-the-dots formulas to the grid.
func (g *hockeyGrid) pmf() (*PMF, error) {
	n, interval := len(g.vals), g.interval
	// δ must be non-increasing; allow rounding noise.
	prev := math.Inf(1)
	for j := range g.vals {
		d := math.Min(math.Max(g.delta(j, false), 0), 1)
		if d-prev > 1e-12 {
			return nil, fmt.Errorf("privacy: hockey-stick divergence increases at ε = %v (%v → %v); is the loss monotone?",
				float64(g.k0+j)*interval, prev, d)
		}
		prev = math.Min(prev, d)
	}
	probs := make([]float64, n)
	last := math.Min(math.Max(g.delta(n-1, false), 0), 1)
	if n == 1 {
		probs[0] = 1 - last
	} else {
		em1 := math.Expm1(interval)
		ed := math.Exp(interval)
		if g.sf[0] {
			// 1 − δ_0 + (δ_1 − δ_0)/(e^h − 1) in survival form: the affine parts
			// contribute 1 − a_0 + (a_1 − a_0)/(e^h−1) = e^{ε_0}(1 − (e^h − 1)/(e^h − 1)) = 0.
			probs[0] = -g.delta(0, true) + (g.delta(1, true)-g.delta(0, true))/em1
		} else {
			first := math.Min(math.Max(g.delta(0, false), 0), 1)
			probs[0] = 1 - first + (g.delta(1, false)-g.delta(0, false))/em1
		}
		for i := 1; i < n-1; i++ {
			s := g.sf[i]
			probs[i] = ((g.delta(i+1, s) - g.delta(i, s)) - ed*(g.delta(i, s)-g.delta(i-1, s))) / em1
		}
		probs[n-1] = (g.delta(n-1, false) - g.delta(n-2, false)) / math.Expm1(-interval)
		clipNegative(probs)
	}
	return &PMF{interval: interval, offset: g.k0, probs: probs, infMass: last, pessimistic: true}, nil
}

// Buckets returns the "privacy buckets" PMF of the loss (dp_accounting's
// non-connect-the-dots path): the outcome axis between XLow and XHigh is cut
// where the loss crosses a grid point, each piece's P-mass goes to the grid
// point above it (pessimistic) or below it (optimistic). Tails: pessimistic
// puts x < XLow at +∞ and x > XHigh at ⌈L(XHigh)/h⌉; optimistic puts x < XLow
// at ⌊L(XLow)/h⌋ and drops x > XHigh. It needs only Loss, InverseLoss and CDF,
// so it also builds the law of the loss under a distribution other than P
// (pass that distribution's CDF).
func (m MonotoneLoss) Buckets(interval float64, pessimistic bool) (*PMF, error) {
	if err := m.check(interval); err != nil {
		return nil, err
	}
	lossTop, lossBottom := m.Loss(m.XLow), m.Loss(m.XHigh)
	top := math.Floor(lossTop / interval) // loss of the first piece lies in [top·h, (top+1)·h]
	bottom := math.Floor(lossBottom / interval)
	if top-bottom+3 > MaxPMFLen {
		return nil, fmt.Errorf("buckets on [%v, %v] at interval %v: %w", lossBottom, lossTop, interval, ErrTooLarge)
	}
	// Grid indices from bottom (−1 for slack) to top+1.
	k0 := int(bottom) - 1
	probs := make([]float64, int(top)+1-k0+1)
	idx := func(l float64) int { // grid index → slot
		return int(l) - k0
	}
	var inf float64
	cdfLow, cdfHigh := m.CDF(m.XLow), m.CDF(m.XHigh)
	if pessimistic {
		inf = cdfLow
		probs[idx(math.Ceil(lossBottom/interval))] += 1 - cdfHigh
	} else {
		probs[idx(math.Floor(lossTop/interval))] += cdfLow
	}
	x, cdfX := m.XLow, cdfLow
	for r := top; x < m.XHigh; r-- {
		next := m.XHigh
		if r*interval > lossBottom {
			next = math.Min(math.Max(m.InverseLoss(r*interval), x), m.XHigh)
		}
		cdfNext := m.CDF(next)
		slot := r // optimistic: round the piece's losses in [r·h, (r+1)·h] down
		if pessimistic {
			slot = r + 1
		}
		if mass := cdfNext - cdfX; mass > 0 {
			probs[idx(slot)] += mass
		}
		x, cdfX = next, cdfNext
	}
	// Trim zero padding at both ends.
	first, last := 0, len(probs)-1
	for first < last && probs[first] == 0 {
		first++
	}
	for last > first && probs[last] == 0 {
		last--
	}
	return &PMF{interval: interval, offset: k0 + first, probs: probs[first : last+1], infMass: inf, pessimistic: pessimistic}, nil
}
