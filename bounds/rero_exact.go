package bounds

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/privacy"
)

// The exact method (our improvement; no paper has it). Per step the pair
// (μ_step, ν) = ((1−q)N(0,σ²) + qN(1,σ²), N(0,σ²)) is the "remove" pair of
// the Poisson-subsampled Gaussian with sensitivity 1 (mirrored: x → −x), and
// over T steps the losses add, so B_κ(μ, ν) is read off T-fold
// self-compositions of discretised one-step loss distributions:
//
//   - Upper: the connect-the-dots PMF of the loss under μ (Doroshenko et al.
//     2022; built from the pair's hockey-stick curve, stepHockeyStick, by
//     privacy.ConnectDotsPMF — the accountant's "remove" PMF) is the PLD
//     of a pair that dominates (μ_step, ν), and domination survives
//     composition, so its hockey-stick curve δ⁺(ε) ≥ δ(ε) for every ε. As
//     B_κ = inf_ε [δ(ε) + κ·e^ε] (every E has μ(E) ≤ δ(ε) + e^ε·ν(E), with
//     equality for the Neyman–Pearson set), inf_ε [δ⁺(ε) + κe^ε] ≥ B_κ. On a
//     PMF this infimum is the Neyman–Pearson power against the "dual" masses
//     e^{−l}·P[L = l]: take atoms from the largest loss down until their dual
//     mass reaches κ, the last one fractionally.
//   - Lower: round each step's loss down to the grid, L' = ⌊L/h⌋h, and take
//     its exact law under μ_step and under ν (privacy buckets). The sum of
//     rounded losses is a statistic of the released gradients, so the test
//     "reject when ΣL' > t, randomise at t" with ν-level κ is a valid attack
//     on the hypothesis test, and its power (from the composed μ-law) is at
//     most B_κ. Rounding only blurs the ordering of outcomes within one grid
//     cell, so this lower value is very close to B_κ.
//
// (Rounding both laws up or down gives two *lower* values — both are valid
// tests — not an upper and a lower one; the upper value needs the
// domination argument.) Truncated tails and FFT rounding are added to the
// bracket as slack, so Lower ≤ B_κ ≤ Upper holds up to float64 rounding.

// exactTailMass is the mass each self-composition may truncate (moved to +∞
// in the pessimistic PMF, dropped or moved down in the rounded-down ones).
const exactTailMass = 1e-14

// maxExactRefinements caps the adaptive grid refinement, and
// maxExactCoarsenings the retries with a coarser grid when the first one
// does not fit in privacy.MaxPMFLen points.
const (
	maxExactRefinements = 6
	maxExactCoarsenings = 4
)

// reroExact returns exact brackets for every κ, refining the grid until all
// of them are narrower than o.Tolerance (or using o.Interval if set).
func reroExact(m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	if m.SamplingRate == 1 {
		return fullBatchResults(m, kappas), nil
	}
	return reroExactFFT(m, kappas, o)
}

// fullBatchResults returns the closed form (q = 1) as exact results: a
// bracket of width 0 (up to rounding) and the Neyman–Pearson threshold
// t = μ·Φ⁻¹(1 − κ) − μ²/2 of L = μX − μ²/2, X ∼ N(0, 1) under ν, μ = √T/σ.
func fullBatchResults(m DPSGD, kappas []float64) []ReRoResult {
	mu := math.Sqrt(float64(m.Steps)) / m.NoiseMultiplier
	out := make([]ReRoResult, len(kappas))
	for i, kappa := range kappas {
		z := numeric.NormQuantile(kappa)
		g := numeric.NormCDF(z + mu)
		out[i] = ReRoResult{Gamma: g, Lower: g, Upper: g, Confidence: 1, Method: ReRoExact, Threshold: -mu*z - mu*mu/2}
	}
	return out
}

