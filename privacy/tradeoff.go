package privacy

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// TradeOff is what an accountant says about attacks on DP-SGD: the
// trade-off curves of the mechanism (see Curve), from which the risk
// panel's numbers — TPR at a given FPR, the maximal advantage, Bayes
// accuracy, and (package bounds) re-identification, attribute-inference and
// reconstruction success — are read.
type TradeOff struct {
	// Accountant is the accountant whose curves these are ("best" for the
	// pointwise maximum of the valid ones).
	Accountant Accountant
	// Valid reports that a proof puts both curves on or below the true ones
	// (PLD with pessimistic rounding, RDP, best, and GDP at q = 1). The GDP
	// curve at q < 1 is the central-limit approximation: it can lie above
	// the true curve (claim less attack power than is possible), so it is
	// not Valid.
	Valid bool
	// Exact reports a closed form with no discretisation (μ-GDP at q = 1).
	Exact bool
	// PLDInterval is the discretisation interval of the PLD behind the
	// curves (0 when none was run).
	PLDInterval float64
	// Mu is the μ of a GDP curve (exact √T/σ at q = 1, the CLT value
	// otherwise); 0 for the other accountants (see Curve.FitGDP).
	Mu float64
	// Symmetric is the f-DP curve of the mechanism under add/remove
	// adjacency: the largest convex curve below both orientations,
	// min(T(M(D), M(D ∖ {z})), T(M(D), M(D ∪ {z})))** (Dong, Roth & Su 2022,
	// App. F). It bounds membership inference whichever way the neighbours
	// are ordered, and is what riskcal and dp_accounting report.
	Symmetric Curve
	// Added is the one orientation T(M(D), M(D ∪ {z})): an adversary who
	// knows D and tests whether the record z was added to it — the pair of
	// Hayes et al.'s reconstruction game (their μ and ν). It lies on or
	// above Symmetric; the two differ only on the stretch where the
	// symmetrisation draws its straight segment.
	Added Curve
}

// TradeOffCurve returns the trade-off curves of m according to acc. See
// ComposedTradeOffCurve.
func TradeOffCurve(acc Accountant, m SampledGaussian, o Options) (*TradeOff, error) {
	return ComposedTradeOffCurve(acc, []SampledGaussian{m}, o)
}

// ComposedTradeOffCurve returns the trade-off curves of running all the
// mechanisms in ms:
//
//   - pld: read off the discretised privacy-loss distribution, the same one
//     the PLD accountant's ε comes from (curveFromPMF). Pessimistic
//     rounding dominates the true pair, so the curves lie on or below the
//     true ones; the discretisation error behaves as ε's does (at most T·h
//     in the loss, in practice of order h²);
//   - rdp: the curve every order's Rényi bound allows (rdpCurve), looser;
//   - gdp: G_μ, exact at q = 1 (μ = √T/σ) and the CLT approximation
//     otherwise (not Valid);
//   - best: the pointwise maximum of the valid curves (RDP and PLD; exact
//     GDP alone at q = 1, which no valid bound improves on).
//
// With no noise (σ = 0) the curves are β = 0: an attack can be perfect.
func ComposedTradeOffCurve(acc Accountant, ms []SampledGaussian, o Options) (*TradeOff, error) {
	if err := checkAccounting(acc, ms, o); err != nil {
		return nil, err
	}
	if noNoise(ms) {
		return &TradeOff{Accountant: acc, Valid: true, Mu: math.Inf(1)}, nil
	}
	switch acc {
	case AccountantPLD:
		return pldTradeOff(ms, o)
	case AccountantRDP:
		r, err := rdpOf(ms, o)
		if err != nil {
			return nil, err
		}
		c := Curve{shape: shapeRDP, rdp: &rdpCurve{rdp: r, conversion: o.Conversion}}
		return &TradeOff{Accountant: acc, Valid: true, Symmetric: c, Added: c}, nil
	case AccountantGDP:
		mu, exact := gdpMuOf(ms)
		c := Curve{shape: shapeGDP, mu: mu}
		return &TradeOff{Accountant: acc, Valid: exact, Exact: exact, Mu: mu, Symmetric: c, Added: c}, nil
	}
	return bestTradeOff(ms, o)
}

func pldTradeOff(ms []SampledGaussian, o Options) (*TradeOff, error) {
	d, h, err := pldOf(ms, o)
	out := &TradeOff{Accountant: AccountantPLD, Valid: !o.Optimistic, PLDInterval: h}
	if errors.Is(err, ErrTooLarge) {
		return out, nil // the accountant gave up (ε = +Inf): the trivial curve
	}
	if err != nil {
		return nil, err
	}
	out.Symmetric, out.Added = pldCurves(d)
	return out, nil
}

// pldCurves reads both curves off a PLD: Add is the PLD of
// (M(D), M(D ∪ {z})), Remove of (M(D), M(D ∖ {z})) (one PMF when the two
// coincide).
func pldCurves(d *PLD) (symmetric, added Curve) {
	remove := curveFromPMF(d.Remove)
	if d.Add == nil {
		return remove, remove
	}
	added = curveFromPMF(d.Add)
	return symmetrised(remove, added), added
}

