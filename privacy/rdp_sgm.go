package privacy

import (
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Rényi DP of one step of the Poisson-subsampled Gaussian mechanism under
// add/remove adjacency (Mironov, Talwar & Zhang 2019, "Rényi Differential
// Privacy of the Sampled Gaussian Mechanism"). With noise multiplier σ and
// sampling rate q the order-α RDP is log(A_α)/(α−1), where
//
//	A_α = E_{x∼N(0,σ²)} [(1 − q + q·e^{(2x−1)/(2σ²)})^α].
//
// Integer α: the exact binomial sum (MTZ §3.2)
//
//	A_α = Σ_{i=0}^{α} C(α,i) (1−q)^{α−i} q^i e^{(i²−i)/(2σ²)}.
//
// Fractional α: the MTZ §3.3 series, split at z₀ = σ² log(1/q − 1) + ½,
//
//	A_α = Σ_{i≥0} C(α,i) [ (1−q)^{α−i} q^i e^{(i²−i)/(2σ²)} · ½erfc((i−z₀)/(√2σ))
//	                     + q^{α−i} (1−q)^i e^{(j²−j)/(2σ²)} · ½erfc((z₀−j)/(√2σ)) ],  j = α−i,
//
// summed with the sign of C(α,i), which alternates from i = ⌊α⌋+1 on.
// (Google's dp_accounting sums |terms| since 2024, which slightly overstates
// RDP; the signed series is the exact value and is checked against
// quadrature in the tests.) The usual path sums in linear scale from cached
// special-function values and accelerates the alternating tail (see
// logAFracLinear); a log-space path with plain summation and a quadrature
// fallback covers small σ and large α. σ → 0 gives +Inf, never NaN.

const (
	// maxSeriesTerms caps the plainly summed (log-space) series. Its tail
	// decays only polynomially when q is near ½ or σ is small; past the cap
	// the series is accepted if its alternating-series error bound is below
	// seriesAcceptRel, and otherwise the order is integrated numerically
	// (rdpQuadratureLogA).
	maxSeriesTerms  = 4000
	seriesAcceptRel = 1e-12
	// Stop once both halves of a term are decreasing and small enough that
	// the RDP value log(A)/(α−1) is exact to seriesRDPRel relative (or A to
	// e^-37 ≈ 8.5e-17 relative when log A is tiny): in the alternating region
	// the truncation error is below the first omitted term.
	seriesRDPRel  = 1e-11
	seriesStopRel = 8.5e-17
	seriesStopLog = -37.0
	// maxCVZTerms caps the accelerated tail; 40 terms reach 2·5.83^-40 ≈ 1e-30.
	maxCVZTerms = 40
	// linearLimit: the fast path of the series works in linear scale and is
	// used only while every factor stays below e^linearLimit.
	linearLimit = 600.0
	// maxLinearOrder: above it |C(α,i)| (up to 2^α) could overflow the linear path.
	maxLinearOrder = 300
)

// tinySigma: below it 1/(2σ²) overflows the exponent range of every term,
// and the RDP is +Inf for practical purposes (it exceeds α/(2σ²)·(1−o(1)) ≈ 1e199).
const tinySigma = 1e-100

// RDPSampledGaussian returns the order-α RDP of one step of the
// Poisson-subsampled Gaussian mechanism with sampling rate q and noise
// multiplier σ (add/remove adjacency). σ = 0 means no noise and gives +Inf.
// q = 1 gives the plain Gaussian α/(2σ²) exactly.
func RDPSampledGaussian(q, sigma, alpha float64) (float64, error) {
	if err := checkSamplingRate(q); err != nil {
		return 0, err
	}
	if err := checkNoise(sigma, true); err != nil {
		return 0, err
	}
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	return newSGMEvaluator(q, sigma).rdp(alpha), nil
}

func checkOrder(alpha float64) error {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return invalidf("RDP order must be > 1 and finite, got %v", alpha)
	}
	return nil
}