// reroExactFFT is the discretised computation (any q, including 1, which
// the tests use to check it against the closed form).
func reroExactFFT(m DPSGD, kappas []float64, o ReRoOptions) ([]ReRoResult, error) {
	if o.Interval > 0 {
		d, err := newReRoDistributions(m, alignedInterval(m.SamplingRate, o.Interval))
		if err != nil {
			return nil, err
		}
		return d.bounds(kappas), nil
	}
	q := m.SamplingRate
	h := alignedInterval(q, initialInterval(m, o.Tolerance))
	var best []ReRoResult
	for refinements, coarsenings := 0, 0; ; {
		d, err := newReRoDistributions(m, h)
		if err != nil {
			if !errors.Is(err, privacy.ErrTooLarge) {
				return nil, err
			}
			if best != nil {
				return best, nil // the finest grid that fits; its width says how good it is
			}
			if coarsenings == maxExactCoarsenings || h == alignedInterval(q, 4*h) {
				return nil, err
			}
			// The first guess was too fine to fit: try a coarser grid.
			h = alignedInterval(q, 4*h)
			coarsenings++
			continue
		}
		rs := d.bounds(kappas)
		widest := 0.0
		for _, r := range rs {
			widest = math.Max(widest, r.Upper-r.Lower)
		}
		best = rs
		if widest <= o.Tolerance || refinements == maxExactRefinements {
			return rs, nil
		}
		// The width shrinks like h² (both values are second-order accurate
		// once the grid resolves the one-step loss); aim at half the tolerance.
		h = alignedInterval(q, h*math.Max(0.1, math.Min(0.7, math.Sqrt(0.5*o.Tolerance/widest))))
		refinements++
	}
}

// initialInterval is the first grid interval tried: the bracket width is
// about 5·h² once the grid resolves the one-step loss (measured over the
// settings of the tests), so √(tol/5); and at most half the one-step
// loss's spread, √(log(1 + q²(e^{1/σ²} − 1))) (its χ²-scale; 1/σ at q = 1),
// which matters when σ is large and the loss is tiny.
func initialInterval(m DPSGD, tol float64) float64 {
	q, sigma := m.SamplingRate, m.NoiseMultiplier
	spread := math.Sqrt(math.Log1p(q * q * math.Expm1(1/(sigma*sigma))))
	return math.Min(math.Sqrt(tol/5), spread/2)
}

// alignedInterval returns the largest interval ≤ h of which log(1 − q) is a
// whole multiple. Under μ and ν most steps (probability ≈ 1 − q) have a loss
// just above log(1 − q) — a near point mass when σ is small — and an atom
// that falls between grid points is split by connect-the-dots over two
// points; composed T times, the split spreads it over ~√T points, an error
// of first order in h. On the grid, it stays one atom.
func alignedInterval(q, h float64) float64 {
	if q == 1 {
		return h
	}
	l := -math.Log1p(-q)
	return l / math.Ceil(l/h)
}

// reroDistributions holds the T-fold composed loss distributions of one
// DP-SGD configuration at one grid interval.
type reroDistributions struct {
	interval float64
	// dominating is the connect-the-dots PMF of the loss under μ.
	dominating *privacy.PMF
	// roundedMu and roundedNu are the laws of the rounded-down loss under μ
	// and under ν.
	roundedMu, roundedNu *privacy.PMF
	// trimmedNu bounds the ν-probability of the outcomes whose rounded loss
	// was cut from roundedNu (T times the one-step cut).
	trimmedNu float64
}

// nuTrimMass is the ν-mass cut from the top of the one-step rounded loss.
// Under ν the loss has an exponentially thin upper tail (ν-mass ≈ e^{−l}
// times μ-mass) that reaches hundreds of nats when σ is small; no Chernoff
// window can exclude it, and it would make the composed grid 10× longer
// than needed. Cutting it means the level of the test is under-counted by
// at most T·(cut mass), which is added to the lower value's slack.
const nuTrimMass = 1e-20

// trimUpperTail removes the largest losses of p whose total mass is at most
// limit and returns the trimmed PMF and the removed mass.
func trimUpperTail(p *privacy.PMF, limit float64) (*privacy.PMF, float64, error) {
	probs := p.Probs()
	cut, removed := len(probs), 0.0
	for cut > 1 && removed+probs[cut-1] <= limit {
		removed += probs[cut-1]
		cut--
	}
	if cut == len(probs) {
		return p, 0, nil
	}
	t, err := privacy.NewPMF(p.Interval(), p.Offset(), probs[:cut], p.InfinityMass(), p.Pessimistic())
	if err != nil {
		return nil, 0, fmt.Errorf("trimming the rounded loss under ν: %w", err)
	}
	return t, removed, nil
}

