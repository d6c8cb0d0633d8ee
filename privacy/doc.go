// Package privacy is the privacy accounting of dpaudit: how much (ε, δ)
// differential privacy DP-SGD (the Poisson-subsampled Gaussian mechanism,
// add/remove adjacency) spends, and how much noise it needs for a target.
// It depends only on the standard library and gonum, and is usable on its
// own.
//
// Three accountants, all pure functions on float64 (log space where terms
// overflow), selected by Accountant:
//
//   - "rdp": Rényi DP (Mironov, Talwar & Zhang 2019) — exact binomial sums at
//     integer orders, the signed MTZ series at fractional orders — converted
//     to (ε, δ) with the improved conversion of Canonne, Kamath & Steinke
//     (2020) / Balle et al. (2020) (default) or Mironov's classic one, over
//     dp_accounting's default order grid. Matches Google's dp_accounting.
//   - "pld": the privacy loss distribution, discretised by connect-the-dots
//     (Doroshenko et al. 2022) and composed by FFT, as dp_accounting's
//     PLDAccountant (ε within 1e-6 of it on the MNIST schedule). Tightest.
//   - "gdp": the central-limit Gaussian-DP approximation (Bu et al. 2020).
//
// Calibrate inverts any of them (Brent's method, σ to 1e-6 relative); the
// single-release Gaussian mechanism has ClassicGaussianSigma,
// AnalyticGaussianSigma (Balle & Wang 2018) and GaussianEpsilon.
//
// The layers underneath are exported for reuse: RDP curves that compose
// heterogeneous mechanisms; PMF, a discretised loss distribution that any
// pair of distributions can be turned into (MonotoneLoss, ConnectDotsPMF),
// composed (Compose, SelfCompose) and queried (DeltaForEpsilon,
// EpsilonForDelta, Survival, DualSurvival, All). Φ, log-space sums and
// Brent's root finder come from internal/numeric, shared with the bounds
// and the estimators.
//
// Inputs are validated: bad values return errors wrapping ErrInvalid, and
// calibration targets that no noise level can meet return ErrUnreachable.
// A noise multiplier of 0 is accepted by the accounting functions as "no
// noise" (ε = +Inf, δ = 1) and σ → 0 tends to +Inf without NaN.
package privacy
