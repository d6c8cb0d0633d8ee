package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// plainTailLimit is the standardised argument below which the remove
// pair's w·Φ(x/σ) is formed in log space. Above it Φ ≥ Φ(−30) ≈ 5e-198 is a
// normal float and w = q·e^{(−½−x)/σ²} ≤ q·e^{(30σ−½)/σ²} ≤ q·e^450 is finite,
// so the plain product neither underflows nor overflows; below it — only at
// the top of the loss range when σ ≲ 1/30, with ε in the hundreds — e^ε
// itself can overflow and Φ underflow.
const plainTailLimit = -30.0

// sampledGaussianLoss returns the privacy loss of one step of the
// Poisson-subsampled Gaussian mechanism with sensitivity 1 (noise N(0, σ²)),
// as dp_accounting's GaussianPrivacyLoss:
//
//	remove: P = (1−q)·N(0,σ²) + q·N(−1,σ²), Q = N(0,σ²),
//	        L(x) = log(1 − q + q·e^{(−½−x)/σ²});
//	add:    P = N(0,σ²), Q = (1−q)·N(0,σ²) + q·N(1,σ²),
//	        L(x) = −log(1 − q + q·e^{−(½−x)/σ²}).
//
// Both are decreasing in x. Outside the range of the loss δ is 1 − e^ε
// (remove, ε ≤ log(1−q)) or 0 (add, ε ≥ −log(1−q)). Inside, the
// hockey-stick divergence at ε is evaluated at x_ε = L⁻¹(ε) from two normal
// tails. For the remove pair, with w = e^ε − 1 + q (so that
// w·φ(x_ε/σ) = q·φ((x_ε+1)/σ)),
//
//	δ(ε) = q·Φ((x+1)/σ) − w·Φ(x/σ),
//
// and each Φ near 1 is replaced by 1 − Φ̄, which moves an exact constant or
// multiple of e^ε into the affine part of the split (see hockeyForm), so
// that the residual only involves the small tail of each normal:
//
//	x ≤ −1       direct:   r = q·Φ((x+1)/σ) − w·Φ(x/σ)
//	−1 < x ≤ 0   mid:      r = −(q·Φ̄((x+1)/σ) + w·Φ(x/σ)),    δ = q + r
//	x > 0        survival: r = w·Φ̄(x/σ) − q·Φ̄((x+1)/σ),       δ = 1 − e^ε + r
//
// Every term is at most q (w·Φ(x/σ) ≤ q·Φ((x+1)/σ) because δ ≥ 0; w < q for
// x > 0), and the mid residual is a sum of same-sign terms. A two-form split
// (survival whenever x > −1) is wrong at large ε: for x in (−1, 0), w·Φ̄(x/σ)
// ≈ e^ε, and δ ≈ q is then the difference of two numbers near e^ε — at
// q = 0.01, σ = 0.1 it wobbles by 1e-10 at ε ≈ 15 (tripping the monotonicity
// check) and is quantised to 1e-3 at ε = 30. Where w·Φ(x/σ) would
// under/overflow (x/σ < plainTailLimit) it is formed in log space, and the
// direct residual as q·Φ((x+1)/σ)·(1 − e^{log w + log Φ(x/σ) − log q − log Φ((x+1)/σ)}).
//
// The add pair is the remove pair mirrored (x → −x) and reversed, so its
// regions and forms are the reversed ones (hockeyForm.reversed): direct for
// x < 0, δ = 1 − (1−q)e^ε + r for 0 ≤ x < 1, survival for x ≥ 1.
func sampledGaussianLoss(q, sigma float64, add bool) MonotoneLoss {
	s2 := sigma * sigma
	log1mq := math.Log1p(-q)
	logq := math.Log(q)
	z := sigma * numeric.NormQuantile(0.5*math.Exp(gaussianLogTailBound))
	phi := func(x float64) float64 { return numeric.NormCDF(x / sigma) }
	formMid := hockeyForm{c: q} // δ = q + r
	if add {
		return sampledGaussianAddLoss(q, sigma, z, formMid.reversed())
	}
	// logW returns log w = log(e^ε − 1 + q), also where e^ε overflows.
	logW := func(eps, em1 float64) float64 {
		if w := em1 + q; !math.IsInf(w, 1) {
			return math.Log(w)
		}
		return eps + numeric.Log1mExp(log1mq-eps)
	}
	// removeX returns x_ε = −½ − σ²·log(w/q).
	removeX := func(eps, em1 float64) float64 {
		if q == 1 {
			return -0.5 - s2*eps
		}
		lr := math.Log1p(em1 / q)
		if math.IsInf(lr, 1) {
			lr = logW(eps, em1) - logq
		}
		return -0.5 - s2*lr
	}
	// wPhi returns w·Φ(t).
	wPhi := func(eps, em1, t float64) float64 {
		if t >= plainTailLimit {
			return (em1 + q) * numeric.NormCDF(t)
		}
		return math.Exp(logW(eps, em1) + numeric.LogNormCDF(t))
	}
	m := MonotoneLoss{
		XLow: z - 1, XHigh: -z,
		Loss: func(x float64) float64 {
			l0 := (-0.5 - x) / s2
			if q == 1 {
				return l0
			}
			return numeric.LogAddExp(log1mq, logq+l0)
		},
		InverseLoss: func(l float64) float64 {
			if q < 1 && l <= log1mq {
				return math.Inf(1)
			}
			return removeX(l, math.Expm1(l))
		},
		CDF: func(x float64) float64 { return (1-q)*phi(x) + q*phi(x+1) },
	}
	m.split = func(eps, em1 float64) (float64, hockeyForm) {
		if q < 1 && eps <= log1mq {
			return 0, formSurvival // δ = 1 − e^ε exactly
		}
		x := removeX(eps, em1)
		t0, t1 := x/sigma, (x+1)/sigma
		switch {
		case x > 0:
			return (em1+q)*numeric.NormSF(t0) - q*numeric.NormSF(t1), formSurvival
		case x+1 > 0:
			return -(q*numeric.NormSF(t1) + wPhi(eps, em1, t0)), formMid
		case t0 >= plainTailLimit:
			return q*numeric.NormCDF(t1) - (em1+q)*numeric.NormCDF(t0), formDirect
		}
		la, lb := logq+numeric.LogNormCDF(t1), logW(eps, em1)+numeric.LogNormCDF(t0)
		if lb >= la {
			return 0, formDirect // rounding: δ ≥ 0
		}
		return -math.Exp(la) * math.Expm1(lb-la), formDirect
	}
	return m
}

