package privacy

import (
	"fmt"
	"math"
)

// hockeyForm names an exact rewriting of a hockey-stick divergence as
//
//	δ(ε) = c + s·(e^ε − 1) + r(ε):
//
// an affine part in e^ε, known exactly, plus a residual r that the
// mechanism computes to full precision. Connect-the-dots takes second
// differences of δ that annihilate anything affine in e^ε on the grid (see
// hockeyGrid.pmf), so only r enters the masses; what matters for their
// accuracy is the absolute rounding error of r, i.e. the magnitude of the
// terms it is computed from. Each mechanism picks, per ε, the form whose
// residual is built from the small tail probabilities only: with δ ≈ 1
// rounded to 1e-16, each mass would carry ~1e-12 of noise (divided by
// e^h − 1 ≈ h), and clipping it at zero adds ~1e-8 of spurious mass per
// step — 2e-4 after 14063 steps; with a residual of e^ε-sized terms it is
// worse still (see sampledGaussianLoss).
type hockeyForm struct{ c, s float64 }

var (
	// formDirect: r = δ.
	formDirect = hockeyForm{}
	// formSurvival: r = δ − (1 − e^ε) = e^ε·Q[L < ε] − P[L < ε], small at
	// the low-loss end where δ ≈ 1 − e^ε.
	formSurvival = hockeyForm{0, -1}
)

// affine returns c + s·em1 for em1 = e^ε − 1 (exactly c when s = 0, even if
// e^ε overflowed).
func (f hockeyForm) affine(em1 float64) float64 {
	if f.s == 0 {
		return f.c
	}
	return f.c + f.s*em1
}

// minus returns f's affine part minus o's at em1, without forming either.
func (f hockeyForm) minus(o hockeyForm, em1 float64) float64 {
	d := f.c - o.c
	if ds := f.s - o.s; ds != 0 {
		d += ds * em1
	}
	return d
}

// reversed returns the form of the reversed pair (see connectDotsDual): if
// δ_{P,Q}(−ε) = c + s(e^{−ε} − 1) + r, then δ_{Q,P}(ε) = 1 − e^ε + e^ε·δ_{P,Q}(−ε)
// = c + (c − s − 1)(e^ε − 1) + e^ε·r. Direct and survival swap.
func (f hockeyForm) reversed() hockeyForm { return hockeyForm{f.c, f.c - f.s - 1} }

// hockeySplit returns the hockey-stick divergence at ε as a residual r and
// the form it is relative to: δ(ε) = f.affine(em1) + r. The caller passes
// em1 = expm1(ε), which it needs anyway (+Inf when e^ε overflows).
type hockeySplit func(eps, em1 float64) (r float64, f hockeyForm)

// hockeyGrid holds δ on the grid ε_j = (k0 + j)·h in split form: residual
// vals[j] relative to forms[form[j]], with em1[j] = e^{ε_j} − 1. A split uses
// a handful of forms, in contiguous runs along the grid.
type hockeyGrid struct {
	interval float64
	k0       int
	vals     []float64
	em1      []float64
	form     []uint8
	forms    []hockeyForm
}

func evalHockeyGrid(interval, lossLow, lossHigh float64, f hockeySplit, limit int) (*hockeyGrid, error) {
	if !(interval > 0) || math.IsInf(interval, 1) {
		return nil, invalidf("discretisation interval must be > 0 and finite, got %v", interval)
	}
	if math.IsNaN(lossLow) || math.IsNaN(lossHigh) || math.IsInf(lossLow, 0) || math.IsInf(lossHigh, 0) || lossLow > lossHigh {
		return nil, invalidf("loss range must be finite with low ≤ high, got [%v, %v]", lossLow, lossHigh)
	}
	lo, hi := math.Floor(lossLow/interval), math.Ceil(lossHigh/interval)
	if hi-lo+1 > float64(limit) {
		return nil, fmt.Errorf("connect-the-dots on [%v, %v] at interval %v: %w", lossLow, lossHigh, interval, tooLarge(hi-lo+1, limit))
	}
	n := int(hi-lo) + 1
	g := &hockeyGrid{interval: interval, k0: int(lo), vals: make([]float64, n), em1: make([]float64, n), form: make([]uint8, n),
		forms: make([]hockeyForm, 0, 4)}
	cur := -1 // index of the previous point's form
	for i := range g.vals {
		eps := float64(g.k0+i) * interval
		em1 := math.Expm1(eps)
		v, form := f(eps, em1)
		if math.IsNaN(v) {
			return nil, fmt.Errorf("privacy: hockey-stick divergence is NaN at ε = %v", eps)
		}
		if cur < 0 || g.forms[cur] != form {
			if cur = g.formIndex(form); cur < 0 {
				return nil, fmt.Errorf("privacy: hockey-stick split uses more than %d forms", math.MaxUint8+1)
			}
		}
		g.vals[i], g.em1[i], g.form[i] = v, em1, uint8(cur)
	}
	return g, nil
}

