package audit

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func sortedOf(w0, w1 []float64) sortedScores {
	var scores []float64
	var worlds []bool
	for _, s := range w0 {
		scores, worlds = append(scores, s), append(worlds, false)
	}
	for _, s := range w1 {
		scores, worlds = append(scores, s), append(worlds, true)
	}
	return newSortedScores(scores, worlds, nil)
}

func TestAUCByHand(t *testing.T) {
	// Mann–Whitney by hand: world-1 {0, 4, 6, 7} vs world-0 {1, 2, 3, 5}:
	// 4 beats 3 scores, 6 and 7 beat all 4 → 11 of 16 pairs. (jax_privacy's
	// test of the same scores expects 13/16 because it takes the ROC's convex
	// hull first; we do not.)
	s := sortedOf([]float64{1, 2, 3, 5}, []float64{0, 4, 6, 7})
	if got := s.auc(); got != 11.0/16 {
		t.Errorf("AUC = %v, want 11/16", got)
	}
	// Ties count ½: a constant score gives 0.5; perfect separation 1.
	if got := sortedOf([]float64{1, 1, 1}, []float64{1, 1}).auc(); got != 0.5 {
		t.Errorf("constant scores: AUC = %v, want 0.5", got)
	}
	if got := sortedOf([]float64{0, 1}, []float64{2, 3}).auc(); got != 1 {
		t.Errorf("separated scores: AUC = %v, want 1", got)
	}
}

func TestTPRAtFPRByHand(t *testing.T) {
	// World-1 {1, 3}, world-0 {0, 2}. ROC vertices from τ = +Inf down:
	// (0, 0) → 3: (0, ½) → 2: (½, ½) → 1: (½, 1) → 0: (1, 1).
	s := sortedOf([]float64{0, 2}, []float64{1, 3})
	fprs := []float64{0, 0.25, 0.5, 0.75, 1}
	want := []float64{0.5, 0.5, 1, 1, 1}
	got := s.tprAtFPR(fprs)
	for i := range fprs {
		if got[i] != want[i] {
			t.Errorf("TPR at FPR %v = %v, want %v", fprs[i], got[i], want[i])
		}
	}
	// Interpolation inside a diagonal (tied) segment: world-0 {0, 1},
	// world-1 {1, 2}: (0,0) → 2: (0, ½) → 1 (tied): (½, 1) → 0: (1, 1).
	// At FPR ¼ the randomised test between τ just above 1 and τ = 1 has
	// TPR ½ + ½·½ = ¾.
	if got := sortedOf([]float64{0, 1}, []float64{1, 2}).tprAtFPR([]float64{0.25}); got[0] != 0.75 {
		t.Errorf("tied segment: TPR at FPR ¼ = %v, want ¾", got[0])
	}
}

func TestROCSummariesGaussian(t *testing.T) {
	// Gaussian shift μ = 1, 10⁵ trials per world. Exact values: AUC =
	// Φ(μ/√2) = 0.760250; TPR at FPR f = Φ(μ − Φ⁻¹(1 − f)): 0.0183 at 0.1%
	// and 0.0924 at 1%; max accuracy Φ(μ/2) = 0.691462 (threshold μ/2).
	// Tolerances are 4 standard errors: for TPR, √(p(1−p)/n) combined with
	// the FPR's own error times the ROC slope e^{μz − μ²/2} (13 at 0.1%, 6
	// at 1%): 1.4e-3 and 2.2e-3; AUC √(AUC(1−AUC)/n); accuracy √(a(1−a)/2n).
	scores, worlds := gaussianShift(21, 0, 100000, 1)
	o := DefaultOptions()
	o.Method = PostHoc
	r, err := Estimate(scores, worlds, o)
	if err != nil {
		t.Fatal(err)
	}
	norm := distuv.UnitNormal
	check := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.5f, want %.5f ± %.5f", name, got, want, tol)
		}
	}
	check("AUC", r.AUC, norm.CDF(1/math.Sqrt2), 4*math.Sqrt(0.76*0.24/1e5))
	check("TPR@0.1%", r.TPRAtFPR1e3, norm.CDF(1-norm.Quantile(0.999)), 0.0056)
	check("TPR@1%", r.TPRAtFPR1e2, norm.CDF(1-norm.Quantile(0.99)), 0.0088)
	check("max accuracy", r.MaxAccuracy, norm.CDF(0.5), 4*math.Sqrt(0.69*0.31/2e5))
}