// sgmEvaluator computes RDP values of one (q, σ) pair at many orders.
//
// Why the caches: in the fractional series the first half-term depends on i
// only, and the second on u = i − α only, so both are cached — the first per
// (q, σ), the second per class of orders that share a fractional part (the
// default grid has nine classes, .1 … .9). With the special functions cached,
// each term costs a few multiplications, which is what makes a full
// 156-order curve take tens of microseconds.
type sgmEvaluator struct {
	q, sigma      float64
	logq, log1mq  float64
	logOdds       float64 // log(q/(1−q))
	invTwoSigma2  float64 // 1/(2σ²)
	z0            float64
	invSqrt2Sigma float64
	infinite      bool // σ ≈ 0: RDP = +Inf
	full          bool // q == 1: plain Gaussian

	h0      []float64    // h0[i] = log[q^i (1−q)^{−i} e^{(i²−i)/(2σ²)} ½erfc((i−z₀)/(√2σ))]
	h0exp   []float64    // exp(h0[i])
	classes []*fracClass // few (9 for the default grid): a slice beats a map
}

// fracClass caches, for orders α = n + frac, the α-dependent half-term
//
//	g(u) = log[q^{−u} (1−q)^{u} e^{(u²+u)/(2σ²)} ½erfc((z₀+u)/(√2σ))],  u = i − α,
//
// at u = d − frac for integers d = i − n (so that (1−q)^α·C(α,i)·e^{g} is the
// second half-term), grown on demand in both directions.
type fracClass struct {
	frac        float64
	pos, posExp []float64 // d = 0, 1, 2, …
	neg, negExp []float64 // d = −1, −2, …
}

func newSGMEvaluator(q, sigma float64) *sgmEvaluator {
	e := &sgmEvaluator{q: q, sigma: sigma}
	buf := make([]float64, 128)
	e.h0, e.h0exp = buf[0:0:64], buf[64:64:128]
	switch {
	case sigma < tinySigma:
		e.infinite = true
		return e
	case q == 1:
		e.full = true
	}
	e.logq = math.Log(q)
	e.log1mq = math.Log1p(-q)
	e.logOdds = e.logq - e.log1mq
	e.invTwoSigma2 = 1 / (2 * sigma * sigma)
	e.z0 = sigma*sigma*(e.log1mq-e.logq) + 0.5
	e.invSqrt2Sigma = 1 / (math.Sqrt2 * sigma)
	return e
}

// rdp returns the one-step RDP at order α (> 1).
func (e *sgmEvaluator) rdp(alpha float64) float64 {
	switch {
	case e.infinite:
		return math.Inf(1)
	case e.full:
		return alpha * e.invTwoSigma2
	}
	var logA float64
	if alpha == math.Trunc(alpha) && alpha <= 1<<20 {
		logA = e.logAInt(int(alpha))
	} else {
		logA = e.logAFrac(alpha)
	}
	if logA < 0 {
		// A_α ≥ 1 by Jensen; a tiny negative log is rounding noise.
		logA = 0
	}
	return logA / (alpha - 1)
}

// intSkipLog: binomial-sum terms below e^-44 of the largest are dropped;
// even 1024 of them change A by < 1e-16 relative.
const intSkipLog = -44.0

