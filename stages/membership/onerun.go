package membership

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// oneRunColumns are the estimator-specific summary columns of a one-run
// audit: Steinke et al.'s counts (its bound is epsilon_lb), then the f-DP
// bound of Mahloujifar et al. and the order-statistics bound of Xiang et
// al. side by side, each with its family and the claim it tests, then the
// median, min and max over repeats of the latter two.
var oneRunColumns = []string{"one_run_canaries", "one_run_guesses", "one_run_correct",
	"one_run_fdp_epsilon_lb", "one_run_fdp_mu", "one_run_fdp_guesses", "one_run_fdp_correct", "one_run_fdp_family", "one_run_fdp_claim",
	"one_run_os_epsilon_lb", "one_run_os_mu", "one_run_os_guesses", "one_run_os_mistakes", "one_run_os_family", "one_run_os_claim",
	"one_run_os_claim_mu", "one_run_os_claim_p_value", "one_run_os_at_range_end",
	"one_run_fdp_epsilon_lb_median", "one_run_fdp_epsilon_lb_min", "one_run_fdp_epsilon_lb_max",
	"one_run_os_epsilon_lb_median", "one_run_os_epsilon_lb_min", "one_run_os_epsilon_lb_max", "estimate_score_is_llr"}

// oneRunEstimate runs the three one-run estimators on the canaries' scores
// (the ideal mechanism's log-likelihood ratio under the claim). Only
// Steinke et al.'s bound tests (ε, δ)-DP for any mechanism, so it is
// epsilon_lb and the only one that can raise a violation; the other two
// test a Gaussian-family claim and are reported beside it.
//
// Scores where lower means "included" (the loss of input canaries) are
// turned into median(s) − s first: the same ranks for the two-sided
// guesses, and a sign for the order-statistics decoder that looks at the
// scores only, never at the bits.
func oneRunEstimate(p estimateParams, scores []float64, worlds []bool, epsAcc float64) (repeatEstimate, error) {
	o := p.OneRun
	m := len(scores)
	if p.LowerWorld1 {
		scores = audit.CenteredScores(scores, true, false)
	}
	canaries := p.Canaries
	if canaries == "" {
		canaries = "ideal mechanism"
	}
	kp, km := audit.TwoSidedGuesses(o.SteinkeGuesses, m)
	r, err := audit.OneRun(scores, worlds, kp, km, p.Delta, p.Confidence)
	if err != nil {
		return repeatEstimate{}, err
	}
	pv := 1.0
	if !math.IsInf(epsAcc, 1) {
		if pv, err = audit.OneRunPValue(r.Canaries, r.Guesses, r.Correct, epsAcc, p.Delta); err != nil {
			return repeatEstimate{}, err
		}
	}
	kp, km = audit.TwoSidedGuesses(o.FDPGuesses, m)
	fdp, fdpMu, err := audit.OneRunFDP(scores, worlds, kp, km, p.Delta, p.Confidence)
	if err != nil {
		return repeatEstimate{}, err
	}
	outs := []stages.Output{
		stages.Str("one_run_canaries", canaries),
		stages.Int("one_run_guesses", int64(r.Guesses)),
		stages.Int("one_run_correct", int64(r.Correct)),
		stages.F64("one_run_fdp_epsilon_lb", fdp.EpsilonLB),
		stages.F64("one_run_fdp_mu", fdpMu),
		stages.Int("one_run_fdp_guesses", int64(fdp.Guesses)),
		stages.Int("one_run_fdp_correct", int64(fdp.Correct)),
		stages.Str("one_run_fdp_family", audit.FamilyOneRunFDP),
		stages.Str("one_run_fdp_claim", "gaussian (mu-GDP)"),
		// How the order-statistics decoder read the scores: by their
		// sign (log-likelihood ratios) unless low means member, then
		// centred on their median (dpaudit estimate --score-is-llr).
		stages.Bool("estimate_score_is_llr", !p.LowerWorld1),
	}
	osOuts, osEps, err := orderStatsOutputs(p, scores, worlds)
	if err != nil {
		return repeatEstimate{}, err
	}
	outs = append(outs, osOuts...)
	return repeatEstimate{
		outs:   outs,
		family: audit.FamilyOneRun, valid: true, epsLB: r.EpsilonLB, conf: r.Confidence, method: "one_run",
		pValue: pv, violation: audit.Exceeds(r.EpsilonLB, epsAcc, audit.ClaimTolerance),
		extra: []stages.Output{
			stages.F64("one_run_fdp_epsilon_lb", fdp.EpsilonLB),
			stages.F64("one_run_os_epsilon_lb", osEps),
		},
	}, nil
}

