// Package privacy is the privacy accounting of dpaudit: how much (ε, δ)
// differential privacy DP-SGD (the Poisson-subsampled Gaussian mechanism,
// add/remove adjacency, by default) spends, and how much noise it needs for
// a target. It depends only on the standard library and gonum, and is
// usable on its own.
//
// The mechanisms people run besides it (SampledGaussian's Sampling and
// Adjacency; docs/mechanisms.md has the math and the reference numbers):
//
//   - replace-one adjacency: the exact ±C mixture pair (1−q)N(0) + qN(∓1),
//     in PLD and RDP (dp_accounting's REPLACE_ONE), and the σ/2 add/remove
//     bound, labelled as such (AdjacencyReplaceOneSigmaHalf);
//   - fixed-size batches without replacement (replace-one): Wang, Balle &
//     Kasiviswanathan's RDP bound as dp_accounting's
//     SampledWithoutReplacementDpEvent, and a PLD of the symmetrised σ/2
//     pair, which the sampler attains;
//   - balls-in-bins (random allocation, add/remove): a PLD of the
//     t-dimensional mixture pair of one epoch, built in convex order on a
//     geometric grid (dp_accounting's RandomAllocationDpEvent is the
//     reference);
//   - shuffled batches: refused (ErrNoAccountant) — no tight upper bound
//     is known; ShuffleEpsilonLB is a lower bound;
//   - matrix-factorization (DP-FTRL, banded MF, BLT): MatrixMechanism,
//     the Gaussian mechanism on C·G with the sensitivity it is told
//     (ToeplitzSensitivity under min-sep or cyclic participation, as
//     jax_privacy), and amplified banded MF as ⌈T/b⌉ DP-SGD steps.
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
// TradeOffCurve gives each accountant's f-DP trade-off curves (Curve: β at
// an FPR, TPR, advantage, Bayes accuracy, a labelled μ-GDP fit): read off
// the PLD (pessimistic, a bound), implied by the RDP curve (looser), G_μ
// for GDP (exact at q = 1), or the larger of the valid ones (best); the
// symmetric curve for membership and the added orientation for the
// reconstruction game.
//
// Calibrate inverts any of them (Brent's method, σ to 1e-6 relative), and
// CalibrateTo does so for a Target: ε or an attack-risk bound; the
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