// sampledGaussianAddLoss is the add half of sampledGaussianLoss (z: the
// lower truncation point of N(0, σ²); addMid: the form with affine part
// 1 − (1−q)e^ε). Here e^ε < 1/(1−q) on the loss range, so nothing
// overflows for q < 1.
func sampledGaussianAddLoss(q, sigma, z float64, addMid hockeyForm) MonotoneLoss {
	s2 := sigma * sigma
	log1mq := math.Log1p(-q)
	logq := math.Log(q)
	addX := func(eps float64) float64 {
		if q == 1 {
			return 0.5 - s2*eps
		}
		return 0.5 + s2*math.Log1p(math.Expm1(-eps)/q)
	}
	m := MonotoneLoss{
		XLow: z, XHigh: -z + 1,
		Loss: func(x float64) float64 {
			return -numeric.LogAddExp(log1mq, logq-(0.5-x)/s2)
		},
		InverseLoss: func(l float64) float64 {
			if l >= -log1mq {
				return math.Inf(-1)
			}
			return addX(l)
		},
		CDF: func(x float64) float64 { return numeric.NormCDF(x / sigma) },
	}
	m.split = func(eps, em1 float64) (float64, hockeyForm) {
		if eps >= -log1mq {
			return 0, formDirect
		}
		x := addX(eps)
		// Q = (1−q)P + q·P(·−1), so δ = a·Φ(x/σ) − b·Φ((x−1)/σ).
		t0, t1 := x/sigma, (x-1)/sigma
		a := q - (1-q)*em1 // 1 − e^ε(1−q)
		b := q * (1 + em1) // q·e^ε
		switch {
		case x < 0:
			return a*numeric.NormCDF(t0) - b*numeric.NormCDF(t1), formDirect
		case x < 1:
			return -(a*numeric.NormSF(t0) + b*numeric.NormCDF(t1)), addMid
		}
		return b*numeric.NormSF(t1) - a*numeric.NormSF(t0), formSurvival
	}
	return m
}
