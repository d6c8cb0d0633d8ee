package audit

import (
	"math"
)

// Sequential (anytime-valid) audits: trials arrive in order, the audit
// looks at them at a fixed schedule of trial counts and stops at the first
// look that refutes the claim, or when the budget is spent.
//
// The reference note (§7) describes González et al. (2025), a kernel-MMD
// e-process whose bound b(ε, δ), kernel and bet schedule were not
// available; a betting e-process on the error rates was tried here before
// and had no power. This is the closest honest construction with a
// proof that fits in a comment: group-sequential looks, each an ordinary
// split audit, with the miss probability spent over the looks.
//
// Schedule. Look k (k = 1, 2, …) happens when n_k trials exist: n_1 is
// the first look, n_k = n_1·2^(k−1), and the last look is at the budget.
// The looks are trial counts, not shards, so the result does not depend
// on how the trials were sharded.
//
// Look k. Its trials are the first n_k in trial order. The first
// ⌈f·n_k⌉ (f = the split fraction) choose one threshold τ_k; the other
// trials are counted at τ_k; Clopper–Pearson upper bounds on FPR and
// FNR are taken at miss probability α_k/2 each. Conditional on τ_k
// (which saw none of the counted trials) the two bounds hold together
// with probability ≥ 1 − α_k.
//
// Spending. α_k = α/(k(k+1)), which sums to α(1 − 1/(K+1)) < α over any
// number K of looks — so the budget could even be extended later. By a
// union bound over the looks, with probability ≥ 1 − α every look's box
// holds at once; on that event no look can reject a true claim, whatever
// the looks saw before and whenever the audit stopped. Hence
// P(ever declaring a violation | the claim holds) ≤ α: anytime-valid. The
// same event makes every look's ε lower bound hold at once, so the
// stopping look's bound (and the largest over the looks) is a valid lower
// bound at 1 − α.
//
// What is tested. A DP-SGD accountant does not claim one (ε, δ) pair: it
// claims its whole privacy profile, (ε, δ(ε))-DP for every ε (it can be
// queried at any). SequentialOptions.Profile lists pairs of that profile;
// look k rejects the claim when its box violates any of them:
// 1 − FNR⁺ − e^ε_j·FPR⁺ > δ_j (or with the rates swapped). Each pair is a
// claim the accountant makes, so the test is valid for the accountant's
// claim; with the single pair (ε_claim, δ) it is the classic (ε, δ) test.
// The profile test rejects whenever the single-pair test would (the pair is
// in the profile) and, where the claim's δ(ε) is small at small ε, far
// earlier: a moderate-FPR attack with a high TPR refutes it in a few
// hundred trials, while the (ε, δ = 1e-5) pair alone needs an FPR below
// 1/1000 to be certified and so thousands of trials.
//
// The p-value. Look k's p_k is the smallest miss probability at which its
// box (at its own τ_k) rejects; p = min_k p_k/w_k with w_k = 1/(k(k+1))
// over the looks run is a valid p-value: P(p ≤ a) ≤ Σ_k P(p_k ≤ a·w_k) ≤ a.

// FamilySequential is the estimate family of a sequential audit: Eq. 5
// with Clopper–Pearson bounds at one split threshold per look, the miss
// probability spent over the looks.
const FamilySequential = "eps_delta_cp_sequential"

// ProfilePoint is one (ε, δ) pair of a claim's privacy profile.
type ProfilePoint struct {
	Epsilon, Delta float64
}

// SequentialOptions configure a sequential audit.
type SequentialOptions struct {
	// Confidence is 1 − α, the probability that no look errs.
	Confidence float64
	// Delta is the δ at which each look's ε lower bound is reported.
	Delta float64
	// Profile is the claim: the mechanism is (ε_j, δ_j)-DP for every j.
	// At least one pair.
	Profile []ProfilePoint
	// FirstLook is n_1, Budget the last look's trial count (≥ FirstLook).
	FirstLook, Budget int
	// SplitFraction is the share of each look's trials, the first ones,
	// that chooses its threshold (0: DefaultSplitFraction).
	SplitFraction float64
	// LowerMeansWorld1: low scores mean world 1 (see Options).
	LowerMeansWorld1 bool
}

// MinFirstLook is the smallest first look: each of a look's two parts
// needs trials of both worlds.
const MinFirstLook = 20

func (o SequentialOptions) check() error {
	if err := checkConfidence(o.Confidence); err != nil {
		return err
	}
	if err := checkDelta(o.Delta); err != nil {
		return err
	}
	if len(o.Profile) == 0 {
		return invalidf("sequential audit: the claim's profile is empty")
	}
	for _, p := range o.Profile {
		if !(p.Epsilon >= 0) || !(p.Delta >= 0 && p.Delta <= 1) {
			return invalidf("sequential audit: profile pair (ε = %v, δ = %v) out of range", p.Epsilon, p.Delta)
		}
	}
	if o.FirstLook < MinFirstLook {
		return invalidf("sequential audit: the first look must be ≥ %d trials, got %d", MinFirstLook, o.FirstLook)
	}
	if o.Budget < o.FirstLook {
		return invalidf("sequential audit: the budget (%d trials) is below the first look (%d)", o.Budget, o.FirstLook)
	}
	if o.SplitFraction != 0 && !(o.SplitFraction > 0 && o.SplitFraction < 1) {
		return invalidf("sequential audit: split fraction must be in (0, 1), got %v", o.SplitFraction)
	}
	return nil
}

