package audit

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// The one-run audit of Steinke, Nasr & Jagielski (2023), "Privacy Auditing
// with One (1) Training Run" (NeurIPS 2023, arXiv 2305.08846): m canaries
// are each included independently with probability ½ in a single training
// run; the auditor guesses in/out for r of them (abstaining on the rest)
// and gets v right. If the training is (ε, δ)-DP, the number of correct
// guesses is stochastically dominated as in their main theorem, which gives
// the p-value below; the ε lower bound is the largest ε whose p-value is
// still below 1 − confidence. This is the computation of the authors'
// code listing in the paper's appendix (p_value_DP_audit and
// get_eps_audit; the same code is in Google DeepMind's jax_privacy,
// auditing._one_run_p_value).

// OneRunPValue returns the probability, under the hypothesis that the
// training is (ε, δ)-DP, of at least v correct guesses out of r among m
// canaries:
//
//	p = P[Bin(r, q) ≥ v] + 2mδ · max_{1≤i≤v} P[v−i ≤ Bin(r, q) < v]/i,
//
// capped at 1, with q = e^ε/(1 + e^ε) the accuracy of ε-DP randomised
// response.
func OneRunPValue(m, r, v int, eps, delta float64) (float64, error) {
	if err := checkOneRun(m, r, v, delta); err != nil {
		return 0, err
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, invalidf("ε must be ≥ 0 and finite, got %v", eps)
	}
	return oneRunPValue(m, r, v, eps, delta), nil
}

func checkOneRun(m, r, v int, delta float64) error {
	if m < 1 || r < 0 || v < 0 || v > r || r > m {
		return invalidf("one-run counts must satisfy 0 ≤ v ≤ r ≤ m with m ≥ 1 (correct ≤ guesses ≤ canaries), got m = %d, r = %d, v = %d", m, r, v)
	}
	if !(delta >= 0 && delta <= 1) {
		return invalidf("δ must be in [0, 1], got %v", delta)
	}
	return nil
}

func oneRunPValue(m, r, v int, eps, delta float64) float64 {
	if v == 0 {
		return 1
	}
	// log q and log(1 − q) for q = 1/(1 + e^−ε), without cancellation.
	logQ := -math.Log1p(math.Exp(-eps))
	log1mQ := -eps + logQ
	q := math.Exp(logQ)
	beta := mathext.RegIncBeta(float64(v), float64(r-v+1), q) // P[Bin(r, q) ≥ v]
	if delta == 0 {
		return math.Min(beta, 1)
	}
	p := beta + 2*float64(m)*delta*oneRunAlpha(r, v, logQ, log1mQ)
	return math.Min(p, 1)
}

// oneRunAlpha returns max_{1≤i≤v} P[v−i ≤ Bin(r, q) < v]/i. The pmf is
// walked down from v−1 by its ratio pmf(k−1)/pmf(k) = k(1−q)/((r−k+1)q),
// scaled by its largest value on [0, v−1] (at the mode, or at v−1 if that
// is below the mode) so that nothing overflows; the walk stays in log
// space only while a term is too small to represent.
func oneRunAlpha(r, v int, logQ, log1mQ float64) float64 {
	logPMF := func(k int) float64 {
		lr, _ := math.Lgamma(float64(r + 1))
		lk, _ := math.Lgamma(float64(k + 1))
		lrk, _ := math.Lgamma(float64(r - k + 1))
		return lr - lk - lrk + float64(k)*logQ + float64(r-k)*log1mQ
	}
	mode := int(math.Floor(float64(r+1) * math.Exp(logQ)))
	scale := logPMF(min(max(mode, 0), v-1))
	logOdds := log1mQ - logQ
	odds := math.Exp(logOdds)
	l := logPMF(v-1) - scale // log of the current term relative to the scale
	inLog := l < -700        // too small to represent: walk in log space
	t := 0.0
	if !inLog {
		t = math.Exp(l)
	}
	sum, best := 0.0, 0.0
	for i := 1; i <= v; i++ {
		k := v - i
		sum += t
		best = math.Max(best, sum/float64(i))
		if k == 0 {
			break
		}
		ratio := float64(k) / float64(r-k+1)
		if inLog {
			l += math.Log(ratio) + logOdds
			if l >= -700 {
				inLog, t = false, math.Exp(l)
			}
			continue
		}
		t *= ratio * odds
	}
	return math.Exp(scale) * best
}