// logAInt evaluates the exact binomial sum in log space without taking an
// exp for every term.
//
// Why this works: the log-term t(i) = log C(α,i) + i·log(q/(1−q)) + (i²−i)/(2σ²)
// has discrete second difference ≥ 1/σ² − 1/(i+1) − 1/(α−i−1), so it is
// convex except within k ≈ 2σ² of either end. The largest term is therefore
// in one of the two end zones (a convex stretch peaks at its ends), and
// walking inward from each zone until terms fall below e^-44 of the largest
// visits every term that matters: everything between the two stopping
// points lies below the larger of them. For large α (128 … 1024 in the
// default grid) this touches a few dozen of the α+1 terms.
func (e *sgmEvaluator) logAInt(alpha int) float64 {
	lf := logFactorialTable()
	if alpha >= len(lf) {
		return e.logAIntLgamma(alpha)
	}
	base := lf[alpha] + float64(alpha)*e.log1mq
	term := func(i int) float64 {
		fi := float64(i)
		return base - lf[i] - lf[alpha-i] + fi*e.logOdds + (fi*fi-fi)*e.invTwoSigma2
	}
	k := int(math.Min(4*e.sigma*e.sigma, float64(alpha))) + 2 // end-zone width ≥ 2σ²+1
	leftEnd, rightStart := k, alpha-k                         // zones [0, leftEnd] and [rightStart, α]
	if rightStart <= leftEnd+1 {
		leftEnd, rightStart = alpha, alpha+1 // no convex middle: treat everything as one zone
	}
	maxT := math.Inf(-1) // (plain comparisons: math.Max's NaN handling costs a call here)
	for i := 0; i <= leftEnd; i++ {
		if t := term(i); t > maxT {
			maxT = t
		}
	}
	for i := rightStart; i <= alpha; i++ {
		if t := term(i); t > maxT {
			maxT = t
		}
	}
	if math.IsInf(maxT, 1) {
		return maxT
	}
	s := 0.0
	add := func(t float64) bool {
		if d := t - maxT; d > intSkipLog {
			s += math.Exp(d)
			return true
		}
		return false
	}
	for i := 0; i <= leftEnd; i++ {
		add(term(i))
	}
	lo := leftEnd + 1 // first index of the convex middle not yet visited
	for ; lo < rightStart && add(term(lo)); lo++ {
	}
	for i := rightStart; i <= alpha; i++ {
		add(term(i))
	}
	for hi := rightStart - 1; hi > lo && add(term(hi)); hi-- {
	}
	return maxT + math.Log(s)
}

// logAIntLgamma is logAInt for orders beyond the log-factorial table.
func (e *sgmEvaluator) logAIntLgamma(alpha int) float64 {
	a := float64(alpha)
	la, _ := math.Lgamma(a + 1)
	acc := math.Inf(-1)
	for i := 0; i <= alpha; i++ {
		fi := float64(i)
		li, _ := math.Lgamma(fi + 1)
		lr, _ := math.Lgamma(a - fi + 1)
		acc = numeric.LogAddExp(acc, la-li-lr+a*e.log1mq+fi*e.logOdds+(fi*fi-fi)*e.invTwoSigma2)
	}
	return acc
}

// h0At returns h0[i] and its exponential, extending the cache.
func (e *sgmEvaluator) h0At(i int) (float64, float64) {
	for len(e.h0) <= i {
		k := float64(len(e.h0))
		l, x := e.halfTerm(k*e.logOdds+(k*k-k)*e.invTwoSigma2, (k-e.z0)*e.invSqrt2Sigma)
		e.h0 = append(e.h0, l)
		e.h0exp = append(e.h0exp, x)
	}
	return e.h0[i], e.h0exp[i]
}

// g returns the log of the second half-term factor at u (see fracClass) and
// its exponential.
func (e *sgmEvaluator) g(u float64) (float64, float64) {
	return e.halfTerm(-u*e.logOdds+(u*u+u)*e.invTwoSigma2, (e.z0+u)*e.invSqrt2Sigma)
}

// halfTerm returns log and value of e^a·½erfc(w). The common case (moderate
// a, erfc not underflowing) costs one exp and one erfc; the log it returns
// is then only an upper bound (a), which is all the overflow guard of the
// linear path needs. Otherwise it is computed in log space and its value may
// be ±Inf, which the linear path rejects through the guard.
func (e *sgmEvaluator) halfTerm(a, w float64) (logV, v float64) {
	switch {
	case a < linearLimit && w < numeric.ErfcxAsymptotic:
		return a, 0.5 * math.Exp(a) * math.Erfc(w)
	case w >= numeric.ErfcxAsymptotic && a-w*w < linearLimit:
		// erfc(w) = e^{−w²}·erfcx(w): one exp, and no underflow of erfc.
		return a - w*w, 0.5 * math.Exp(a-w*w) * numeric.ErfcxLarge(w)
	}
	l := a + numeric.LogErfc(w) - math.Ln2
	return l, math.Exp(l)
}