// LookSchedule returns the trial counts of the looks: first, 2·first,
// 4·first, … while below budget, then budget.
func LookSchedule(first, budget int) []int {
	var out []int
	for n := first; n < budget; n *= 2 {
		out = append(out, n)
	}
	return append(out, budget)
}

// LookWeight is w_k = 1/(k(k+1)) (k ≥ 1), the share of α spent at look k;
// the weights sum to 1 − 1/(K+1) < 1 over K looks.
func LookWeight(k int) float64 { return 1 / (float64(k) * float64(k+1)) }

// Look is one look of a sequential audit.
type Look struct {
	K      int     // 1-based
	Trials int     // n_k: the trials it saw
	Alpha  float64 // α_k, its miss probability
	// Threshold and Rule as Result's; SelectionTrials chose it, Counts are
	// the other trials' outcomes at it, FPRUpper and FNRUpper their
	// Clopper–Pearson bounds at α_k/2 each.
	Threshold          float64
	SelectionTrials    int
	Counts             Counts
	FPRUpper, FNRUpper float64
	// EpsilonLB is Eq. 5 on the bounds at Delta.
	EpsilonLB float64
	// Violation: the box refutes a pair of the profile.
	Violation bool
	// ProfileEpsilon is the pair with the largest margin, ProfileDeltaClaim
	// its δ, ProfileDeltaLB the δ the box proves at that ε.
	ProfileEpsilon, ProfileDeltaClaim, ProfileDeltaLB float64
	// PValue is p_k: the smallest miss probability at which this look's
	// box (at its threshold) rejects the claim.
	PValue float64
}

// EvaluateLook evaluates look k (1-based) of the schedule on the first
// n_k trials, given in trial order (scores[i] is trial i's).
func EvaluateLook(scores []float64, worlds []bool, k int, o SequentialOptions) (Look, error) {
	if err := o.check(); err != nil {
		return Look{}, err
	}
	sched := LookSchedule(o.FirstLook, o.Budget)
	if k < 1 || k > len(sched) {
		return Look{}, invalidf("sequential audit: look %d is not in the schedule of %d looks", k, len(sched))
	}
	n := sched[k-1]
	if len(scores) < n || len(worlds) < n {
		return Look{}, invalidf("sequential audit: look %d needs %d trials, got %d", k, n, len(scores))
	}
	scores, worlds = scores[:n], worlds[:n]
	if err := checkTrials(scores, worlds); err != nil {
		return Look{}, err
	}
	if o.LowerMeansWorld1 {
		scores = negated(scores)
	}
	f := o.SplitFraction
	if f == 0 {
		f = DefaultSplitFraction
	}
	// The first s trials choose; each part must hold both worlds.
	s := int(math.Ceil(f * float64(n)))
	choose, eval := make([]int, 0, s), make([]int, 0, n-s)
	for i := range n {
		if i < s {
			choose = append(choose, i)
		} else {
			eval = append(eval, i)
		}
	}
	cs, es := newSortedScores(scores, worlds, choose), newSortedScores(scores, worlds, eval)
	if len(cs.w0) == 0 || len(cs.w1) == 0 || len(es.w0) == 0 || len(es.w1) == 0 {
		return Look{}, invalidf("sequential audit: look %d (%d trials) has a split part without trials of both worlds", k, n)
	}
	alpha := (1 - o.Confidence) * LookWeight(k)
	tail := alpha / 2
	obj, offset := profileObjective(o.Profile)
	g0 := predictedGrid(len(cs.w0), len(es.w0), tail)
	g1 := predictedGrid(len(cs.w1), len(es.w1), tail)
	cands := cs.candidates()
	i, _, _, _ := bestCandidateOn(cands, g0, g1, obj)
	tau := cands[i].tau
	c := es.countsAt(tau)
	look := Look{K: k, Trials: n, Alpha: alpha, Threshold: tau, SelectionTrials: s, Counts: c}
	look.FPRUpper = cpUpper(float64(c.FP), float64(c.N0), tail)
	look.FNRUpper = cpUpper(float64(c.FN), float64(c.N1), tail)
	look.EpsilonLB = epsilonFromRates(look.FPRUpper, look.FNRUpper, o.Delta)
	// A margin above 0 refutes a pair; rounding must not: it must exceed
	// ClaimTolerance relative to the profile's largest ε (Exceeds).
	margin := obj(look.FPRUpper, look.FNRUpper) - offset
	look.Violation = Exceeds(offset+margin, offset, ClaimTolerance)
	j := bestPair(o.Profile, look.FPRUpper, look.FNRUpper)
	look.ProfileEpsilon, look.ProfileDeltaClaim = o.Profile[j].Epsilon, o.Profile[j].Delta
	look.ProfileDeltaLB = deltaFromRates(look.FPRUpper, look.FNRUpper, o.Profile[j].Epsilon)
	look.PValue = profilePValue(c, o.Profile)
	if o.LowerMeansWorld1 {
		look.Threshold = -look.Threshold
	}
	return look, nil
}

