package audit

import (
	"fmt"
	"math"
	"slices"
)

// Method is how the threshold τ of the rule "score ≥ τ guesses world 1" is
// chosen. Nasr et al. (2021) do not say how they chose theirs; the choice
// moves the bound a lot at 1000 trials (reference note §2.6, item 17).
type Method string

const (
	// Split chooses τ on a seeded random fraction of each world's trials
	// (the one maximising Eq. 5 there) and evaluates Eq. 5 on the others.
	// The bound is valid at the stated confidence because the evaluation
	// trials played no part in choosing τ. The default.
	Split Method = "split"
	// PostHoc maximises Eq. 5 over every threshold on all trials. The
	// maximum of many bounds is not itself a bound at the stated confidence:
	// it is optimistic, and the result is labelled "posthoc (optimistic)".
	// It reproduces paper-like numbers (note §6.3).
	PostHoc Method = "posthoc"
	// Bonferroni evaluates Eq. 5 at each of K thresholds of a grid, each at
	// miss probability α/K, and reports the maximum: a union bound makes
	// the maximum valid at 1 − α, provided the grid did not depend on the
	// trials it is evaluated on. The grid is Options.Grid (fixed before the
	// trials: evaluated on all of them), or by default built from a seeded
	// held-out share of the trials (as Split's) and evaluated on the rest;
	// Options.GridFromTrials builds it from all trials and evaluates it on
	// them too, which is labelled invalid like PostHoc.
	Bonferroni Method = "bonferroni"
)

// Estimate families: which procedure produced a number, so a reader can
// tell which proof (if any) covers it (Result.Family).
const (
	// FamilyEpsDeltaCP: Eq. 5 of Nasr et al. with Clopper–Pearson bounds
	// on the two error rates at one threshold (or a corrected scan).
	FamilyEpsDeltaCP = "eps_delta_cp"
	// FamilyGDPFit: μ of Gaussian DP fitted to (FPR, FNR); its ε assumes
	// the mechanism's trade-off curve is Gaussian.
	FamilyGDPFit = "gdp_fit"
	// FamilyOneRun: Steinke, Nasr & Jagielski (2023), one training run.
	FamilyOneRun = "one_run"
	// FamilyOneRunFDP: the one-run f-DP audit of Mahloujifar, Melis &
	// Chaudhuri (2024). It rejects a μ-GDP claim; its ε is a lower bound on
	// the true ε only if the trade-off curve is Gaussian.
	FamilyOneRunFDP = "one_run_fdp"
	// FamilyOneRunOrderStats: the order-statistics one-run audit of Xiang
	// et al. (2025). It rejects a parametric claim (μ-GDP, or the one-step
	// subsampled Gaussian with the claimed q), not (ε, δ)-DP in general.
	FamilyOneRunOrderStats = "one_run_order_stats"
)

// Label is the method name a result row carries: "split",
// "posthoc (optimistic)" or "bonferroni" (see Options.label for the
// Bonferroni grid's source).
func (m Method) Label() string {
	if m == PostHoc {
		return "posthoc (optimistic)"
	}
	return string(m)
}

// Valid reports whether the method's bound can hold at the stated
// confidence (split and bonferroni; Bonferroni only with a grid that did
// not see the evaluated trials, see Options.valid).
func (m Method) Valid() bool { return m == Split || m == Bonferroni }

// label and valid say how a Bonferroni scan's grid was obtained, which
// decides whether its bound is covered by the union bound.
func (o Options) label() string {
	if o.Method == Split && o.Splits > 1 {
		return fmt.Sprintf("split (best of %d, bonferroni)", o.Splits)
	}
	if o.Method != Bonferroni {
		return o.Method.Label()
	}
	switch {
	case o.Grid != nil:
		return "bonferroni (fixed grid)"
	case o.GridFromTrials:
		return "bonferroni (grid from the evaluated trials, optimistic)"
	}
	return "bonferroni (grid from a held-out split)"
}

func (o Options) valid() bool {
	return o.Method.Valid() && !(o.Method == Bonferroni && o.Grid == nil && o.GridFromTrials)
}

func (m Method) check() error {
	switch m {
	case Split, PostHoc, Bonferroni:
		return nil
	}
	return invalidf("unknown threshold method %q (want split, posthoc or bonferroni)", string(m))
}

// DefaultGridSize is the number of thresholds of the default Bonferroni grid.
const DefaultGridSize = 100

// defaultGrid places k thresholds at quantiles of the pooled scores (both
// worlds together, so the labels play no part in where they go), spaced
// geometrically in both tails: tail masses from 1/n up to ½, half of them
// in each tail. Eq. 5 is largest at extreme thresholds (low FPR or low
// FNR), which a uniform grid would barely sample. This follows common
// practice (jax_privacy's auditing library also takes its Bonferroni
// thresholds from the observed scores). Built from the trials that are
// then evaluated, the scan is not covered by the union bound (the grid saw
// the data), so Estimate builds it from a held-out share by default; a
// grid fixed before seeing any score, passed as Options.Grid, is valid and
// uses every trial.
func defaultGrid(s sortedScores, k int) []float64 {
	pooled := make([]float64, 0, len(s.w0)+len(s.w1))
	pooled = append(pooled, s.w0...)
	pooled = append(pooled, s.w1...)
	slices.Sort(pooled)
	n := len(pooled)
	lowTail := (k + 1) / 2 // thresholds in the lower tail (low FNR side)
	highTail := k - lowTail
	var grid []float64
	// mass[i] for i = 0..m−1 runs geometrically from 1/n to ½.
	masses := func(m int) []float64 {
		out := make([]float64, m)
		for i := range out {
			if m == 1 {
				out[i] = 0.5
				continue
			}
			t := float64(i) / float64(m-1)
			out[i] = math.Exp((1-t)*math.Log(1/float64(n)) + t*math.Log(0.5))
		}
		return out
	}
	for _, p := range masses(lowTail) {
		grid = append(grid, quantileThreshold(pooled, p))
	}
	for _, p := range masses(highTail) {
		grid = append(grid, quantileThreshold(pooled, 1-p))
	}
	slices.Sort(grid)
	return slices.Compact(grid)
}

// quantileThreshold returns a threshold with about a fraction p of the
// pooled scores below it: the midpoint between the order statistics around
// position p·n, so no score sits on it.
func quantileThreshold(pooled []float64, p float64) float64 {
	n := len(pooled)
	i := int(math.Round(p * float64(n))) // number of scores below the threshold
	switch {
	case i <= 0:
		return pooled[0]
	case i >= n:
		return math.Inf(1)
	case pooled[i-1] == pooled[i]:
		return pooled[i]
	}
	return midpoint(pooled[i-1], pooled[i])
}