func newReRoDistributions(m DPSGD, h float64) (*reroDistributions, error) {
	q, sigma, T := m.SamplingRate, m.NoiseMultiplier, m.Steps
	loss := mirroredLoss(q, sigma)
	// Losses run from L(XHigh) (≈ log(1−q), the low end) to L(XLow).
	dominatingStep, err := privacy.ConnectDotsPMF(h, loss.Loss(loss.XHigh), loss.Loss(loss.XLow), stepHockeyStick(q, sigma))
	if err != nil {
		return nil, fmt.Errorf("one-step loss at interval %v: %w", h, err)
	}
	stepMu, err := loss.withCDF(func(x float64) float64 {
		return (1-q)*numeric.NormCDF(x/sigma) + q*numeric.NormCDF((x+1)/sigma)
	}).Buckets(h, false)
	if err != nil {
		return nil, fmt.Errorf("rounded loss under μ at interval %v: %w", h, err)
	}
	stepNu, err := loss.withCDF(func(x float64) float64 { return numeric.NormCDF(x / sigma) }).Buckets(h, false)
	if err != nil {
		return nil, fmt.Errorf("rounded loss under ν at interval %v: %w", h, err)
	}
	stepNu, trimmed, err := trimUpperTail(stepNu, nuTrimMass)
	if err != nil {
		return nil, err
	}
	d := &reroDistributions{interval: h, trimmedNu: float64(T) * trimmed}
	for _, c := range []struct {
		dst  **privacy.PMF
		step *privacy.PMF
	}{{&d.dominating, dominatingStep}, {&d.roundedMu, stepMu}, {&d.roundedNu, stepNu}} {
		if *c.dst, err = c.step.SelfCompose(T, exactTailMass); err != nil {
			return nil, fmt.Errorf("composing %d steps at interval %v: %w", T, h, err)
		}
	}
	return d, nil
}

// stepHockeyStick returns the hockey-stick divergence of the one-step pair,
// δ(ε) = sup_E μ_step(E) − e^ε·ν(E) = E_μ[(1 − e^{ε−L})₊], for every real ε.
// In the mirrored coordinate y (μ_step = (1−q)N(0,σ²) + qN(−1,σ²), ν = N(0,σ²))
// the loss is ≥ ε exactly for y ≤ x_ε = −½ − σ²·log(1 + (e^ε − 1)/q), so
//
//	δ(ε) = q·Φ((x_ε+1)/σ) − (e^ε − 1 + q)·Φ(x_ε/σ)                  (ε ≥ 0)
//	     = (1 − e^ε) + (e^ε − 1 + q)·Φ̄(x_ε/σ) − q·Φ̄((x_ε+1)/σ)    (ε < 0)
//
// and δ = 1 − e^ε below the smallest loss log(1−q). For ε ≥ 0 both terms are
// taken in log space (they underflow separately for large ε, and e^ε
// overflows); for ε < 0 the survival form keeps the small correction to
// 1 − e^ε at full relative precision. Connect-the-dots takes second
// differences of δ, so its rounding matters: a form that cancels two large
// numbers (as the survival form does at large ε) makes δ non-monotone.
func stepHockeyStick(q, sigma float64) func(eps float64) float64 {
	s2 := sigma * sigma
	logq, log1mq := math.Log(q), math.Log1p(-q)
	return func(eps float64) float64 {
		if q < 1 && eps <= log1mq {
			return -math.Expm1(eps)
		}
		// lr = log(1 + (e^ε − 1)/q), x = −½ − σ²·lr.
		var lr float64
		switch {
		case q == 1:
			lr = eps
		case eps > 1:
			lr = numeric.LogAddExp(eps+math.Log1p(-math.Exp(-eps))-logq, 0)
		default:
			lr = math.Log1p(math.Expm1(eps) / q)
		}
		x := -0.5 - s2*lr
		if eps >= 0 {
			// log(e^ε − 1 + q) = ε + log(1 − (1−q)e^{−ε}).
			logW := eps + math.Log1p(-(1-q)*math.Exp(-eps))
			t1 := logq + numeric.LogNormCDF((x+1)/sigma)
			t2 := logW + numeric.LogNormCDF(x/sigma)
			if t2 >= t1 {
				return 0
			}
			return -math.Exp(t1) * math.Expm1(t2-t1)
		}
		w := math.Expm1(eps) + q
		return -math.Expm1(eps) + w*numeric.NormSF(x/sigma) - q*numeric.NormSF((x+1)/sigma)
	}
}

// mirroredLoss returns the one-step loss log(μ/ν) as a function of the
// mirrored outcome y = −w, in which it is non-increasing as
// privacy.MonotoneLoss requires: L(y) = log(1 − q + q·e^{(−1/2 − y)/σ²}).
// Outcomes beyond ±(9.77σ + 1) (Gaussian log-tail −50, as the accountant)
// are the truncated tails.
type monotoneLoss struct{ privacy.MonotoneLoss }

