// Package audit turns the outcomes of a privacy attack into empirical
// privacy: lower bounds on the ε of (ε, δ)-differential privacy, estimates,
// and the attack's descriptive statistics. Every estimate carries its
// family (Result.Family and the Family* constants), which names the
// procedure and so the proof that covers it, if any; only a valid estimate
// of a family that tests (ε, δ)-DP of any mechanism can refute a claim.
//
// The game (Nasr et al. 2021, "Adversary Instantiation"): each trial trains
// on D (world 0) or D′ = D plus a canary (world 1), and a distinguisher
// outputs a score. Threshold τ turns scores into guesses: score ≥ τ guesses
// world 1 (Options.LowerMeansWorld1 flips this for losses). A false positive
// is guessing world 1 in world 0, a false negative the reverse; the rates
// are counted per world.
//
// The estimator families:
//
//   - eps_delta_cp (FamilyEpsDeltaCP; Estimate, EpsilonLowerBound): Eq. 5
//     of Nasr et al. — Clopper–Pearson upper bounds on FPR and FNR
//     (two-sided by default, so 0 errors in 1000 + 1000 trials gives the
//     paper's 5.60), plugged into both orderings (1 − δ − FNR)/FPR and
//     (1 − δ − FPR)/FNR, clamped at 0. Estimate chooses τ by Split (on a
//     seeded share of the trials, evaluated on the rest: valid, the
//     default; Options.Splits repeats it over seeded splits), PostHoc (the
//     best τ on all trials: optimistic, labelled invalid) or Bonferroni (a
//     fixed grid, each test at α/K). EpsilonPoint is Eq. 4 on the raw
//     rates; the Result also has accuracy, AUC, TPR at FPR 0.1% and 1%.
//   - gdp_fit (FamilyGDPFit; GDPFromCounts): μ of Gaussian DP fitted to
//     the rates at τ with its interval; its ε assumes the mechanism's
//     trade-off curve is Gaussian, so it never refutes a general claim.
//   - one_run (FamilyOneRun; OneRun, OneRunEpsilon, OneRunPValue): Steinke,
//     Nasr & Jagielski (2023), m canaries each included with probability ½
//     in a single training run, r guesses, v correct: (ε, δ)-DP of any
//     mechanism.
//   - one_run_fdp (FamilyOneRunFDP; OneRunFDP, OneRunFDPEpsilon,
//     OneRunFDPMu): Mahloujifar, Melis & Chaudhuri (2024), the one-run
//     audit through f-DP; it rejects a μ-GDP claim.
//   - one_run_order_stats (FamilyOneRunOrderStats; OrderStatsOneRun,
//     OrderStatsEpsilon, OrderStatsPValue): Xiang et al. (2025), the
//     one-run audit by order statistics; it rejects a parametric claim
//     (μ-GDP, or one subsampled Gaussian step with the claimed q).
//   - per_step_gdp (FamilyPerStepGDP; PerStep, PerStepMu, PerStepPValue):
//     the per-step Gaussian of Dirac canaries (Nasr et al. 2023), μ per
//     step with its interval, composed by the caller over the claim's
//     steps; it tests "each step adds Gaussian noise of at least the
//     claimed σ".
//   - eps_delta_cp_sequential (FamilySequential; EvaluateLook, Summarize,
//     LookSchedule, LookWeight): looks at doubling trial counts with
//     α-spending over the looks, each a split Clopper–Pearson test of the
//     claim's privacy profile; stopping at the first refutation keeps the
//     overall level (sequential.go opens with the proof).
//   - identifiability (EstimateIdentifiability): Bernau et al. (2021)
//     Sec. 5.3 — the advantage and δ′ (how often the posterior belief
//     passes ρ_β) with Clopper–Pearson intervals, and three ε′ estimates,
//     each with what it assumes.
//
// Score tables from any source (ScoreTable; EstimateScores, the path of
// dpaudit estimate and of a spec's audit.source): the layout of the rows
// (DetectLayout, from the columns present) decides which families are
// valid, because each proof assumes where its rows came from:
//
//   - LayoutClassic (no run or canary column, or one row per run): every
//     row its own training run, independent trials — eps_delta_cp and
//     gdp_fit;
//   - LayoutOneRun (a canary column, one run): m canaries of one run —
//     one_run, one_run_fdp, one_run_order_stats (the guesses
//     TwoSidedGuesses, the scores CenteredScores, the family
//     OSFamilyOfSGM);
//   - LayoutMultiRun (several runs × many canaries): the one-run families
//     on every canary at once and the classic ones on one seeded canary
//     per run, the claim tested by Bonferroni over both (ClaimTest);
//   - LayoutPerStep (a step column): per-step samples of white-box
//     canaries — per_step_gdp, composed over the claim by ComposePerStep.
//
// AggregateUsers first turns each privacy unit's records into one score
// (a user-level audit); JoinPlan takes the bits from a canary plan.
//
// Across points and repeats: CountsPValue and Result.PValue are the
// p-values of a claim, Holm the family-wise step-down over a run's points,
// BonferroniPValue the combination of an audit's repeats. Every comparison
// that raises a violation goes through Exceeds or Below with a stated
// tolerance (exceed.go), so rounding never raises one.
//
// Descriptive statistics of repeated measurements — Median, MeanStd, the
// Student-t interval of a mean (TInterval), FractionAtLeast — describe and
// bracket (training accuracy over runs, a GLM attack's MSE over releases);
// none of them tests a privacy claim.
//
// Bad input returns errors wrapping ErrInvalid (the same value as
// privacy.ErrInvalid), for exit code 2. Randomness comes from
// Options.Seed only: the split from rng.New(Seed, "audit", "split"), a
// multi-run table's one canary per run from rng.New(Seed, "audit", "pick").
package audit
