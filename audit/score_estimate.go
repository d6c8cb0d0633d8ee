package audit

import (
	"fmt"
	"math"
	"strings"

	"github.com/dpaudit/dpaudit/rng"
)

// OneRunGuesses are how many guesses the one-run estimators make; 0 is
// the default. They must be fixed before the scores are seen: choosing
// them after looking is a post-hoc choice and makes the bounds
// optimistic.
type OneRunGuesses struct {
	// Steinke and FDP: two-sided guesses, "included" for the highest
	// half and "excluded" for the lowest (TwoSidedGuesses); 0 is 10% of
	// the canaries, 5% each side, at least one each.
	Steinke, FDP int
	// OrderStats: the r most confident guesses the order-statistics
	// decoder releases; 0 is every canary.
	OrderStats int
}

// TwoSidedGuesses splits g guesses into kPlus "included" guesses for the
// highest scores and kMinus "excluded" guesses for the lowest; g = 0 is
// the default, 10% of the m canaries (5% each side, at least one).
func TwoSidedGuesses(g, m int) (kPlus, kMinus int) {
	if g == 0 {
		k := max(1, m/20)
		return k, k
	}
	return (g + 1) / 2, g / 2
}

// CenteredScores are the scores the one-run estimators rank: scores
// that are log-likelihood ratios keep their sign, which the
// order-statistics decoder reads as its guess; any other score is
// centred on its median so that the guess is "above the median" (a loss,
// where lower means included, becomes median − s). Ranks, and so the
// two-sided guesses, are unchanged.
func CenteredScores(scores []float64, lowerMeansIncluded, llr bool) []float64 {
	out := make([]float64, len(scores))
	med := 0.0
	if !llr {
		med = Median(scores)
	}
	for i, s := range scores {
		if lowerMeansIncluded {
			out[i] = med - s
		} else {
			out[i] = s - med
		}
	}
	return out
}

// ScoreOptions configure EstimateScores.
type ScoreOptions struct {
	// Options configure the classic estimators (the threshold method,
	// the split seed, Bonferroni's grid); Delta and Confidence are every
	// estimator's, and LowerMeansWorld1 says that low scores mean
	// "member" for all of them.
	Options
	// Guesses of the one-run estimators.
	Guesses OneRunGuesses
	// Family is the order-statistics family to test (its claim); nil
	// skips that estimator, for the reason NoFamilyWhy gives.
	Family      *OSFamily
	NoFamilyWhy string
	// ScoreIsLLR: the scores are log-likelihood ratios, whose sign the
	// order-statistics decoder may read as its guess (see
	// CenteredScores).
	ScoreIsLLR bool
	// PerStepClaim is the claimed mechanism a per-step table's μ is
	// composed over (nil: reported, not composed).
	PerStepClaim *PerStepClaim
	// Aggregate, when set, first turns the records of each user into one
	// score (AggregateUsers): the audit is then user-level.
	Aggregate Aggregation
}

// Skipped is an estimator that does not apply to a table, and why.
type Skipped struct {
	Family, Why string
}

// ScoreEstimates are every estimate a score table supports.
type ScoreEstimates struct {
	Layout LayoutInfo
	// Unit is what one row stands for after aggregation: "record" or
	// "user".
	Unit string
	// Classic is the classic estimate (nil when it does not apply);
	// ClassicRows says which rows it used.
	Classic     *Result
	ClassicRows string
	// OneRun (Steinke et al.), FDP with its μ, and OrderStats are the
	// one-run estimates on OneRunCanaries canaries (nil when they do not
	// apply).
	OneRun, FDP    *OneRunResult
	FDPMu          float64
	OrderStats     *OrderStatsResult
	OneRunCanaries int
	// PerStep is the per-step estimate of a per-step table.
	PerStep *PerStepEstimate
	// Skipped lists the estimators that did not run, with the reason.
	Skipped []Skipped
	// Options are the options the estimates used.
	Options ScoreOptions
}

