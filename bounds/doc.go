// Package bounds computes theoretical bounds on what an attacker can learn
// from a differentially private training run: how likely a reconstruction
// can succeed, how small a reconstruction error can be, how confident a
// membership adversary can become. Audits compare their empirical results
// against these numbers. Pure functions of float64 inputs, usable as a
// library; every exported function says what it computes, in which units,
// from which paper and equation, and for which inputs it is valid.
//
// # Reconstruction success (Hayes, Mahloujifar & Balle 2023)
//
// ReRoBound gives the reconstruction-robustness bound γ of DP-SGD that
// releases all T privatised gradients (noise multiplier σ, Poisson rate q)
// against a prior with baseline success κ (KappaUniform: κ = 1/n): the
// blow-up B_κ(μ, ν) of their Corollary 4. Three methods:
//
//   - ReRoRobust (default): Neyman–Pearson Monte Carlo with an exact
//     distribution-free confidence interval; reliable at every ε.
//   - ReRoMonteCarlo: the paper's Algorithm 1 (corrected to divide by N)
//     with its DKW + Bennett interval; unreliable at large ε (heavy-tailed
//     likelihood ratios), which its EffectiveSamples diagnostic flags.
//   - ReRoExact: deterministic, from the privacy-loss distributions composed
//     by FFT (package privacy's PMF type), with a guaranteed bracket
//     [Lower, Upper] of width ≤ Tolerance (default 1e-3). Milliseconds per
//     point; ReRoBounds evaluates several priors for the price of one.
//
// Closed forms and comparators: ReRoFullBatch (q = 1, exact),
// ReRoFullBatchLogKappa (priors below float64), ReRoRDP /
// ReRoRDPSampledGaussian / ReRoRDPFullBatch (Balle et al. 2022; Hayes et
// al. Eq. 2), ReRoPureDP, ReRoAdvantage (their Eq. 4), and the Fano bound of
// Guo et al. (2022b) that their Table 2 compares with: FanoSuccessBound,
// GuoGaussianMutualInfo, GuoFanoAdvantage, GuoMutualInfoMC.
//
// # Attack risk from a trade-off curve (Kulynych et al. 2025)
//
// AttackRisk turns a trade-off curve f (package privacy's TradeOffCurve)
// into the bound 1 − f(b) on the success of any re-identification,
// attribute-inference or reconstruction attack whose blind guess succeeds
// with probability b (ReidentificationBaseline, AttributeBaseline,
// KappaUniform). On the curve of the added orientation it is Hayes et al.'s
// ReRo bound; on the symmetric f-DP curve it is Kulynych et al.'s as
// published, equal below TradeOff.OrientationsAgreeBelow and larger above.
//
// # Reconstruction error (Guo et al. 2022; Mukherjee & Lokam 2023)
//
// GuoMSEBound and GuoMSEBoundBiased (Theorem 1, per-coordinate MSE) from the
// order-2 RDP of the run: DPSGDRenyi2 (with the soft-clip factor as an
// option) or OutputPerturbationEpsilon (the paper's and the corrected
// formula). FILSubsamplingFactor, FILStepEpsilon and FILMSEBound are the
// pieces of the Fisher-information bound (Theorem 2) that do not need a
// trained model.
//
// MinimaxDP, MinimaxRDP, MinimaxMDP and MinimaxHighDim are Mukherjee &
// Lokam's minimax lower bounds, in TOTAL squared distance E‖ẑ − z‖² (divide
// by d for a per-coordinate MSE); GuoTotalBound and GuoVacuityThreshold the
// comparison they draw; MDPGaussianSigma, PNSGDSigmaSqMDP and PNSGDSigmaSqDP
// their noise formulas.
//
// # Membership and identifiability (Bernau et al. 2021)
//
// RhoBeta, RhoBetaApprox, RhoBetaRDP (posterior belief), RhoAlpha,
// RhoAlphaRDP, RhoAlphaGaussianSteps (advantage), their inverses
// EpsilonFromRhoBeta and EpsilonFromRhoAlpha (with the factor 2 that the
// paper's Eq. 15 drops), YeomBound and ExpectedConfidenceBound. Every audit
// also compares against MembershipAdvantage ((e^ε − 1)/(e^ε + 1)),
// MembershipAdvantageApprox, GDPTradeOff, GDPAdvantage and DPTradeOff.
//
// # Units
//
//   - probabilities in [0, 1]: every ReRo γ (and Lower/Upper), κ,
//     advantages, ρ_β, ρ_α, trade-off values;
//   - nats: ε, RDP values, mutual information, ReRoResult.Threshold and
//     Interval;
//   - per-coordinate MSE E[‖ẑ − z‖²/d], in squared data units: GuoMSEBound,
//     GuoMSEBoundBiased, GuoMSEBoundUniform, FILMSEBound;
//   - total squared distance E[ρ(z, ẑ)²] (E‖ẑ − z‖²): MinimaxDP, MinimaxRDP,
//     MinimaxMDP, MinimaxHighDim, GuoTotalBound (divide by d to compare
//     with the per-coordinate ones);
//   - noise: MDPGaussianSigma is a standard deviation, PNSGDSigmaSqMDP and
//     PNSGDSigmaSqDP are variances, DPSGD.NoiseMultiplier is in units of
//     the clipping norm.
//
// # Errors
//
// Bad input (κ outside (0, 1), a prior smaller than 2, too few samples for
// κ, a dimension or diameter ≤ 0, a target outside an inverse's range, …)
// returns an error wrapping ErrInvalid — the same sentinel as
// privacy.ErrInvalid — that says what was wrong; map it to exit code 2.
//
// # Randomness
//
// Monte Carlo functions take a seed and derive their streams with
// rng.New(seed, "rero", chunk) (and "rero", "mu", chunk for samples of μ;
// "guo-fano", chunk for GuoMutualInfoMC), in fixed chunks of 4096 samples,
// so results are identical for any GOMAXPROCS or worker count.
package bounds
