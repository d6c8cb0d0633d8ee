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

	// split, when set, evaluates δ(ε) as an exact affine part plus a
	// residual computed to full precision (see hockeySplit); the sampled
	// Gaussian provides it.
	split hockeySplit
	// forward, for a pair that is its own mirror image, is split at ε ≥ 0
	// (see symmetricConnectDots).
	forward hockeySplit
}

// Delta returns the hockey-stick divergence δ(ε) of the pair: for a loss
// that is non-increasing in x, L(x) ≥ ε exactly when x ≤ x_ε = InverseLoss(ε),
// so δ(ε) = CDF(x_ε) − e^ε·exp(LowerLogCDF(x_ε)), clipped to [0, 1].
func (m MonotoneLoss) Delta(eps float64) float64 {
	var d float64
	if m.split != nil {
		em1 := math.Expm1(eps)
		r, f := m.split(eps, em1)
		d = r + f.affine(em1)
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
	return m.connectDotsLimit(interval, MaxPMFLen)
}

// connectDotsLimit is ConnectDots with at most limit grid points.
func (m MonotoneLoss) connectDotsLimit(interval float64, limit int) (*PMF, error) {
	if err := m.check(interval); err != nil {
		return nil, err
	}
	if m.split != nil {
		return connectDots(interval, m.Loss(m.XHigh), m.Loss(m.XLow), m.split, limit)
	}
	if m.HockeyStick == nil && m.LowerLogCDF == nil {
		return nil, invalidf("connect-the-dots needs HockeyStick or LowerLogCDF")
	}
	return connectDots(interval, m.Loss(m.XHigh), m.Loss(m.XLow), func(eps, _ float64) (float64, hockeyForm) { return m.Delta(eps), formDirect }, limit)
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
	return connectDots(interval, lossLow, lossHigh, func(eps, _ float64) (float64, hockeyForm) { return hockeyStick(eps), formDirect }, MaxPMFLen)
}

func connectDots(interval, lossLow, lossHigh float64, f hockeySplit, limit int) (*PMF, error) {
	g, err := evalHockeyGrid(interval, lossLow, lossHigh, f, limit)
	if err != nil {
		return nil, err
	}
	return g.pmf()
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
	return m.buckets(interval, pessimistic, MaxPMFLen)
}

// buckets is Buckets with at most limit grid points.
func (m MonotoneLoss) buckets(interval float64, pessimistic bool, limit int) (*PMF, error) {
	if err := m.check(interval); err != nil {
		return nil, err
	}
	lossTop, lossBottom := m.Loss(m.XLow), m.Loss(m.XHigh)
	top := math.Floor(lossTop / interval) // loss of the first piece lies in [top·h, (top+1)·h]
	bottom := math.Floor(lossBottom / interval)
	if top-bottom+3 > float64(limit) {
		return nil, fmt.Errorf("buckets on [%v, %v] at interval %v: %w", lossBottom, lossTop, interval, tooLarge(top-bottom+3, limit))
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
