// Package audit turns the outcomes of a privacy attack into empirical
// privacy: lower bounds on the ε of (ε, δ)-differential privacy, estimates,
// and the attack's descriptive statistics.
//
// The game (Nasr et al. 2021, "Adversary Instantiation"): each trial trains
// on D (world 0) or D′ = D plus a canary (world 1), and a distinguisher
// outputs a score. Threshold τ turns scores into guesses: score ≥ τ guesses
// world 1 (Options.LowerMeansWorld1 flips this for losses). A false positive
// is guessing world 1 in world 0, a false negative the reverse; the rates
// are counted per world.
//
//   - EpsilonLowerBound is Eq. 5 of the paper: Clopper–Pearson upper bounds
//     on FPR and FNR (two-sided by default, so 0 errors in 1000 + 1000 trials
//     gives the paper's 5.60), plugged into both orderings
//     (1 − δ − FNR)/FPR and (1 − δ − FPR)/FNR, clamped at 0. EpsilonPoint is
//     Eq. 4 on the raw rates.
//   - Estimate chooses τ by Split (on a seeded half of the trials,
//     evaluated on the other: valid, the default), PostHoc (the best τ on
//     all trials: optimistic, labelled so) or Bonferroni (a fixed grid, each
//     test at α/K), and returns a Result with everything a summary row
//     needs: the bound, the point estimate, threshold, counts, rates and
//     their bounds, accuracy, AUC, TPR at FPR 0.1% and 1%, and a
//     Gaussian-DP estimate (GDPEstimate) with its interval.
//   - OneRun, OneRunEpsilon and OneRunPValue are the one-run audit of
//     Steinke, Nasr & Jagielski (2023): m canaries each included with
//     probability ½ in a single training run, r guesses, v correct.
//
// Bad input returns errors wrapping ErrInvalid (the same value as
// privacy.ErrInvalid), for exit code 2. Randomness (the split) comes from
// rng.New(Options.Seed, "audit", "split") only.
package audit
