package bounds

import "math"

// Full-batch (q = 1) Gaussian accounting as Bernau et al.'s code does it:
// TF-Privacy's RDP accountant with the order grid below and the classic
// conversion ε = min_α [ε_RDP(α) + log(1/δ)/(α − 1)] (reference note §2.8,
// §3.2 item 1). At q = 1 the RDP of a Gaussian step with sensitivity Δ_i and
// noise std σ_i is α·Δ_i²/(2σ_i²), so a whole run is summarised by
// S = Σ_i (Δ_i/σ_i)² (k/z² for k steps of noise multiplier z). The grid
// matters: it caps α at 63, and for small ε (ρ_β = 0.52) the optimal order
// lies beyond it, so the grid's z (404.84) is far from the continuous-α z
// (208.57) (note §6.1, fact 10).

// PaperRDPOrders returns the order grid of the authors' code:
// 1.1, 1.2, …, 10.9 and 12, 13, …, 63.
func PaperRDPOrders() []float64 {
	var o []float64
	for x := 1; x <= 99; x++ {
		o = append(o, 1+float64(x)/10)
	}
	for a := 12; a <= 63; a++ {
		o = append(o, float64(a))
	}
	return o
}

// FullBatchGaussianEpsilon returns the classic-conversion ε at δ of
// composed full-batch Gaussian steps with S = Σ_i (Δ_i/σ_i)² (S ≥ 0), over
// the given orders (nil: PaperRDPOrders), and the minimising order. S = 0
// (no step reached any sensitivity) gives min_α log(1/δ)/(α − 1), the
// conversion's floor, not 0: the classic conversion never reaches 0.
func FullBatchGaussianEpsilon(sumSqRatio, delta float64, orders []float64) (eps, order float64, err error) {
	if !(sumSqRatio >= 0) || math.IsInf(sumSqRatio, 1) {
		return 0, 0, invalidf("Σ(Δ/σ)² must be finite and ≥ 0, got %v", sumSqRatio)
	}
	if orders == nil {
		orders = PaperRDPOrders()
	}
	values := make([]float64, len(orders))
	for i, a := range orders {
		values[i] = a * sumSqRatio / 2
	}
	return rdpEpsilonClassic(orders, values, delta)
}

// NoiseForEpsilonFullBatch returns the noise multiplier z at which k
// full-batch Gaussian steps (σ_i = z·Δ_i) have classic-conversion ε equal
// to eps at δ over the orders (nil: PaperRDPOrders), found by bisection on
// z ∈ (0.01, 1e6] to a relative 1e-12 (ε is decreasing in z), and the
// minimising order at that z. Facts (note §6.1): ε = ln 9, δ = 0.01, k = 30
// → z = 8.380227 at order 5.6; δ = 0.001 → 9.951727 at order 7.8.
func NoiseForEpsilonFullBatch(eps, delta float64, steps int, orders []float64) (z, order float64, err error) {
	if err := checkPositive("ε", eps); err != nil {
		return 0, 0, err
	}
	if err := checkCount("steps k", steps, 1); err != nil {
		return 0, 0, err
	}
	if err := checkDeltaOpen(delta); err != nil {
		return 0, 0, err
	}
	k := float64(steps)
	f := func(z float64) float64 {
		e, _, _ := FullBatchGaussianEpsilon(k/(z*z), delta, orders)
		return e
	}
	lo, hi := 0.01, 1e6
	if f(hi) > eps {
		return 0, 0, invalidf("ε = %v at δ = %v is below what any noise multiplier ≤ %g reaches with these orders (the conversion's floor)", eps, delta, hi)
	}
	if f(lo) < eps {
		return 0, 0, invalidf("ε = %v needs a noise multiplier below %g", eps, lo)
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if f(mid) > eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, order, err = FullBatchGaussianEpsilon(k/(hi*hi), delta, orders)
	return hi, order, err
}

// NoiseForRhoBeta returns the noise multiplier that caps the posterior
// belief of k full-batch steps at ρ_β ∈ (0.5, 1): ε = ln(ρ_β/(1 − ρ_β))
// (Eq. 10) with NoiseForEpsilonFullBatch, as the authors' code calibrates.
func NoiseForRhoBeta(rho, delta float64, steps int, orders []float64) (z, order float64, err error) {
	eps, err := EpsilonFromRhoBeta(rho)
	if err != nil {
		return 0, 0, err
	}
	return NoiseForEpsilonFullBatch(eps, delta, steps, orders)
}