// shuffleEpsilonLB is a lower bound on the true ε at δ of what was trained
// when it used shuffled batches (privacy.ShuffleEpsilonLB with the
// others-at-−1 pair, K = round(1/q) batches per epoch); NaN for Poisson
// sampling or without noise.
func shuffleEpsilonLB(t mechanismConfig, delta float64) (float64, error) {
	if t.Sampling != "shuffle" || t.NoiseMultiplier == 0 || !(delta > 0) {
		return math.NaN(), nil
	}
	k := max(1, int(math.Round(1/t.SamplingRate)))
	return privacy.ShuffleEpsilonLB(t.accountedSigma(), k, t.Steps, delta, privacy.ShuffleOthersMinusOne)
}

// inputCanaryName describes the input canaries of a crafter block, e.g.
// "mislabeled_record from the pool".
func inputCanaryName(c *spec.Crafter) string {
	switch {
	case c.RandomRecord != nil:
		return fmt.Sprintf("random_record from the %s", sourceName(c.RandomRecord.Source))
	case c.Mislabeled != nil:
		return fmt.Sprintf("mislabeled_record from the %s", sourceName(c.Mislabeled.Source))
	case c.Noise != nil:
		if c.Noise.Label < 0 {
			return fmt.Sprintf("noise_input on [%g, %g], random labels", c.Noise.Low, c.Noise.High)
		}
		return fmt.Sprintf("noise_input on [%g, %g], label %d", c.Noise.Low, c.Noise.High, c.Noise.Label)
	}
	return c.Kind
}

func sourceName(s string) string {
	if s == "train" {
		return "training set"
	}
	return "pool"
}

// orderStatsOutputs are the columns of Xiang et al.'s order-statistics
// bound, which tests the claim's Gaussian family (none without one: T > 1
// steps with q < 1), and its ε lower bound (NaN without a family).
func orderStatsOutputs(p estimateParams, scores []float64, worlds []bool) ([]stages.Output, float64, error) {
	m, err := p.Claim.mechanism()
	if err != nil {
		return nil, 0, err
	}
	fam, claimMu, ok := audit.OSFamilyOfSGM(m.NoiseMultiplier, m.SamplingRate, m.Steps)
	if !ok {
		return []stages.Output{
			stages.F64("one_run_os_epsilon_lb", math.NaN()),
			stages.F64("one_run_os_mu", math.NaN()),
			stages.Int("one_run_os_guesses", int64(0)),
			stages.Int("one_run_os_mistakes", int64(0)),
			stages.Str("one_run_os_family", audit.FamilyOneRunOrderStats),
			stages.Str("one_run_os_claim", "none (no order-statistics family for T > 1 steps with q < 1)"),
			stages.F64("one_run_os_claim_mu", math.NaN()),
			stages.F64("one_run_os_claim_p_value", math.NaN()),
			stages.Bool("one_run_os_at_range_end", false),
		}, math.NaN(), nil
	}
	rr := p.OneRun.OrderStatsGuesses
	if rr == 0 {
		rr = len(scores)
	}
	os, err := audit.OrderStatsOneRun(fam, scores, worlds, rr, p.Delta, p.Confidence)
	if err != nil {
		return nil, 0, err
	}
	// The p-value of the family's claim itself: at most u mistakes are
	// this unlikely if the mechanism is the claimed one.
	cpv, err := audit.OrderStatsPValue(fam, claimMu, os.Canaries, os.Guesses, os.Mistakes)
	if err != nil {
		return nil, 0, err
	}
	return []stages.Output{
		stages.F64("one_run_os_epsilon_lb", os.EpsilonLB),
		stages.F64("one_run_os_mu", os.Mu),
		stages.Int("one_run_os_guesses", int64(os.Guesses)),
		stages.Int("one_run_os_mistakes", int64(os.Mistakes)),
		stages.Str("one_run_os_family", audit.FamilyOneRunOrderStats),
		stages.Str("one_run_os_claim", fam.Name()),
		stages.F64("one_run_os_claim_mu", claimMu),
		stages.F64("one_run_os_claim_p_value", cpv),
		stages.Bool("one_run_os_at_range_end", os.AtRangeEnd),
	}, os.EpsilonLB, nil
}
