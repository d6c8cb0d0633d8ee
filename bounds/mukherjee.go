package bounds

import (
	"math"
)

// Minimax lower bounds of Mukherjee & Lokam (2023), "Non-asymptotic lower
// bounds for training data reconstruction" (paper 003; notes:
// shared/reference/mukherjee2023-reconstruction-lower-bounds.md). The
// adversary sees n independent releases h_1..h_n of the learner on
// D₋ ∪ {z}. Units: TOTAL squared distance E[ρ(z, ẑ)²] (for ℓ2 on R^d,
// E‖ẑ − z‖², not divided by d); divide by d to compare with a per-pixel MSE
// or with GuoMSEBound.

// MinimaxDP returns Theorem 4.1 for an (ε, δ)-DP learner on a compact space
// of diameter diam (Le Cam two points + Bretagnolle–Huber, constant 1/16
// from the proof):
//
//	(1 − δ)·diam²/16·exp(−n·ε·tanh(ε/2)).
//
// ε ≥ 0, δ ∈ [0, 1), n ≥ 1, diam > 0. At ε = δ = 0 it is diam²/16, a factor
// 16 below the trivial diam².
func MinimaxDP(eps, delta float64, n int, diam float64) (float64, error) {
	if err := checkMinimax(eps, delta, n); err != nil {
		return 0, err
	}
	if err := checkPositive("diameter", diam); err != nil {
		return 0, err
	}
	return (1 - delta) * diam * diam / 16 * math.Exp(-float64(n)*eps*math.Tanh(eps/2)), nil
}

// MinimaxRDP returns Corollary E.2 for an (α, ε)-RDP learner (no δ):
//
//	diam²/16·exp(−n·min{ε, 3αε²/2}),
//
// α > 1. The minimum switches at ε = 2/(3α).
func MinimaxRDP(eps, alpha float64, n int, diam float64) (float64, error) {
	if err := checkMinimax(eps, 0, n); err != nil {
		return 0, err
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, invalidf("RDP order α must be > 1 and finite, got %v", alpha)
	}
	if err := checkPositive("diameter", diam); err != nil {
		return 0, err
	}
	return diam * diam / 16 * math.Exp(-float64(n)*math.Min(eps, 1.5*alpha*eps*eps)), nil
}

// MDPConstant selects the constant of the metric-DP bound of Theorem E.4.
type MDPConstant string

const (
	// MDPConstantPaper is the paper's (1 − δ)/(2·n·e·ε_L²) (the printed "ε"
	// in Eq. 9/33 is Euler's e; the "4" in Eq. 39 is a typo for 2).
	MDPConstantPaper MDPConstant = "paper"
	// MDPConstantSeparationCorrected is (1 − δ)/(8·n·e·ε_L²): the two points
	// of the proof are 2t apart, so the KL bound is 2ε_L²t², not ε_L²t²/2,
	// which costs a factor 4 (notes §2.5).
	MDPConstantSeparationCorrected MDPConstant = "separation_corrected"
)

// MinimaxMDP returns Theorem E.4 (= Theorem 4.3) for an (ε_L, δ)-metric-DP
// learner on a possibly unbounded space: (1 − δ)/(c·n·e·ε_L²) with c = 2
// (paper) or 8 (separation-corrected). ε_L > 0 (per unit of distance).
func MinimaxMDP(epsL, delta float64, n int, constant MDPConstant) (float64, error) {
	if err := checkPositive("metric-DP ε_L", epsL); err != nil {
		return 0, err
	}
	if err := checkMinimax(epsL, delta, n); err != nil {
		return 0, err
	}
	var c float64
	switch constant {
	case MDPConstantPaper:
		c = 2
	case MDPConstantSeparationCorrected:
		c = 8
	default:
		return 0, invalidf("unknown metric-DP constant %q (want %q or %q)", constant, MDPConstantPaper, MDPConstantSeparationCorrected)
	}
	return (1 - delta) / (c * float64(n) * math.E * epsL * epsL), nil
}

// MinimaxHighDim returns the high-dimensional bound of Theorem 4.4 with the
// constant made explicit: the proof's Eq. 44,
// t²·[1 − (n·ε_L²·t² + log 2)/D], maximised over t (notes §2.6):
//
//	(1 − δ)·(D − log 2)²/(4·n·ε_L²·D)   at   t*² = (D − log 2)/(2·n·ε_L²),
//
// and 0 when D ≤ log 2 (Fano is vacuous). D = d̃ = log N(1/2, unit ball) is
// the effective dimension, between d·log 2 and d·log 5 for a d-dimensional
// normed space (see EffectiveDimension). The paper only claims Ω(·): the
// proof's covering/packing step makes the constant unreliable (notes §2.6).
// It also returns the maximiser t*² (0 when vacuous).
func MinimaxHighDim(dTilde, epsL, delta float64, n int) (bound, tStarSq float64, err error) {
	if err := checkPositive("effective dimension d̃", dTilde); err != nil {
		return 0, 0, err
	}
	if err := checkPositive("metric-DP ε_L", epsL); err != nil {
		return 0, 0, err
	}
	if err := checkMinimax(epsL, delta, n); err != nil {
		return 0, 0, err
	}
	if dTilde <= math.Ln2 {
		return 0, 0, nil
	}
	nf, e2 := float64(n), epsL*epsL
	gap := dTilde - math.Ln2
	return (1 - delta) * gap * gap / (4 * nf * e2 * dTilde), gap / (2 * nf * e2), nil
}

