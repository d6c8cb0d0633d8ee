package audit

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/privacy"
	"gonum.org/v1/gonum/mathext"
)

// The order-statistics one-run audit of Xiang et al. (2025), "Tight
// privacy audit in one run" (arXiv 2509.08704; code
// zihangxiang/tight-privacy-audit-in-one-run @6359b19), as in reference
// note §3. n canaries with uniform bits pass through a channel (P, Q) of a
// one-parameter family; the decoder guesses every bit by likelihood ratio
// and releases only its r most confident guesses; T is the number of
// mistakes among them. The paper's Theorem 2 gives T's distribution for
// that model:
//
//	P[T ≤ u] = ∫ Beta(w; n−r, r+1) · P[Bin(r, γ̄(w)) ≤ u] dw    (r < n)
//	P[T ≤ u] = P[Bin(n, e_opt) ≤ u]                             (r = n)
//
// where W is the score quantile of the best discarded guess and γ̄(w) the
// mean error rate of the guesses above it. The ε lower bound is the ε at δ
// of the largest family parameter θ whose p-value P[T ≤ u] is below
// 1 − confidence.
//
// What it tests (note §3 caveats (a), (b), erratum E3): the claim "the
// mechanism is in the family with parameter ≤ θ" — μ-GDP for the Gaussian
// family, the one-step subsampled Gaussian with rate q fixed for the SGM
// family — not (ε, δ)-DP in general; its extension from the product
// channel with the LR-optimal decoder to arbitrary mechanisms rests on the
// paper's transmission-dominance argument, which the note could not check.
// Hence its own estimate family, FamilyOneRunOrderStats.

// OSFamily is the parametric family of an order-statistics audit; its
// parameter θ is μ (the Gaussian's shift, sensitivity / noise).
type OSFamily struct {
	// SamplingRate q: 1 (or 0) is the Gaussian family (μ-GDP); q in (0, 1)
	// the Poisson-subsampled Gaussian of one step with rate q.
	SamplingRate float64
}

// Name is how the family appears in result tables.
func (f OSFamily) Name() string {
	if f.gaussian() {
		return "gaussian (mu-GDP)"
	}
	return fmt.Sprintf("subsampled gaussian (q=%g, one step)", f.SamplingRate)
}

func (f OSFamily) gaussian() bool { return f.SamplingRate == 0 || f.SamplingRate == 1 }

func (f OSFamily) check() error {
	if !(f.SamplingRate >= 0 && f.SamplingRate <= 1) {
		return invalidf("order-statistics family: sampling rate must be in (0, 1], got %v", f.SamplingRate)
	}
	return nil
}

// osGrid is the number of midpoints of the channel's grid: the authors'
// compare/ setting, with which the note's checkable numbers were computed.
const (
	osGrid     = 100000
	osWNodes   = 20001
	osThetaMin = 0.01
	osThetaMax = 32
	osBisect   = 40
)

// osProfile is the channel's error profile: grid cells sorted by
// decreasing error rate γ = 1/(1 + e^|L|) of the LR decoder, with the
// mixture mass (P+Q)/2 of each.
type osProfile struct {
	gamma, wHi, gAbove []float64
	eOpt               float64
	// logLR and mass in grid order, for ε(δ).
	logLR, mass []float64
}

func newOSProfile(f OSFamily, mu float64) *osProfile {
	lo, hi := -14-math.Abs(mu), 14+math.Abs(mu)
	dx := (hi - lo) / osGrid
	p := &osProfile{logLR: make([]float64, osGrid), mass: make([]float64, osGrid)}
	logQ, log1mQ := math.Log(f.SamplingRate), math.Log1p(-f.SamplingRate)
	for j := range osGrid {
		x := lo + (float64(j)+0.5)*dx
		phi := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		var l float64
		if f.gaussian() {
			l = mu*x - mu*mu/2 // log N(μ,1)/N(0,1)
		} else {
			l = numeric.LogAddExp(log1mQ, logQ+mu*x-mu*mu/2)
		}
		p.logLR[j] = l
		p.mass[j] = 0.5 * (phi + phi*math.Exp(l)) * dx
	}
	// Decreasing γ is increasing |L|; ties by grid index (orderByAbs:
	// this runs once per bisection step).
	order := orderByAbs(p.logLR)
	p.gamma = make([]float64, osGrid)
	p.wHi = make([]float64, osGrid)
	p.gAbove = make([]float64, osGrid)
	err := make([]float64, osGrid)
	w := 0.0
	for k, j := range order {
		a := math.Abs(p.logLR[j])
		p.gamma[k] = math.Exp(-a - numeric.LogAddExp(0, -a))
		w += p.mass[j]
		p.wHi[k] = w
		err[k] = p.gamma[k] * p.mass[j]
	}
	s := 0.0
	for k := osGrid - 1; k >= 0; k-- {
		p.gAbove[k] = s
		s += err[k]
	}
	p.eOpt = s
	return p
}