// class returns the cache for orders whose fractional part is frac.
// Fractional parts within 1e-14 share a class: 1.3 − 1 and 2.3 − 2 differ in
// the last bits, and the resulting change of u moves a term by ~1e-13 of
// itself.
func (e *sgmEvaluator) class(frac float64) *fracClass {
	for _, c := range e.classes {
		if math.Abs(c.frac-frac) <= 1e-14 {
			return c
		}
	}
	// Tails need ~10–30 terms; sizing up front avoids regrowth.
	buf := make([]float64, 128)
	c := &fracClass{frac: frac, pos: buf[0:0:32], posExp: buf[32:32:64], neg: buf[64:64:96], negExp: buf[96:96:128]}
	e.classes = append(e.classes, c)
	return c
}

// gAt returns g(d − frac) and its exponential, extending the class cache.
func (e *sgmEvaluator) gAt(c *fracClass, d int) (float64, float64) {
	if d >= 0 {
		for len(c.pos) <= d {
			l, x := e.g(float64(len(c.pos)) - c.frac)
			c.pos = append(c.pos, l)
			c.posExp = append(c.posExp, x)
		}
		return c.pos[d], c.posExp[d]
	}
	k := -d - 1
	for len(c.neg) <= k {
		l, x := e.g(-float64(len(c.neg)+1) - c.frac)
		c.neg = append(c.neg, l)
		c.negExp = append(c.negExp, x)
	}
	return c.neg[k], c.negExp[k]
}

// logAFrac evaluates the signed MTZ series at a fractional order.
func (e *sgmEvaluator) logAFrac(alpha float64) float64 {
	if alpha <= maxLinearOrder {
		if v, ok := e.logAFracLinear(alpha); ok {
			return v
		}
	}
	return e.logAFracLog(alpha)
}

// logAFracLinear sums the series in linear scale with C(α,i) by recurrence
// and cached half-terms: no special function per term. The positive head
// i ≤ ⌊α⌋ is summed directly and the alternating tail i ≥ ⌊α⌋+1 with the
// acceleration of Cohen, Rodriguez Villegas & Zagier (2000, Algorithm 1).
//
// Why the acceleration is exact to a known bound: for i > α the tail terms
// are (−1)^{i−i₀}·a_i with a_i = |C(α,i)|·(x0_i + x1_i), and a is a Hausdorff
// moment sequence — |C(α,i)| = (|sin πα|/π)·∫₀¹ t^{i−α−1}(1−t)^α dt, and each
// half-term equals ½·e^{−z₀²/(2σ²)}·erfcx(w) with w linear in i (the exponent
// of e^a·erfc(w) collapses to that constant), and erfcx(w) = (2/√π)∫₀^∞
// e^{−s²−2ws} ds is a Laplace transform in i. For such sequences the
// n-term CVZ sum errs by at most 2·a_{i₀}/(3+√8)^n, so n is chosen from that
// bound and the tolerance. This needs ~10 tail terms where plain summation
// of the polynomially decaying tail needed up to 70.
//
// It reports !ok when a factor would leave the safe exponent range (small
// σ, large α), and the caller takes the log-space path.
func (e *sgmEvaluator) logAFracLinear(alpha float64) (float64, bool) {
	n := math.Floor(alpha)
	ni := int(n)
	cls := e.class(alpha - n)
	limit := linearLimit - alpha*math.Ln2 // |C(α,i)| ≤ 2^α
	term := func(i int, c float64) (float64, bool) {
		l0, x0 := e.h0At(i)
		l1, x1 := e.gAt(cls, i-ni)
		if l0 > limit || l1 > limit {
			return 0, false
		}
		return c * (x0 + x1), true
	}
	c := 1.0 // C(α, i)
	head := 0.0
	i0 := ni + 1 // first index of the alternating tail (C(α, i0) > 0, then signs alternate)
	for i := 0; i < i0; i++ {
		if i > 0 {
			c *= (alpha - float64(i) + 1) / float64(i)
		}
		t, ok := term(i, c)
		if !ok {
			return 0, false
		}
		head += t
	}
	if head <= 0 {
		return 0, false
	}
	c *= (alpha - float64(i0) + 1) / float64(i0)
	a0, ok := term(i0, c)
	if !ok {
		return 0, false
	}
	// Tolerance on A: RDP = log(A)/(α−1) to seriesRDPRel relative, or A to
	// seriesStopRel when log A is tiny.
	tol := head * math.Max(seriesStopRel, seriesRDPRel*(math.Log(head)+alpha*e.log1mq))
	// Smallest n with 2·a0/(3+√8)^n ≤ tol (d tracks (3+√8)^n).
	terms, d := 1, 3+2*math.Sqrt2
	for terms < maxCVZTerms && 2*a0 > tol*d {
		terms++
		d *= 3 + 2*math.Sqrt2
	}
	// CVZ Algorithm 1 on a_k = |t_{i0+k}|, k < terms.
	d = (d + 1/d) / 2
	b, cc, s := -1.0, -d, 0.0
	ak := a0
	for k := 0; k < terms; k++ {
		if k > 0 {
			i := i0 + k
			c *= (alpha - float64(i) + 1) / float64(i)
			t, ok := term(i, c)
			if !ok {
				return 0, false
			}
			ak = math.Abs(t)
		}
		cc = b - cc
		s += cc * ak
		fk, fn := float64(k), float64(terms)
		b = (fk + fn) * (fk - fn) * b / ((fk + 0.5) * (fk + 1))
	}
	sum := head + s/d
	if !(sum > 0) {
		return 0, false
	}
	return math.Log(sum) + alpha*e.log1mq, true
}