// formIndex returns the index of f in g.forms, adding it if new; −1 when
// the table is full.
func (g *hockeyGrid) formIndex(f hockeyForm) int {
	for k, o := range g.forms {
		if o == f {
			return k
		}
	}
	if len(g.forms) > math.MaxUint8 {
		return -1
	}
	g.forms = append(g.forms, f)
	return len(g.forms) - 1
}

// in returns the residual of point j relative to form f. Forms only change
// where their residuals are comparable, so the conversion costs no
// precision.
func (g *hockeyGrid) in(j int, f hockeyForm) float64 {
	fj := g.forms[g.form[j]]
	if fj == f {
		return g.vals[j]
	}
	return g.vals[j] + fj.minus(f, g.em1[j])
}

// pmf applies the connect-the-dots formulas (see ConnectDotsPMF) to the
// grid. For an affine part A(ε) = c + s(e^ε − 1) the interior stencil
// (A_{k+1} − A_k) − e^h(A_k − A_{k−1}) is exactly 0, and the first point's
// 1 − A_0 + (A_1 − A_0)/(e^h − 1) is the constant 1 − c + s, so interior and
// first masses are computed from residuals in the form of their point.
func (g *hockeyGrid) pmf() (*PMF, error) {
	n, interval := len(g.vals), g.interval
	// δ must be non-increasing; allow rounding noise.
	prev := math.Inf(1)
	for j := range g.vals {
		d := clip01(g.in(j, formDirect))
		if d-prev > 1e-12 {
			return nil, fmt.Errorf("privacy: hockey-stick divergence increases at ε = %v (%v → %v); is the loss monotone?",
				float64(g.k0+j)*interval, prev, d)
		}
		prev = math.Min(prev, d)
	}
	probs := make([]float64, n)
	last := clip01(g.in(n-1, formDirect))
	if n == 1 {
		probs[0] = 1 - last
	} else {
		em1 := math.Expm1(interval)
		ed := math.Exp(interval)
		f0 := g.forms[g.form[0]]
		v0 := g.vals[0]
		if f0 == formDirect {
			v0 = clip01(v0) // 1 − δ_0 is a probability
		}
		probs[0] = (1 - f0.c + f0.s) - v0 + (g.in(1, f0)-g.vals[0])/em1
		for i := 1; i < n-1; i++ {
			a, b, c := g.vals[i-1], g.vals[i], g.vals[i+1]
			if fi := g.form[i]; g.form[i-1] != fi || g.form[i+1] != fi {
				f := g.forms[fi]
				a, c = g.in(i-1, f), g.in(i+1, f)
			}
			probs[i] = ((c - b) - ed*(b-a)) / em1
		}
		// The last stencil does not annihilate e^ε; δ is small there.
		probs[n-1] = (g.in(n-1, formDirect) - g.in(n-2, formDirect)) / math.Expm1(-interval)
		clipNegative(probs)
	}
	return &PMF{interval: interval, offset: g.k0, probs: probs, infMass: last, pessimistic: true}, nil
}

func clip01(x float64) float64 { return math.Min(math.Max(x, 0), 1) }

// connectDotsDual returns the connect-the-dots PMFs of a pair (P, Q) and of
// the reversed pair (Q, P), evaluating δ_{P,Q} once. For every event S,
// e^{−ε}Q(S) − P(S) = P(Sᶜ) − e^{−ε}Q(Sᶜ) − (1 − e^{−ε}), so
//
//	δ_{Q,P}(ε) = 1 − e^ε + e^ε·δ_{P,Q}(−ε):
//
// in the split representation the reversed residual at ε is e^ε times the
// forward residual at −ε, relative to the reversed form (hockeyForm.reversed),
// which keeps the precision of each end. The reversed grid is the negated
// forward grid. The sampled Gaussian's "add" pair is the reverse of its
// "remove" pair under x → −x, so this halves the special-function work of a
// PLD.
func connectDotsDual(interval, lossLow, lossHigh float64, f hockeySplit, limit int) (forward, reverse *PMF, err error) {
	g, err := evalHockeyGrid(interval, lossLow, lossHigh, f, limit)
	if err != nil {
		return nil, nil, err
	}
	if forward, err = g.pmf(); err != nil {
		return nil, nil, err
	}
	n := len(g.vals)
	r := hockeyGrid{interval: interval, k0: -(g.k0 + n - 1), vals: make([]float64, n), em1: make([]float64, n),
		form: make([]uint8, n), forms: make([]hockeyForm, len(g.forms))}
	for k, fk := range g.forms {
		r.forms[k] = fk.reversed()
	}
	for j := range r.vals {
		i := n - 1 - j
		ep := 1 + g.em1[i] // e^{ε_i} of the forward point, ε_i = −ε_j
		r.vals[j] = g.vals[i] / ep
		r.form[j] = g.form[i]
		if math.IsInf(ep, 1) {
			r.em1[j] = -1
		} else {
			r.em1[j] = -g.em1[i] / ep // e^{−ε_i} − 1 = −(e^{ε_i} − 1)/e^{ε_i}
		}
	}
	reverse, err = r.pmf()
	return forward, reverse, err
}
