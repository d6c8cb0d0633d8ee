package figure

import (
	"errors"
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/privacy"
)

// The operating points count the trials at or beyond each threshold, and
// each box is the two-sided Clopper–Pearson interval of its FPR and TPR at
// 1 − (1 − c)/(2k): with k boxes, all 2k intervals hold together at c.
func TestOperatingPointsAreJointClopperPearsonBoxes(t *testing.T) {
	// 100 trials per world: world-1 scores 50..149, world-0 scores 0..99
	// (higher means world 1).
	var scores []float64
	var worlds []bool
	for i := range 100 {
		scores, worlds = append(scores, float64(i)), append(worlds, false)
		scores, worlds = append(scores, float64(i+50)), append(worlds, true)
	}
	const k, conf = 4, 0.95
	boxes, err := operatingPoints(scores, worlds, false, k, conf)
	if err != nil {
		t.Fatal(err)
	}
	if len(boxes) != k {
		t.Fatalf("%d boxes, want %d", len(boxes), k)
	}
	perRate := 1 - (1-conf)/(2*k)
	for _, b := range boxes {
		fp, tp := int(math.Round(b.X*100)), int(math.Round(b.Y*100))
		lo, _ := audit.ClopperPearsonLower(tp, 100, perRate, audit.TwoSided)
		hi, _ := audit.ClopperPearsonUpper(fp, 100, perRate, audit.TwoSided)
		if b.YLo != lo || b.XHi != hi || !(b.XLo <= b.X && b.X <= b.XHi && b.YLo <= b.Y && b.Y <= b.YHi) {
			t.Errorf("box %+v: TPR lower end want %v, FPR upper end want %v", b, lo, hi)
		}
	}
	// The shares guessed world 1 run from 10/n = 0.05 to 0.5: the first
	// threshold takes the top 10 trials (all world 1), the last the top 100.
	if boxes[0].X != 0 || boxes[0].Y != 0.1 || boxes[k-1].X != 0.25 || boxes[k-1].Y != 0.75 {
		t.Errorf("first box (%v, %v), last (%v, %v); want (0, 0.1) and (0.25, 0.75)", boxes[0].X, boxes[0].Y, boxes[k-1].X, boxes[k-1].Y)
	}
	// Lower scores meaning world 1 is the mirror image.
	neg := make([]float64, len(scores))
	for i, s := range scores {
		neg[i] = -s
	}
	mirrored, _ := operatingPoints(neg, worlds, true, k, conf)
	for i := range boxes {
		if mirrored[i] != boxes[i] {
			t.Errorf("lower-is-member box %d = %+v, want %+v", i, mirrored[i], boxes[i])
		}
	}
}

// lowerScores lists exactly the scores of the distinguishers for which a
// low value means world 1.
func TestLowerScoresMatchTheDistinguishers(t *testing.T) {
	for _, kind := range attack.DistinguisherKinds() {
		d, err := attack.NewDistinguisher(kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.ScoreNames() {
			if slicesContains(lowerScores, s) != d.LowerMeansWorld1() {
				t.Errorf("%s: score %s: lower means world 1 is %v, lowerScores says %v", kind, s, d.LowerMeansWorld1(), !d.LowerMeansWorld1())
			}
		}
	}
}

// A claim's curve is the one its accountant gives for the claim's sampler
// and adjacency: exact replace-one, not the looser σ/2 bound the older
// "replace" name stands for, and fixed-size sampling as accounted. Drawing
// every replace-one claim as σ/2 Poisson put the claimed curve below the
// claim and hid operating points beyond it.
func TestClaimCurveFollowsSamplingAndAdjacency(t *testing.T) {
	base := mechanism{accountant: "pld", sigma: 1.1, rate: 0.01, steps: 300, clip: "hard"}
	curveOf := func(m mechanism) privacy.Curve {
		t.Helper()
		c, err := m.curve()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	exact, half := base, base
	exact.adjacency, half.adjacency = "replace_one", "replace"
	want, err := privacy.TradeOffCurve(privacy.AccountantPLD, privacy.SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 0.01, Steps: 300,
		Adjacency: privacy.AdjacencyReplaceOne}, privacy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const alpha = 0.01
	if got := curveOf(exact).Beta(alpha); got != want.Symmetric.Beta(alpha) {
		t.Errorf("replace_one claim: β(%g) = %g, the exact replace-one curve has %g", alpha, got, want.Symmetric.Beta(alpha))
	}
	if e, h := curveOf(exact).Beta(alpha), curveOf(half).Beta(alpha); !(h < e) {
		t.Errorf("β(%g): exact replace-one %g, σ/2 bound %g; the bound should lie below", alpha, e, h)
	}
	fixed := exact
	fixed.sampling = "fixed_size"
	if p, f := curveOf(exact).Beta(alpha), curveOf(fixed).Beta(alpha); p == f {
		t.Errorf("fixed_size and poisson claims drew the same curve (β(%g) = %g): the sampler was ignored", alpha, p)
	}
	shuffled := base
	shuffled.sampling = "shuffle"
	if _, err := shuffled.curve(); !errors.Is(err, privacy.ErrNoAccountant) {
		t.Errorf("shuffle: err %v, want ErrNoAccountant (no valid curve)", err)
	}
}
