package bounds

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/privacy"
)

// ReRoPureDP returns the ReRo bound of an ε-DP mechanism, γ = min(1, κ·e^ε)
// (Hayes et al. Theorem 2 / Balle et al. 2022; the α = ∞ case of ReRoRDP).
func ReRoPureDP(eps, kappa float64) (float64, error) {
	if err := checkEpsilon("ε", eps); err != nil {
		return 0, err
	}
	if err := checkKappa(kappa); err != nil {
		return 0, err
	}
	return math.Min(1, math.Exp(math.Log(kappa)+eps)), nil
}

// ReRoRDP returns the ReRo bound of Balle, Cherubin & Hayes (2022) for a
// mechanism with the RDP curve (orders α_i > 1, values ε_i in nats):
//
//	γ = min_i (κ·e^{ε_i})^{(α_i − 1)/α_i},   capped at 1,
//
// the bound Hayes et al. compare with (their §2, "Bound from RDP"). It also
// returns the minimising order. orders and values must have the same
// non-zero length, orders > 1, values ≥ 0 (+Inf allowed: that order is
// skipped).
func ReRoRDP(orders, values []float64, kappa float64) (gamma, order float64, err error) {
	if err := checkKappa(kappa); err != nil {
		return 0, 0, err
	}
	if len(orders) == 0 || len(orders) != len(values) {
		return 0, 0, invalidf("RDP curve needs equally many orders and values (got %d and %d)", len(orders), len(values))
	}
	logKappa := math.Log(kappa)
	best, bestOrder := math.Inf(1), math.Inf(1) // log γ at the best order so far
	for i, a := range orders {
		v := values[i]
		if !(a > 1) || math.IsInf(a, 1) {
			return 0, 0, invalidf("RDP order must be > 1 and finite, got %v", a)
		}
		if !(v >= 0) {
			return 0, 0, invalidf("RDP value at order %v must be ≥ 0, got %v", a, v)
		}
		if math.IsInf(v, 1) {
			continue // no guarantee at this order
		}
		if lg := (a - 1) / a * (logKappa + v); lg < best {
			best, bestOrder = lg, a
		}
	}
	// Every order infinite leaves best = +Inf: γ = 1 (no guarantee), order +Inf.
	return math.Exp(math.Min(best, 0)), bestOrder, nil
}

// ReRoRDPFullBatch returns Hayes et al.'s Eq. 2, the RDP ReRo bound of
// full-batch DP-SGD optimised over all real orders α > 1:
//
//	γ = exp(−max{0, √log(1/κ) − √(T/(2σ²))}²)
//
// (T steps are (α, αT/(2σ²))-RDP; the minimiser is α* = √(log(1/κ)·2σ²/T),
// trivial γ = 1 when T/(2σ²) ≥ log(1/κ)). Probability in (κ, 1].
func ReRoRDPFullBatch(sigma float64, steps int, kappa float64) (float64, error) {
	if err := checkPositive("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if err := checkCount("steps T", steps, 1); err != nil {
		return 0, err
	}
	if err := checkKappa(kappa); err != nil {
		return 0, err
	}
	gap := math.Max(0, math.Sqrt(-math.Log(kappa))-math.Sqrt(float64(steps)/(2*sigma*sigma)))
	return math.Exp(-gap * gap), nil
}

// ReRoRDPSampledGaussian returns ReRoRDP for DP-SGD with Poisson sampling
// (the accountant's RDP curve of the subsampled Gaussian, add/remove
// adjacency, at the given orders; nil means privacy.DefaultOrders()) and the
// minimising order.
func ReRoRDPSampledGaussian(m DPSGD, kappa float64, orders []float64) (gamma, order float64, err error) {
	if err := m.check(); err != nil {
		return 0, 0, err
	}
	if orders == nil {
		orders = privacy.DefaultOrders()
	}
	curve, err := privacy.NewRDP(orders)
	if err != nil {
		return 0, 0, fmt.Errorf("ReRo RDP bound: %w", err)
	}
	if err := curve.AddSampledGaussian(m.SamplingRate, m.NoiseMultiplier, m.Steps); err != nil {
		return 0, 0, fmt.Errorf("ReRo RDP bound: %w", err)
	}
	return ReRoRDP(curve.Orders(), curve.Values(), kappa)
}