// EffectiveDimension returns the range [d·log 2, d·log 5] of the effective
// dimension d̃ = log N(1/2, unit ball) of any norm on R^d (covering-number
// bounds (1/η)^d ≤ N(η) ≤ (1 + 2/η)^d, the paper's Lemma D.1).
func EffectiveDimension(d int) (lo, hi float64, err error) {
	if d < 1 {
		return 0, 0, invalidf("dimension must be ≥ 1, got %d", d)
	}
	return float64(d) * math.Ln2, float64(d) * math.Log(5), nil
}

// GuoTotalBound is the comparator Mukherjee & Lokam use (their Eq. 8/29):
// Guo et al.'s Theorem 1 in total squared distance, Σ_i diam_i²/(4(e^ε − 1))
// for a (2, ε)-RDP learner and unbiased attacks. sumDiamSq = Σ_i diam_i² > 0.
func GuoTotalBound(eps, sumDiamSq float64) (float64, error) {
	if err := checkEpsilon("order-2 RDP ε", eps); err != nil {
		return 0, err
	}
	if err := checkPositive("Σ diam_i²", sumDiamSq); err != nil {
		return 0, err
	}
	if eps == 0 {
		return math.Inf(1), nil
	}
	return sumDiamSq / (4 * math.Expm1(eps)), nil
}

// GuoVacuityThreshold returns log(1 + d/4): below this ε, Guo et al.'s
// bound exceeds the trivial upper bound diam² whenever Σ diam_i² = d·diam²
// (Mukherjee & Lokam App. E.3.1: 5.2832 for d = 784, printed "5.28").
func GuoVacuityThreshold(d int) (float64, error) {
	if d < 1 {
		return 0, invalidf("dimension must be ≥ 1, got %d", d)
	}
	return math.Log1p(float64(d) / 4), nil
}

// MDPNoiseConstant selects the constant c of the metric-DP Gaussian mechanism.
type MDPNoiseConstant string

const (
	// MDPNoisePaper is Proposition 6.1 as printed: c² = log(1.25/δ).
	MDPNoisePaper MDPNoiseConstant = "paper"
	// MDPNoiseConservative is the classic Gaussian-mechanism constant the
	// proof defers to, c² = 2·log(1.25/δ) (valid for ε_L·ρ < 1).
	MDPNoiseConservative MDPNoiseConstant = "conservative"
)

// MDPGaussianSigma returns the smallest noise standard deviation
// σ = c·L_input/ε_L that Proposition 6.1 allows for (ε_L, δ)-metric-DP, with
// L_input the input-Lipschitz constant of the released function (> 0) and c
// by the named constant. (The proposition asks for c² strictly greater; the
// boundary value is returned.)
func MDPGaussianSigma(lInput, epsL, delta float64, constant MDPNoiseConstant) (float64, error) {
	if err := checkPositive("input Lipschitz constant", lInput); err != nil {
		return 0, err
	}
	if err := checkPositive("metric-DP ε_L", epsL); err != nil {
		return 0, err
	}
	if err := checkDeltaOpen(delta); err != nil {
		return 0, err
	}
	c2 := math.Log(1.25 / delta)
	switch constant {
	case MDPNoisePaper:
	case MDPNoiseConservative:
		c2 *= 2
	default:
		return 0, invalidf("unknown metric-DP noise constant %q (want %q or %q)", constant, MDPNoisePaper, MDPNoiseConservative)
	}
	return math.Sqrt(c2) * lInput / epsL, nil
}

// PNSGDSigmaSqMDP returns the noise variance σ² ≥ 2α·L_input²·diam(X)/(ε_L·(n − t + 1))
// with which projected noisy SGD (Feldman et al. 2018, Algorithm 1) is
// (α, ε_L)-Rényi metric-DP for the sample at position t ∈ [1, n]
// (Proposition 6.2). The printed constant is conservative by a factor 4
// (notes §4).
func PNSGDSigmaSqMDP(alpha, lInput, diamX, epsL float64, n, t int) (float64, error) {
	if err := checkPNSGD(alpha, epsL, n, t); err != nil {
		return 0, err
	}
	if err := checkPositive("input Lipschitz constant", lInput); err != nil {
		return 0, err
	}
	if err := checkPositive("data diameter", diamX); err != nil {
		return 0, err
	}
	return 2 * alpha * lInput * lInput * diamX / (epsL * float64(n-t+1)), nil
}

// PNSGDSigmaSqDP returns Feldman et al.'s Theorem 23 comparator: σ² ≥
// 2α·G²/(ε·(n − t + 1)) for (α, ε)-RDP of the sample at position t, G the
// Lipschitz constant of the loss.
func PNSGDSigmaSqDP(alpha, lipschitz, eps float64, n, t int) (float64, error) {
	if err := checkPNSGD(alpha, eps, n, t); err != nil {
		return 0, err
	}
	if err := checkPositive("Lipschitz constant G", lipschitz); err != nil {
		return 0, err
	}
	return 2 * alpha * lipschitz * lipschitz / (eps * float64(n-t+1)), nil
}

func checkMinimax(eps, delta float64, n int) error {
	if err := checkEpsilon("ε", eps); err != nil {
		return err
	}
	if err := checkDeltaClosed(delta); err != nil {
		return err
	}
	return checkCount("number of released models n", n, 1)
}

func checkPNSGD(alpha, eps float64, n, t int) error {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return invalidf("Rényi order α must be > 1 and finite, got %v", alpha)
	}
	if err := checkPositive("ε", eps); err != nil {
		return err
	}
	if n < 1 || t < 1 || t > n {
		return invalidf("need 1 ≤ t ≤ n, got t = %d, n = %d", t, n)
	}
	return nil
}
