package audit

import (
	"fmt"
	"testing"
)

// Estimation over 10⁶ scores (5·10⁵ per world). The requirement: ≤ 2 s with
// split thresholds. μ = 1 is a strong distinguisher; μ = 0 (random
// guessing) is the worst case for the threshold search, since no threshold
// certifies anything and little can be pruned by value.
//
//	go test -run '^$' -bench Estimate -benchtime 3x -count 5 ./audit/
func BenchmarkEstimate(b *testing.B) {
	for _, mu := range []float64{1, 0} {
		scores, worlds := gaussianShift(1, 0, 500000, mu)
		for _, m := range []Method{Split, PostHoc, Bonferroni} {
			b.Run(fmt.Sprintf("mu=%g/%s", mu, m), func(b *testing.B) {
				o := DefaultOptions()
				o.Method = m
				var r Result
				for b.Loop() {
					var err error
					if r, err = Estimate(scores, worlds, o); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(scores))*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
				b.ReportMetric(r.EpsilonLB, "eps_lb")
			})
		}
	}
}

// The one-run bound at m = 10⁵ canaries, all guessed (the α term walks
// up to v pmf terms per bisection step).
//
//	go test -run '^$' -bench OneRun -count 5 ./audit/
func BenchmarkOneRunEpsilon(b *testing.B) {
	for b.Loop() {
		if _, err := OneRunEpsilon(100000, 100000, 60000, 1e-5, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}