// logAFracLog is the log-space form of the series, for any σ and α, with a
// quadrature fallback when it converges too slowly.
func (e *sgmEvaluator) logAFracLog(alpha float64) float64 {
	sum := newSignedLogSum()
	floorA := math.Floor(alpha)
	logC := 0.0 // log|C(α, i)|
	negative := false
	lastS0, lastS1 := math.Inf(1), math.Inf(1)
	lastTerm := math.Inf(1)
	for i := 0; i < maxSeriesTerms; i++ {
		fi := float64(i)
		if i > 0 {
			// C(α,i) = C(α,i−1)·(α−i+1)/i; the factor turns negative once
			// i−1 > ⌊α⌋, flipping the sign at every later step.
			f := alpha - fi + 1
			logC += math.Log(math.Abs(f)) - math.Log(fi)
			if f < 0 {
				negative = !negative
			}
		}
		k := fi * e.logOdds
		s0 := logC + alpha*e.log1mq + k + (fi*fi-fi)*e.invTwoSigma2 + numeric.LogErfc((fi-e.z0)*e.invSqrt2Sigma) - math.Ln2
		u := fi - alpha
		s1 := logC + alpha*e.log1mq - u*e.logOdds + (u*u+u)*e.invTwoSigma2 + numeric.LogErfc((e.z0+u)*e.invSqrt2Sigma) - math.Ln2
		if math.IsNaN(s0) || math.IsNaN(s1) {
			return math.NaN()
		}
		if math.IsInf(s0, 1) || math.IsInf(s1, 1) {
			return math.Inf(1)
		}
		sum.add(negative, s0)
		sum.add(negative, s1)
		m := math.Max(s0, s1)
		lastTerm = m
		if fi > floorA+1 && s0 < lastS0 && s1 < lastS1 && m < sum.log()+seriesStopLog {
			return sum.log()
		}
		lastS0, lastS1 = s0, s1
	}
	// Past the alternating threshold with decreasing terms, the truncation
	// error is below the last term.
	if total := sum.log(); lastTerm < total+math.Log(seriesAcceptRel) {
		return total
	}
	return rdpQuadratureLogA(e.q, e.sigma, alpha)
}

var logFactorialTable = sync.OnceValue(func() []float64 {
	const n = 4096
	t := make([]float64, n+1)
	for k := 2; k <= n; k++ {
		t[k] = t[k-1] + math.Log(float64(k))
	}
	return t
})