// gammaBar is the mean error rate of the guesses above quantile w.
func (p *osProfile) gammaBar(w float64) float64 {
	j, _ := slices.BinarySearch(p.wHi, w)
	for j < len(p.wHi) && p.wHi[j] <= w { // searchsorted(..., right)
		j++
	}
	j = min(j, len(p.wHi)-1)
	g := p.gamma[j]*math.Max(p.wHi[j]-w, 0) + p.gAbove[j]
	return g / math.Max(1-w, 1e-300)
}

// logBinCDF is log P[Bin(r, p) ≤ u].
func logBinCDF(u, r int, p float64) float64 {
	if u >= r {
		return 0
	}
	if u < 0 {
		return math.Inf(-1)
	}
	return math.Log(mathext.RegIncBeta(float64(r-u), float64(u+1), 1-p))
}

// osQuadrature is the W integral's nodes and log Beta(n−r, r+1) density,
// which do not depend on θ.
type osQuadrature struct {
	w, logBeta []float64
	dw         float64
}

func newOSQuadrature(n, r int) *osQuadrature {
	a, b := float64(n-r), float64(r+1)
	mean := a / (a + b)
	sd := math.Sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)))
	lo, hi := math.Max(1e-15, mean-18*sd), math.Min(1-1e-15, mean+18*sd)
	q := &osQuadrature{w: make([]float64, osWNodes), logBeta: make([]float64, osWNodes), dw: (hi - lo) / (osWNodes - 1)}
	lab, _ := math.Lgamma(a + b)
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	for i := range osWNodes {
		w := lo + float64(i)*q.dw
		q.w[i] = w
		q.logBeta[i] = lab - la - lb + (a-1)*math.Log(w) + (b-1)*math.Log1p(-w)
	}
	return q
}

// osPValue is P[T ≤ u] for n canaries, r released guesses, u mistakes.
func osPValue(p *osProfile, q *osQuadrature, n, r, u int) float64 {
	if r == n {
		return math.Exp(logBinCDF(u, n, p.eOpt))
	}
	f := make([]float64, len(q.w))
	top := math.Inf(-1)
	for i, w := range q.w {
		f[i] = q.logBeta[i] + logBinCDF(u, r, p.gammaBar(w))
		top = math.Max(top, f[i])
	}
	if math.IsInf(top, -1) {
		return 0
	}
	s := 0.0
	for i, v := range f {
		t := math.Exp(v - top)
		if i == 0 || i == len(f)-1 {
			t /= 2
		}
		s += t
	}
	return math.Min(1, math.Exp(top)*s*q.dw)
}

// OrderStatsPValue returns P[T ≤ u] under the family with parameter mu:
// the probability of at most u mistakes among the r most confident of n
// LR-decoded guesses.
func OrderStatsPValue(f OSFamily, mu float64, n, r, u int) (float64, error) {
	if err := checkOS(f, n, r, u); err != nil {
		return 0, err
	}
	if !(mu > 0) || math.IsInf(mu, 1) {
		return 0, invalidf("μ must be > 0 and finite, got %v", mu)
	}
	var q *osQuadrature
	if r < n {
		q = newOSQuadrature(n, r)
	}
	return osPValue(newOSProfile(f, mu), q, n, r, u), nil
}

func checkOS(f OSFamily, n, r, u int) error {
	if err := f.check(); err != nil {
		return err
	}
	if n < 2 || r < 1 || r > n || u < 0 || u > r {
		return invalidf("order-statistics counts must satisfy 0 ≤ mistakes ≤ guesses ≤ canaries with guesses ≥ 1 and canaries ≥ 2, got n = %d, r = %d, u = %d", n, r, u)
	}
	return nil
}

// OrderStatsResult is the outcome of an order-statistics one-run audit.
type OrderStatsResult struct {
	Family    string
	Canaries  int     // n
	Guesses   int     // r released guesses
	Mistakes  int     // u
	Mu        float64 // the largest rejected parameter (bisection midpoint, as the authors')
	EpsilonLB float64 // ε at δ of the family at Mu
	// AtRangeEnd: even the largest parameter searched (μ = 32) was
	// rejected, so EpsilonLB is an artefact of the search range.
	AtRangeEnd bool
}