// OneRunEpsilon returns the ε lower bound of the one-run audit at the given
// confidence (1 − β in the paper's notation): the largest ε ≥ 0 whose
// p-value is below 1 − confidence, found by bisection to 1e-9 as in the
// authors' get_eps_audit. It is 0 when even ε = 0 cannot be rejected.
func OneRunEpsilon(m, r, v int, delta, confidence float64) (float64, error) {
	if err := checkOneRun(m, r, v, delta); err != nil {
		return 0, err
	}
	if err := checkConfidence(confidence); err != nil {
		return 0, err
	}
	target := 1 - confidence
	rejects := func(eps float64) bool { return oneRunPValue(m, r, v, eps, delta) < target }
	if !rejects(0) {
		return 0, nil
	}
	// q = 1 to double precision long before 1e4: never loop forever.
	return largestRejected(rejects, 0, 1e4), nil
}

// largestRejected is the largest x in [lo, cap] that rejects accepts, to
// 1e-9 by doubling then bisection, for a rejects that is monotone (true
// below a threshold) and true at lo.
func largestRejected(rejects func(float64) bool, lo, limit float64) float64 {
	hi := max(2*lo, 1.0)
	for rejects(hi) {
		lo, hi = hi, 2*hi
		if hi > limit {
			return lo
		}
	}
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if rejects(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// OneRunResult is the outcome of a one-run audit.
type OneRunResult struct {
	Canaries   int     // m: canaries, each included with probability ½
	Guesses    int     // r = KPlus + KMinus
	Correct    int     // v
	KPlus      int     // canaries guessed "included" (the highest scores)
	KMinus     int     // canaries guessed "excluded" (the lowest scores)
	EpsilonLB  float64 // valid at Confidence when KPlus, KMinus were fixed in advance
	Confidence float64
	Delta      float64
}

// OneRun runs the one-run audit on per-canary scores (higher means "more
// likely included") and inclusion bits: it guesses "included" for the
// KPlus highest scores and "excluded" for the KMinus lowest, abstains on
// the rest, counts the correct guesses and bounds ε with OneRunEpsilon.
// Ties at a cut are broken by canary order (earlier first), which does not
// look at the inclusion bits. The bound is valid only if kPlus and kMinus
// were chosen without looking at these results; scanning them and keeping
// the best is optimistic, like a post-hoc threshold.
func OneRun(scores []float64, included []bool, kPlus, kMinus int, delta, confidence float64) (OneRunResult, error) {
	v, err := twoSidedCorrect(scores, included, kPlus, kMinus)
	if err != nil {
		return OneRunResult{}, err
	}
	m := len(scores)
	eps, err := OneRunEpsilon(m, kPlus+kMinus, v, delta, confidence)
	if err != nil {
		return OneRunResult{}, err
	}
	return OneRunResult{Canaries: m, Guesses: kPlus + kMinus, Correct: v, KPlus: kPlus, KMinus: kMinus,
		EpsilonLB: eps, Confidence: confidence, Delta: delta}, nil
}

// twoSidedCorrect counts the correct guesses of "included" for the kPlus
// highest scores and "excluded" for the kMinus lowest (ties by canary
// order).
func twoSidedCorrect(scores []float64, included []bool, kPlus, kMinus int) (int, error) {
	m := len(scores)
	if m == 0 {
		return 0, invalidf("no canaries")
	}
	if len(included) != m {
		return 0, invalidf("%d scores but %d inclusion bits", m, len(included))
	}
	if kPlus < 0 || kMinus < 0 || kPlus+kMinus > m {
		return 0, invalidf("guess counts must be ≥ 0 with k+ + k− ≤ m = %d, got k+ = %d, k− = %d", m, kPlus, kMinus)
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return 0, invalidf("score of canary %d is NaN", i)
		}
	}
	order := make([]int, m) // canaries by descending score, ties by index
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(scores[b], scores[a]) })
	v := 0
	for _, i := range order[:kPlus] {
		if included[i] {
			v++
		}
	}
	for _, i := range order[m-kMinus:] {
		if !included[i] {
			v++
		}
	}
	return v, nil
}