func bestTradeOff(ms []SampledGaussian, o Options) (*TradeOff, error) {
	if _, exact := gdpMuOf(ms); exact {
		t, err := ComposedTradeOffCurve(AccountantGDP, ms, o)
		if t != nil {
			t.Accountant = AccountantBest
		}
		return t, err
	}
	out := &TradeOff{Accountant: AccountantBest, Valid: true}
	var sym, added []Curve
	accs := []Accountant{AccountantPLD}
	if rdpCovers(ms) {
		accs = []Accountant{AccountantRDP, AccountantPLD}
	}
	for _, acc := range accs {
		t, err := ComposedTradeOffCurve(acc, ms, o)
		if err != nil {
			return nil, fmt.Errorf("best accountant: %s: %w", acc, err)
		}
		out.PLDInterval = max(out.PLDInterval, t.PLDInterval)
		sym, added = append(sym, t.Symmetric), append(added, t.Added)
	}
	out.Symmetric = Curve{shape: shapeMax, parts: sym}
	out.Added = Curve{shape: shapeMax, parts: added}
	return out, nil
}

// GDPFit is the μ-GDP curve fitted to a trade-off curve: the smallest μ
// whose G_μ lies on or below the curve at every FPR of a grid. It is an
// approximation, not a bound: between grid points, and below MinFPR, the
// curve may dip under G_μ (for Poisson subsampling it does as α → 0, where
// the mixture's heavier tail makes no finite μ fit). It is how
// dp_accounting's get_gdp_parameter_estimate fits, on our curve.
type GDPFit struct {
	// Mu is the fitted μ (+Inf when the curve reaches β = 0 on the grid).
	Mu float64
	// AtFPR is the grid FPR that decided μ (where G_μ touches the curve).
	AtFPR float64
	// MinFPR, MaxFPR and Points describe the log-spaced grid.
	MinFPR, MaxFPR float64
	Points         int
}

// DefaultGDPFitMinFPR and DefaultGDPFitPoints are FitGDP's default grid:
// 200 log-spaced FPRs from 1e-6 to 0.5 (a symmetric curve mirrors the rest).
const (
	DefaultGDPFitMinFPR = 1e-6
	DefaultGDPFitPoints = 200
)

// FitGDP fits μ on points log-spaced FPRs from minFPR to 0.5 (0 for the
// defaults). μ(α) = Φ⁻¹(1 − α) − Φ⁻¹(β(α)) is the μ whose G_μ passes
// through (α, β(α)); the fit is its maximum over the grid.
func (c Curve) FitGDP(minFPR float64, points int) (GDPFit, error) {
	if minFPR == 0 {
		minFPR = DefaultGDPFitMinFPR
	}
	if points == 0 {
		points = DefaultGDPFitPoints
	}
	if !(minFPR > 0 && minFPR < 0.5) {
		return GDPFit{}, invalidf("the GDP fit's smallest FPR must be in (0, 0.5), got %v", minFPR)
	}
	if points < 2 {
		return GDPFit{}, invalidf("the GDP fit needs at least 2 FPRs, got %d", points)
	}
	fit := GDPFit{Mu: math.Inf(-1), MinFPR: minFPR, MaxFPR: 0.5, Points: points}
	step := math.Log(0.5/minFPR) / float64(points-1)
	for i := range points {
		a := math.Min(minFPR*math.Exp(float64(i)*step), 0.5)
		b := c.Beta(a)
		mu := math.Inf(1)
		if b > 0 {
			mu = -mathext.NormalQuantile(a) - mathext.NormalQuantile(b)
		}
		if mu > fit.Mu {
			fit.Mu, fit.AtFPR = mu, a
		}
	}
	fit.Mu = math.Max(fit.Mu, 0)
	return fit, nil
}

// OrientationsAgreeBelow returns ᾱ, the FPR below which Symmetric and
// Added coincide: the smallest α at which the added curve's slope reaches
// −1 (Dong, Roth & Su 2022, App. F: the symmetrisation follows the curve up
// to ᾱ, then draws a straight segment of slope −1 to (f(ᾱ), ᾱ)). 1 when the
// two are the same curve (GDP, RDP, q = 1).
func (t *TradeOff) OrientationsAgreeBelow() float64 {
	return t.Added.slopeMinusOne()
}

// slopeMinusOne is ᾱ for a vertex curve (and the smallest over the parts of
// a maximum); 1 for curves that are symmetric by construction.
func (c Curve) slopeMinusOne() float64 {
	switch c.shape {
	case shapeVertices:
		for k := 1; k < len(c.alpha); k++ {
			da := c.alpha[k] - c.alpha[k-1]
			if da > 0 && c.beta[k-1]-c.beta[k] <= da {
				return math.Max(c.alpha[k-1], 0)
			}
		}
	case shapeMax:
		a := 1.0
		for _, p := range c.parts {
			a = math.Min(a, p.slopeMinusOne())
		}
		return a
	}
	return 1
}