// profileObjective scores a pair of rate bounds by the largest margin
// max_j ε_lb(δ_j) − ε_j over the profile, shifted by max_j ε_j so it is
// ≥ 0 as the threshold search requires (it is non-increasing in both
// rates, as each ε_lb is). A margin > 0 refutes the claim.
func profileObjective(profile []ProfilePoint) (objective, float64) {
	offset := 0.0
	for _, p := range profile {
		offset = math.Max(offset, p.Epsilon)
	}
	return func(fpr, fnr float64) float64 {
		best := 0.0
		for _, p := range profile {
			best = math.Max(best, epsilonFromRates(fpr, fnr, p.Delta)-p.Epsilon+offset)
		}
		return best
	}, offset
}

// bestPair is the index of the profile pair with the largest margin.
func bestPair(profile []ProfilePoint, fpr, fnr float64) int {
	best, val := 0, math.Inf(-1)
	for j, p := range profile {
		if v := epsilonFromRates(fpr, fnr, p.Delta) - p.Epsilon; v > val {
			best, val = j, v
		}
	}
	return best
}

// deltaFromRates is the smallest δ at ε consistent with the rates: a
// mechanism that is (ε, δ)-DP has FNR ≥ 1 − δ − e^ε·FPR and the same with
// the rates swapped.
func deltaFromRates(fpr, fnr, eps float64) float64 {
	e := math.Exp(eps)
	return math.Max(0, math.Max(1-fnr-e*fpr, 1-fpr-e*fnr))
}

// profileRejects: the box at miss probability a (a/2 per rate) refutes a
// pair of the profile.
func profileRejects(c Counts, profile []ProfilePoint, a float64) bool {
	fp := cpUpper(float64(c.FP), float64(c.N0), a/2)
	fn := cpUpper(float64(c.FN), float64(c.N1), a/2)
	for _, p := range profile {
		if epsilonFromRates(fp, fn, p.Delta) > p.Epsilon {
			return true
		}
	}
	return false
}

// profilePValue bisects log a for the smallest a at which the box
// rejects (the box grows as a shrinks, so rejection holds on (a*, 1]).
func profilePValue(c Counts, profile []ProfilePoint) float64 {
	rejects := func(logA float64) bool { return profileRejects(c, profile, math.Exp(logA)) }
	const floor = -690.0
	if !rejects(0) {
		return 1
	}
	if rejects(floor) {
		return math.Exp(floor)
	}
	lo, hi := floor, 0.0
	for range 60 {
		mid := (lo + hi) / 2
		if rejects(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Exp(hi)
}

// SequentialResult summarises the looks of a sequential audit.
type SequentialResult struct {
	Looks []Look
	// Stopped is "violation" (a look refuted the claim) or "budget" (the
	// last look did not); "" while neither (more trials are needed).
	Stopped string
	// TrialsUsed is the last look's trial count.
	TrialsUsed int
	// EpsilonLB is the stopping (last) look's bound; EpsilonLBMax the
	// largest over the looks (valid too: all boxes hold at once).
	EpsilonLB, EpsilonLBMax float64
	// PValue is min_k p_k/w_k, capped at 1.
	PValue    float64
	Violation bool
}

// Summarize combines the looks run so far (in order, from look 1).
func Summarize(looks []Look, budget int) SequentialResult {
	r := SequentialResult{Looks: looks, PValue: 1}
	for _, l := range looks {
		r.PValue = math.Min(r.PValue, l.PValue/LookWeight(l.K))
		r.EpsilonLBMax = math.Max(r.EpsilonLBMax, l.EpsilonLB)
	}
	if len(looks) == 0 {
		return r
	}
	last := looks[len(looks)-1]
	r.TrialsUsed, r.EpsilonLB = last.Trials, last.EpsilonLB
	switch {
	case last.Violation:
		r.Stopped, r.Violation = "violation", true
	case last.Trials >= budget:
		r.Stopped = "budget"
	}
	return r
}

// Sequential runs the looks on the trials given (in trial order) until
// one refutes the claim or the budget is spent; with fewer trials than
// the budget it stops at the last look they cover (Stopped "" if none
// refuted).
func Sequential(scores []float64, worlds []bool, o SequentialOptions) (SequentialResult, error) {
	if err := o.check(); err != nil {
		return SequentialResult{}, err
	}
	var looks []Look
	for k, n := range LookSchedule(o.FirstLook, o.Budget) {
		if n > len(scores) {
			break
		}
		l, err := EvaluateLook(scores, worlds, k+1, o)
		if err != nil {
			return SequentialResult{}, err
		}
		looks = append(looks, l)
		if l.Violation {
			break
		}
	}
	return Summarize(looks, o.Budget), nil
}
