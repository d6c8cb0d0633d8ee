package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Gaussian differential privacy (Dong, Roth & Su 2022). A mechanism is μ-GDP
// when distinguishing its neighbouring outputs is no easier than telling
// N(0,1) from N(μ,1); the Gaussian mechanism with sensitivity Δ and noise σ
// is exactly (Δ/σ)-GDP, and μ-GDP is equivalent to (ε, δ(ε))-DP for all ε ≥ 0
// with
//
//	δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).

// GDPMu returns the central-limit μ of T steps of the Poisson-subsampled
// Gaussian mechanism (Bu, Dong, Long & Su 2020, "Deep learning with Gaussian
// differential privacy", Thm. 5): μ = q·√(T·(e^{1/σ²} − 1)). T may be
// fractional (e.g. epochs·N/batch). It is an approximation (the CLT limit),
// optimistic for small T or large q. σ = 0, or σ so small that e^{1/σ²}
// overflows, gives μ = +Inf.
func GDPMu(q, sigma, steps float64) (float64, error) {
	if err := checkSamplingRate(q); err != nil {
		return 0, err
	}
	if err := checkNoise(sigma, true); err != nil {
		return 0, err
	}
	if !(steps > 0) || math.IsInf(steps, 1) {
		return 0, invalidf("steps must be > 0 and finite, got %v", steps)
	}
	if sigma == 0 {
		return math.Inf(1), nil
	}
	return q * math.Sqrt(steps*math.Expm1(1/(sigma*sigma))), nil
}

func checkMu(mu float64) error {
	if !(mu >= 0) {
		return invalidf("μ must be ≥ 0, got %v", mu)
	}
	return nil
}

// GDPDelta returns δ(ε) of a μ-GDP mechanism. The second term is formed in
// log space, so huge ε (δ underflows to 0) and large μ are safe.
func GDPDelta(mu, eps float64) (float64, error) {
	if err := checkMu(mu); err != nil {
		return 0, err
	}
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	return math.Exp(gdpLogDelta(mu, eps)), nil
}

// gdpLogDelta returns log δ(ε) for μ ≥ 0, ε ≥ 0:
// log δ = log Φ(a) + log(1 − e^{ε + log Φ(b) − log Φ(a)}), a = −ε/μ + μ/2, b = a − μ.
func gdpLogDelta(mu, eps float64) float64 {
	switch {
	case mu == 0:
		return math.Inf(-1)
	case math.IsInf(mu, 1):
		return 0
	}
	a := -eps/mu + mu/2
	la := numeric.LogNormCDF(a)
	lb := numeric.LogNormCDF(a - mu)
	r := eps + lb - la // ≤ 0: e^ε·Φ(b) ≤ Φ(a)
	if r >= 0 {
		return math.Inf(-1)
	}
	return la + numeric.Log1mExp(r)
}

// GDPEpsilon returns the smallest ε ≥ 0 with δ(ε) ≤ δ for a μ-GDP mechanism,
// by Brent's method on log δ(ε) (to 1e-12 relative), which stays accurate for
// δ down to 1e-300. μ = +Inf gives +Inf.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if err := checkMu(mu); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if math.IsInf(mu, 1) {
		return math.Inf(1), nil
	}
	logTarget := math.Log(delta)
	f := func(eps float64) float64 { return gdpLogDelta(mu, eps) - logTarget }
	f0 := f(0)
	if f0 <= 0 {
		return 0, nil
	}
	// δ(ε) ≤ Φ(−ε/μ + μ/2) ≤ δ once ε ≥ μ(μ/2 − Φ⁻¹(δ)): a guaranteed upper end.
	hi := mu*(mu/2-numeric.NormQuantile(delta))*1.001 + 1e-9
	fhi := f(hi)
	for fhi > 0 {
		hi *= 2
		fhi = f(hi)
	}
	br, err := numeric.Brent(f, numeric.Bracket{A: 0, B: hi, FA: f0, FB: fhi}, 1e-15, 1e-12, 200)
	if err != nil {
		return 0, err
	}
	// The side with δ(ε) ≤ target.
	if br.FB <= 0 {
		return br.B, nil
	}
	return br.A, nil
}

// gdpMuForEpsilon returns the μ whose δ(ε) equals δ (δ is increasing in μ).
func gdpMuForEpsilon(eps, delta float64) (float64, error) {
	logTarget := math.Log(delta)
	f := func(logMu float64) float64 { return gdpLogDelta(math.Exp(logMu), eps) - logTarget }
	lo, hi := -1.0, 1.0
	flo, fhi := f(lo), f(hi)
	for flo > 0 && lo > -700 {
		lo -= 2
		flo = f(lo)
	}
	for fhi < 0 && hi < 700 {
		hi += 2
		fhi = f(hi)
	}
	if flo > 0 || fhi < 0 {
		return 0, wrapUnreachable("no μ in [e^-700, e^700] gives δ(%v) = %v", eps, delta)
	}
	br, err := numeric.Brent(f, numeric.Bracket{A: lo, B: hi, FA: flo, FB: fhi}, 1e-15, 1e-13, 200)
	if err != nil {
		return 0, err
	}
	// The μ with δ ≤ target (the smaller, more private one).
	if br.FB <= 0 {
		return math.Exp(br.B), nil
	}
	return math.Exp(br.A), nil
}
