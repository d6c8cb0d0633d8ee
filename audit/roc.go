package audit

// Threshold-free summaries of a distinguisher. They always use every
// trial, whatever the threshold-selection method: they are descriptive
// statistics of the attack, not privacy claims.

// auc returns the area under the empirical ROC curve, the Mann–Whitney
// probability that a world-1 score exceeds a world-0 score, counting ties
// as ½ (so a constant score gives 0.5).
func (s sortedScores) auc() float64 {
	var twice int64 // 2 × (pairs with s1 > s0) + pairs with s1 = s0
	s.walk(func(st distinctStep) {
		twice += 2*int64(st.c1)*int64(st.below0) + int64(st.c1)*int64(st.c0)
	})
	return float64(twice) / (2 * float64(len(s.w0)) * float64(len(s.w1)))
}

// tprAtFPR returns the true positive rate at each target false positive
// rate on the empirical ROC curve. The curve joins the points (FPR, TPR) of
// the thresholds at every distinct score, from τ = +Inf at (0, 0) down to
// (1, 1); scores tied across worlds make a diagonal segment. The TPR at a
// target FPR f is linearly interpolated between the last threshold with
// FPR ≤ f and the next one, which is the TPR of the test that randomises
// between those two thresholds. No convex hull is taken. Targets outside
// [0, 1] are clamped.
func (s sortedScores) tprAtFPR(targets []float64) []float64 {
	n0, n1 := float64(len(s.w0)), float64(len(s.w1))
	out := make([]float64, len(targets))
	for ti, f := range targets {
		f = min(max(f, 0), 1)
		fp, tp := 0, 0
		res := -1.0
		// Distinct scores from the top down, only as far as the target
		// FPR: a low-FPR point reads the top of the sorted scores.
		s.walkDown(func(c0, c1 int) bool {
			nfp, ntp := fp+c0, tp+c1
			if float64(nfp)/n0 > f {
				x0, x1 := float64(fp)/n0, float64(nfp)/n0
				y0, y1 := float64(tp)/n1, float64(ntp)/n1
				res = y0 + (f-x0)/(x1-x0)*(y1-y0)
				return false
			}
			fp, tp = nfp, ntp
			return true
		})
		if res < 0 { // f reached the end of the curve
			res = float64(tp) / n1
		}
		out[ti] = res
	}
	return out
}

// maxAccuracy returns the best fraction of correct guesses over all
// thresholds, on all trials (a post-hoc, optimistic figure).
func (s sortedScores) maxAccuracy() float64 {
	n0, n1 := len(s.w0), len(s.w1)
	best := 0
	s.walk(func(st distinctStep) {
		// Threshold just at u: world-0 below u are right, world-1 from u up are right.
		if c := st.below0 + (n1 - st.below1); c > best {
			best = c
		}
	})
	if n0 > best { // τ = +Inf: every guess is world 0
		best = n0
	}
	return float64(best) / float64(n0+n1)
}
