package learn

import (
	"math"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// Dirac canaries (one-run audits): with σ = 0 the noisy sum is the clipped
// sum plus DiracValue on each canary's parameter in the steps that drew it,
// each canary independently with probability q — T = 2000, q = 0.3: 600 ±
// 5·√420 per canary — and the batches are the same with or without them
// (their own stream); Step.DiracIncluded reports the draws. Bad canaries
// are errors.
func TestDiracCanaries(t *testing.T) {
	m := mustModel(t, Arch{Kind: KindLogReg}, []int{4}, 3, 1)
	X, Y := randomData(2, 30, 4, 3)
	cfg := DPSGD{ClipNorm: 1, SamplingRate: 0.3, Steps: 2000, LearningRate: 0}
	dirac := []int{0, 7}
	counts := map[int]int{}
	var batches [][]int
	mustTrain(t, m, X, Y, cfg, rng.New(3, "dirac"), &Hooks{Dirac: dirac, DiracValue: 1, CleanSum: true,
		OnStep: func(s *Step) error {
			batches = append(batches, append([]int(nil), s.Batch...))
			for k, j := range dirac { // Step.DiracIncluded reports each draw
				if d := float64(s.NoisySum[j] - s.ClippedSum[j]); s.DiracIncluded[k] != (math.Abs(d-1) < 1e-5) {
					t.Fatalf("step %d canary %d: DiracIncluded %v, noisy − clean = %g", s.Index, k, s.DiracIncluded[k], d)
				}
			}
			for j, v := range s.NoisySum {
				switch d := float64(v - s.ClippedSum[j]); {
				case math.Abs(d-1) < 1e-5 && (j == 0 || j == 7): // float32 sums
					counts[j]++
				case math.Abs(d) > 1e-5:
					t.Fatalf("step %d parameter %d: noisy − clean = %g", s.Index, j, d)
				}
			}
			return nil
		}})
	for _, j := range dirac {
		if math.Abs(float64(counts[j])-600) > 5*math.Sqrt(420) {
			t.Errorf("canary on %d added in %d steps, want 600 ± 102", j, counts[j])
		}
	}
	k := 0
	mustTrain(t, m, X, Y, cfg, rng.New(3, "dirac"), &Hooks{OnStep: func(s *Step) error {
		if len(s.Batch) != len(batches[k]) {
			t.Fatalf("step %d: batch changed without the canaries", k)
		}
		k++
		return nil
	}})
	for _, h := range []*Hooks{{Dirac: []int{0, 0}, DiracValue: 1}, {Dirac: []int{1000}, DiracValue: 1}, {Dirac: []int{1}, DiracValue: 1.5}} {
		if _, err := Train(m, X, Y, cfg, rng.New(3, "dirac"), h); err == nil || !strings.Contains(err.Error(), "Dirac canary") {
			t.Errorf("%+v: error %v", h, err)
		}
	}
}
