package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/mathext"
)

// The Poisson-subsampled Gaussian under replace-one adjacency.
//
// D and D′ differ in one record, whose clipped gradients g and g′ have
// norm ≤ 1 (in units of C). The other records are sampled independently
// of it and identically in both worlds, so by joint convexity of the
// hockey-stick divergence each step is dominated by
//
//	(1−q)N(0, σ²I) + qN(g, σ²I)   against   (1−q)N(0, σ²I) + qN(g′, σ²I),
//
// and the worst g, g′ are antipodal on the unit sphere, which reduces to
// the one-dimensional pair
//
//	P = (1−q)N(0,σ²) + qN(−1,σ²),   Q = (1−q)N(0,σ²) + qN(1,σ²)
//
// (dp_accounting's GaussianPrivacyLoss with AdjacencyType.REPLACE, its
// REPLACE_ONE relation; Koskela, Jälkö & Honkela 2020, §5.2). The tests
// check numerically, on a grid of g, g′ in the plane, that no other pair
// has a larger hockey-stick divergence at any ε (TestReplaceOneAntipodalDominates).
// The pair is its own mirror image (x → −x swaps P and Q), so its PLD is
// the same in both orientations and one PMF serves the add and remove
// directions alike.
//
// With u = e^{−x/σ²} and c = e^{−1/(2σ²)}, the likelihood ratio is
// ((1−q) + qcu)/((1−q) + qc/u); solving for u at loss ε gives
//
//	x_ε = −σ²·(ε/2 + asinh(β·sinh(ε/2))),   β = (1−q)·e^{1/(2σ²)}/q
//
// (dp_accounting's _inverse_privacy_loss_replace, with sensitivity 1).
// The hockey-stick divergence at ε, with A = Φ(x/σ), B± = Φ((x±1)/σ), is
//
//	δ(ε) = P[X ≤ x_ε] − e^ε·Q[X ≤ x_ε] = q·B₊ − (1−q)(e^ε − 1)·A − q·e^ε·B₋,
//
// evaluated for ε ≥ 0 (x ≤ 0) in one of two forms whose residual holds
// only small terms (see hockeyForm):
//
//	x ≤ −1       direct: r = q·B₊ − (1−q)(e^ε−1)·A − q·e^ε·B₋
//	−1 < x ≤ 0   mid:    r = −(q·(1−B₊) + (1−q)(e^ε−1)·A + q·e^ε·B₋),   δ = q + r
//
// and for ε < 0 from the mirror identity δ(ε) = 1 − e^ε + e^ε·δ(−ε) (the
// reversed form, see connectDotsDual), so the PMF is exactly symmetric.
// Every product is formed in log space, so that e^ε (hundreds of nats at
// σ ≲ 0.05) never overflows.

// replaceOneStep is the PLD of one replace-one step (arguments checked by
// the caller).
func replaceOneStep(q, sigma, interval float64, pessimistic bool, limit int) (*PLD, error) {
	m := replaceOneLoss(q, sigma)
	var pmf *PMF
	var err error
	if pessimistic {
		pmf, err = symmetricConnectDots(interval, m.Loss(m.XLow), m.forward, limit)
	} else {
		pmf, err = m.buckets(interval, false, limit)
	}
	if err != nil {
		return nil, err
	}
	pmf.limit = limit
	return &PLD{Remove: pmf}, nil
}