// OrderStatsEpsilon bounds ε from u mistakes among the r most confident of
// n guesses: θ is bisected on [0.01, 32] 40 times (the authors' settings)
// and ε is the family's ε at δ at the final midpoint — ε(μ, δ) of μ-GDP for
// the Gaussian family, the grid's δ(ε) for the subsampled one. 0 when even
// θ = 0.01 is not rejected.
func OrderStatsEpsilon(f OSFamily, n, r, u int, delta, confidence float64) (OrderStatsResult, error) {
	if err := checkOS(f, n, r, u); err != nil {
		return OrderStatsResult{}, err
	}
	if err := checkConfidence(confidence); err != nil {
		return OrderStatsResult{}, err
	}
	if !(delta > 0 && delta < 1) {
		return OrderStatsResult{}, invalidf("δ must be in (0, 1), got %v", delta)
	}
	res := OrderStatsResult{Family: f.Name(), Canaries: n, Guesses: r, Mistakes: u}
	var q *osQuadrature
	if r < n {
		q = newOSQuadrature(n, r)
	}
	target := 1 - confidence
	rejects := func(mu float64) bool { return osPValue(newOSProfile(f, mu), q, n, r, u) < target }
	if !rejects(osThetaMin) {
		return res, nil
	}
	if rejects(osThetaMax) {
		res.AtRangeEnd = true
		res.Mu = osThetaMax
	} else {
		lo, hi := float64(osThetaMin), float64(osThetaMax)
		for range osBisect {
			mid := (lo + hi) / 2
			if rejects(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		res.Mu = (lo + hi) / 2
	}
	var err error
	if f.gaussian() {
		res.EpsilonLB, err = privacy.GDPEpsilon(res.Mu, delta)
	} else {
		res.EpsilonLB = newOSProfile(f, res.Mu).epsilon(delta)
	}
	return res, err
}

// epsilon is the channel's ε at δ from its grid, δ(ε) = Σ mass ·
// max(2(1 − e^{ε−L})/(1 + e^{−L}), 0) (the authors' conversion; for the
// subsampled Gaussian this is the Q-versus-P direction), by bisection.
func (p *osProfile) epsilon(delta float64) float64 {
	deltaAt := func(eps float64) float64 {
		s := 0.0
		for j, l := range p.logLR {
			if l <= eps {
				continue
			}
			s += p.mass[j] * 2 * -math.Expm1(eps-l) / (1 + math.Exp(-l))
		}
		return s
	}
	maxL := slices.Max(p.logLR)
	lo, hi := 0.0, math.Min(200, maxL)
	if hi <= 0 || deltaAt(0) <= delta {
		return 0
	}
	for range 200 {
		mid := (lo + hi) / 2
		if deltaAt(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12 {
			break
		}
	}
	return hi
}

// OrderStatsOneRun runs the audit on per-canary log-likelihood-ratio
// scores (positive: "included" more likely; the LR decoder guesses by the
// sign, a score of exactly 0 as "included") and inclusion bits: it
// releases the r guesses with the largest |score| (ties by canary order,
// which does not look at the bits), counts the mistakes and bounds ε. r
// must be fixed before looking at the results.
func OrderStatsOneRun(f OSFamily, llr []float64, included []bool, r int, delta, confidence float64) (OrderStatsResult, error) {
	n := len(llr)
	if len(included) != n {
		return OrderStatsResult{}, invalidf("%d scores but %d inclusion bits", n, len(included))
	}
	if err := checkOS(f, n, r, 0); err != nil {
		return OrderStatsResult{}, err
	}
	for i, s := range llr {
		if math.IsNaN(s) {
			return OrderStatsResult{}, invalidf("score of canary %d is NaN", i)
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(math.Abs(llr[b]), math.Abs(llr[a])) })
	u := 0
	for _, i := range order[:r] {
		if (llr[i] >= 0) != included[i] {
			u++
		}
	}
	return OrderStatsEpsilon(f, n, r, u, delta, confidence)
}

// OneRunFDP runs the f-DP audit on scores (higher: "included" more likely)
// and inclusion bits with two-sided guesses, as Steinke et al.'s OneRun:
// "included" for the kPlus highest scores, "excluded" for the kMinus
// lowest.
func OneRunFDP(scores []float64, included []bool, kPlus, kMinus int, delta, confidence float64) (OneRunResult, float64, error) {
	m := len(scores)
	v, err := twoSidedCorrect(scores, included, kPlus, kMinus)
	if err != nil {
		return OneRunResult{}, 0, err
	}
	eps, mu, err := OneRunFDPEpsilon(m, v, kPlus+kMinus, delta, confidence)
	if err != nil {
		return OneRunResult{}, 0, err
	}
	return OneRunResult{Canaries: m, Guesses: kPlus + kMinus, Correct: v, KPlus: kPlus, KMinus: kMinus,
		EpsilonLB: eps, Confidence: confidence, Delta: delta}, mu, nil
}