func mirroredLoss(q, sigma float64) monotoneLoss {
	s2 := sigma * sigma
	log1mq, logq := math.Log1p(-q), math.Log(q)
	z := sigma * numeric.NormQuantile(0.5*math.Exp(-50))
	return monotoneLoss{privacy.MonotoneLoss{
		XLow: z - 1, XHigh: -z,
		Loss: func(y float64) float64 {
			l0 := (-0.5 - y) / s2
			if q == 1 {
				return l0
			}
			return numeric.LogAddExp(log1mq, logq+l0)
		},
		InverseLoss: func(l float64) float64 {
			if q == 1 {
				return -0.5 - s2*l
			}
			if l <= log1mq {
				return math.Inf(1)
			}
			return -0.5 - s2*math.Log1p(math.Expm1(l)/q)
		},
	}}
}

func (m monotoneLoss) withCDF(cdf func(float64) float64) privacy.MonotoneLoss {
	l := m.MonotoneLoss
	l.CDF = cdf
	return l
}

// bounds reads the bracket for every κ.
func (d *reroDistributions) bounds(kappas []float64) []ReRoResult {
	out := make([]ReRoResult, len(kappas))
	for i, kappa := range kappas {
		upper, t := dualBlowUp(d.dominating, kappa)
		lower := roundedBlowUp(d.roundedMu, d.roundedNu, kappa)
		// Slack for truncation and FFT rounding: mass that is not where it
		// should be changes a Neyman–Pearson power by at most its μ-amount
		// plus e^t times its ν-amount (the slope of B at κ is e^t).
		slack := func(p *privacy.PMF) float64 { return math.Abs(1 - p.Mass()) }
		lower -= slack(d.roundedMu) + math.Exp(math.Min(t, 700))*(slack(d.roundedNu)+d.trimmedNu) + 2*exactTailMass
		upper += 2*slack(d.dominating) + 2*exactTailMass
		lower, upper = math.Max(lower, 0), math.Min(upper, 1)
		out[i] = ReRoResult{
			Gamma:      upper,
			Lower:      lower,
			Upper:      upper,
			Confidence: 1,
			Method:     ReRoExact,
			Interval:   d.interval,
			Threshold:  t,
		}
	}
	return out
}

// dualBlowUp returns inf_ε [δ(ε) + κ·e^ε] for the PLD p (the law of the loss
// under μ, with an atom at +∞) and the minimising threshold: the
// Neyman–Pearson power against the dual masses e^{−l}·p_l. From the largest
// loss down it accumulates U = P[L > l] and W = Σ_{l' > l} e^{−l'}p_{l'}; at
// the atom where W would pass κ the value is U + (κ − W)·e^l.
func dualBlowUp(p *privacy.PMF, kappa float64) (gamma, threshold float64) {
	u, w := p.InfinityMass(), 0.0
	for i := p.Len() - 1; i >= 0; i-- {
		pi := p.Prob(i)
		if pi == 0 {
			continue
		}
		l := p.Loss(i)
		dual := math.Exp(math.Log(pi) - l)
		if w+dual >= kappa {
			return math.Min(1, u+(kappa-w)*math.Exp(l)), l
		}
		u += pi
		w += dual
	}
	// The dual masses never reach κ: δ(ε) + κe^ε decreases to P[L < ∞] + inf mass as ε → −∞.
	return math.Min(1, u), math.Inf(-1)
}

// roundedBlowUp returns the power of the level-κ test that rejects for large
// values of the rounded statistic, from its laws under μ and ν on the same
// grid (no infinity atoms: the rounded-down PMFs have none; any is treated
// as the top of the order).
func roundedBlowUp(mu, nu *privacy.PMF, kappa float64) float64 {
	u, v := mu.InfinityMass(), nu.InfinityMass()
	if v >= kappa {
		return u * kappa / v
	}
	// Walk the union of the two grids from the top, by grid index.
	top := max(mu.Offset()+mu.Len(), nu.Offset()+nu.Len()) - 1
	bottom := min(mu.Offset(), nu.Offset())
	at := func(p *privacy.PMF, k int) float64 {
		i := k - p.Offset()
		if i < 0 || i >= p.Len() {
			return 0
		}
		return p.Prob(i)
	}
	for k := top; k >= bottom; k-- {
		pm, pn := at(mu, k), at(nu, k)
		if v+pn >= kappa {
			return math.Min(1, u+(kappa-v)/pn*pm)
		}
		u += pm
		v += pn
	}
	return math.Min(1, u)
}