// replaceOneLoss is the monotone loss of the replace-one pair (P, Q) above.
func replaceOneLoss(q, sigma float64) MonotoneLoss {
	s2 := sigma * sigma
	logq, log1mq := math.Log(q), math.Log1p(-q)
	// The same truncation as the add/remove pair: the noise beyond
	// ±9.77σ (mass e^-50 per side) around each component.
	z := sigma * mathext.NormalQuantile(0.5*math.Exp(gaussianLogTailBound))
	logBeta := log1mq + 1/(2*s2) - logq // −Inf at q = 1
	inverse := func(eps float64) float64 {
		if eps == 0 {
			return 0
		}
		a := math.Abs(eps) / 2
		t := asinhExp(logBeta + logSinh(a))
		if eps < 0 {
			t = -t
		}
		return -s2 * (eps/2 + t)
	}
	m := MonotoneLoss{
		XLow: z - 1, XHigh: 1 - z,
		Loss: func(x float64) float64 {
			if q == 1 {
				return -2 * x / s2
			}
			return numeric.LogAddExp(log1mq, logq+(-2*x-1)/(2*s2)) - numeric.LogAddExp(log1mq, logq+(2*x-1)/(2*s2))
		},
		InverseLoss: inverse,
		CDF: func(x float64) float64 {
			return (1-q)*numeric.NormCDF(x/sigma) + q*numeric.NormCDF((x+1)/sigma)
		},
	}
	formMid := hockeyForm{c: q}
	// forward is the split for ε ≥ 0. Products are formed plainly where
	// nothing can overflow or underflow (e^ε < e^600, Φ arguments above
	// plainTailLimit), else in log space.
	forward := func(eps, em1 float64) (float64, hockeyForm) {
		x := inverse(eps)
		t0, tm, tp := x/sigma, (x-1)/sigma, (x+1)/sigma
		if eps < 600 && tm >= plainTailLimit {
			a := (1 - q) * em1 * numeric.NormCDF(t0)
			b := q * (1 + em1) * numeric.NormCDF(tm)
			if x <= -1 {
				return math.Max(0, q*numeric.NormCDF(tp)-a-b), formDirect
			}
			return -(q*numeric.NormSF(tp) + a + b), formMid
		}
		// log of (1−q)(e^ε − 1)·A and q·e^ε·B₋; log(e^ε − 1) without overflow.
		logEm1 := eps + numeric.Log1mExp(-eps)
		tA := log1mq + logEm1 + numeric.LogNormCDF(t0)
		tB := logq + eps + numeric.LogNormCDF(tm)
		if x <= -1 {
			lp := logq + numeric.LogNormCDF(tp)
			if math.Max(tA, tB) >= lp {
				return 0, formDirect // rounding: δ ≥ 0
			}
			return math.Exp(lp) * (1 - math.Exp(tA-lp) - math.Exp(tB-lp)), formDirect
		}
		return -(q*numeric.NormSF(tp) + math.Exp(tA) + math.Exp(tB)), formMid
	}
	m.split = func(eps, em1 float64) (float64, hockeyForm) {
		if eps >= 0 {
			return forward(eps, em1)
		}
		r, f := forward(-eps, math.Expm1(-eps))
		return math.Exp(eps) * r, f.reversed()
	}
	m.forward = forward
	return m
}

// symmetricConnectDots is connect-the-dots for a pair that is its own
// mirror image, δ(−ε) = 1 − e^{−ε} + e^{−ε}·δ(ε): the grid is made
// symmetric, the split is evaluated at ε ≥ 0 only and reflected (as
// connectDotsDual reverses a pair), which halves the special-function
// work.
func symmetricConnectDots(interval, lossHigh float64, forward hockeySplit, limit int) (*PMF, error) {
	K := int(math.Ceil(lossHigh / interval))
	if float64(2*K+1) > float64(limit) {
		return nil, tooLarge(float64(2*K+1), limit)
	}
	n := 2*K + 1
	g := &hockeyGrid{interval: interval, k0: -K, vals: make([]float64, n), em1: make([]float64, n), form: make([]uint8, n),
		forms: make([]hockeyForm, 0, 4)}
	for j := 0; j <= K; j++ {
		eps := float64(j) * interval
		em1 := math.Expm1(eps)
		v, f := forward(eps, em1)
		if math.IsNaN(v) {
			return nil, invalidf("hockey-stick divergence is NaN at ε = %v", eps)
		}
		fi, ri := g.formIndex(f), g.formIndex(f.reversed())
		if fi < 0 || ri < 0 {
			return nil, invalidf("hockey-stick split uses too many forms")
		}
		g.vals[K+j], g.em1[K+j], g.form[K+j] = v, em1, uint8(fi)
		if j > 0 {
			ep := 1 + em1
			g.vals[K-j], g.form[K-j] = v/ep, uint8(ri)
			g.em1[K-j] = -em1 / ep
			if math.IsInf(ep, 1) {
				g.vals[K-j], g.em1[K-j] = 0, -1
			}
		}
	}
	return g.pmf()
}

// logSinh returns log(sinh(a)) for a > 0.
func logSinh(a float64) float64 {
	if a > 1 {
		return a + math.Log1p(-math.Exp(-2*a)) - math.Ln2
	}
	return math.Log(math.Sinh(a))
}

// asinhExp returns asinh(e^y) without overflow.
func asinhExp(y float64) float64 {
	if y > 20 {
		return y + math.Log1p(math.Sqrt(1+math.Exp(-2*y)))
	}
	return math.Asinh(math.Exp(y))
}