// EstimateScores runs every estimator that the table's layout makes
// valid (see Layout) and says which ran and why:
//
//   - classic: Estimate on every row, in table order (the split depends
//     on the order and on Options.Seed);
//   - one run: OneRun, OneRunFDP and OrderStatsOneRun on every row;
//   - several runs × many canaries: the one-run estimators on every
//     canary of every run together, and Estimate on one canary per run.
//
// Why the combination is valid. Runs that are trained independently
// form one mechanism whose output is all of their models; if each run
// is (ε, δ)-DP with respect to each of its canaries, so is the joint
// output, because a canary's inclusion changes the distribution of its
// own run only (the others do not depend on it). Steinke, Nasr &
// Jagielski's main theorem (2023, Theorem 3.1 with its δ extension)
// needs exactly that of a mechanism whose m canaries are each included
// independently with probability ½, and lets the guesser see every
// output; it therefore applies to all R·m canaries at once, and the
// f-DP audit (Mahloujifar et al. 2024), which needs the same per-canary
// guarantee for a trade-off curve, likewise. The classic bound needs
// independent, identically distributed trials: one canary per run,
// picked by a seeded draw that looks at neither scores nor membership
// (stream rng.New(Seed, "audit", "pick")), gives R such trials when the
// runs are repeats of one configuration. Its bound is then for a canary
// drawn at random, which no mechanism that is (ε, δ)-DP for every canary
// can exceed.
func EstimateScores(t *ScoreTable, o ScoreOptions) (*ScoreEstimates, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	e := &ScoreEstimates{Unit: "record", Options: o}
	if o.Aggregate != "" && t.Step != nil {
		return nil, invalidf("score table: per-user aggregation does not apply to per-step samples (a step column)")
	}
	if o.Aggregate != "" {
		var err error
		if t, err = AggregateUsers(t, o.Aggregate); err != nil {
			return nil, err
		}
		if err := t.Check(); err != nil {
			return nil, err
		}
		e.Unit = "user"
	}
	var err error
	if e.Layout, err = DetectLayout(t); err != nil {
		return nil, err
	}
	if e.Unit == "user" {
		// After aggregation the units are users, named in the canary column.
		e.Layout.Why = strings.NewReplacer("a canary column", "one row per user", "canaries", "users").Replace(e.Layout.Why)
	}
	switch e.Layout.Layout {
	case LayoutClassic:
		e.ClassicRows = fmt.Sprintf("all %d rows, one trial each", t.Len())
		err = e.classic(t.Score, t.Member)
	case LayoutOneRun:
		e.skip(FamilyEpsDeltaCP, "the rows come from one training run, so they are not independent trials")
		e.skip(FamilyGDPFit, "the rows come from one training run, so they are not independent trials")
		err = e.oneRun(t.Score, t.Member)
	case LayoutMultiRun:
		if err = e.oneRun(t.Score, t.Member); err == nil {
			err = e.classicPerRun(t)
		}
	case LayoutPerStep:
		e.skip(FamilyEpsDeltaCP, "per-step samples are not training runs with one target")
		e.skip(FamilyOneRun, "per-step samples are not canaries included at random")
		err = e.perStep(t)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *ScoreEstimates) skip(family, why string) {
	e.Skipped = append(e.Skipped, Skipped{family, why})
}

func (e *ScoreEstimates) classic(scores []float64, member []bool) error {
	r, err := Estimate(scores, member, e.Options.Options)
	if err != nil {
		return err
	}
	e.Classic = &r
	return nil
}

// classicPerRun runs the classic estimators on one seeded row per run.
func (e *ScoreEstimates) classicPerRun(t *ScoreTable) error {
	_, runRows := groups(t.Run)
	pick := rng.New(e.Options.Seed, "audit", "pick")
	idx := make([]int, len(runRows))
	n1 := 0
	for k, rows := range runRows {
		idx[k] = rows[pick.IntN(len(rows))]
		if t.Member[idx[k]] {
			n1++
		}
	}
	if n0 := len(idx) - n1; n0 < 2 || n1 < 2 {
		why := fmt.Sprintf("one canary per run gives %d member and %d non-member trials; Clopper–Pearson needs at least 2 of each", n1, n0)
		e.skip(FamilyEpsDeltaCP, why)
		e.skip(FamilyGDPFit, why)
		return nil
	}
	e.ClassicRows = fmt.Sprintf("one canary per run (%d runs), picked by a seeded draw blind to scores and membership", len(idx))
	sub := t.rows(idx)
	return e.classic(sub.Score, sub.Member)
}

// oneRun runs the three one-run estimators on every row.
func (e *ScoreEstimates) oneRun(scores []float64, member []bool) error {
	o := e.Options
	m := len(scores)
	e.OneRunCanaries = m
	s := CenteredScores(scores, o.LowerMeansWorld1, o.ScoreIsLLR)
	kp, km := TwoSidedGuesses(o.Guesses.Steinke, m)
	r, err := OneRun(s, member, kp, km, o.Delta, o.Confidence)
	if err != nil {
		return err
	}
	e.OneRun = &r
	kp, km = TwoSidedGuesses(o.Guesses.FDP, m)
	fdp, mu, err := OneRunFDP(s, member, kp, km, o.Delta, o.Confidence)
	if err != nil {
		return err
	}
	e.FDP, e.FDPMu = &fdp, mu
	switch {
	case o.Family == nil:
		why := o.NoFamilyWhy
		if why == "" {
			why = "no order-statistics family given"
		}
		e.skip(FamilyOneRunOrderStats, why)
		return nil
	case !(o.Delta > 0):
		e.skip(FamilyOneRunOrderStats, "δ = 0: the order-statistics family's ε is defined for δ > 0 only")
		return nil
	case m < 2:
		e.skip(FamilyOneRunOrderStats, "fewer than 2 canaries")
		return nil
	}
	rr := o.Guesses.OrderStats
	if rr == 0 {
		rr = m
	}
	os, err := OrderStatsOneRun(*o.Family, s, member, rr, o.Delta, o.Confidence)
	if err != nil {
		return err
	}
	e.OrderStats = &os
	return nil
}

// OSFamilyOfSGM is the order-statistics family of a claimed DP-SGD
// mechanism with noise multiplier sigma (of the sensitivity-C
// mechanism), sampling rate q and T steps, and the claim's parameter in
// it: T steps without subsampling compose to the Gaussian with
// μ = √T/σ exactly; one subsampled step is the SGM family with the
// claimed q. T > 1 steps with q < 1 are in neither (ok = false).
func OSFamilyOfSGM(sigma, q float64, steps int) (f OSFamily, mu float64, ok bool) {
	switch {
	case !(sigma > 0) || math.IsInf(sigma, 1):
		return f, 0, false
	case q == 1:
		return OSFamily{SamplingRate: 1}, math.Sqrt(float64(steps)) / sigma, true
	case steps == 1:
		return OSFamily{SamplingRate: q}, 1 / sigma, true
	}
	return f, 0, false
}
