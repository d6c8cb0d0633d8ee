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

// Estimate alone at 10⁶ trials with the default options: the serial tail
// of a 10⁶-trial audit, after the simulator. Run it at GOMAXPROCS=2 to see
// what the second core buys.
//
//	GOMAXPROCS=2 go test -run '^$' -bench Estimate1e6 -benchtime 5x -count 5 ./audit/
func BenchmarkEstimate1e6(b *testing.B) {
	scores, worlds := gaussianShift(1, 0, 500000, 1)
	o := DefaultOptions()
	for b.Loop() {
		if _, err := Estimate(scores, worlds, o); err != nil {
			b.Fatal(err)
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

// The order-statistics bound (Xiang et al.) at the note's settings: 40
// bisection steps, each a 10⁵-point channel grid (sorted) and, for r < n,
// a 20001-node integral of binomial CDFs.
//
//	go test -run '^$' -bench 'OrderStats|OneRunFDP' -count 3 ./audit/
func BenchmarkOrderStatsEpsilon(b *testing.B) {
	for _, c := range []struct {
		name    string
		q       float64
		n, r, u int
	}{{"gauss_n1e3_all", 1, 1000, 1000, 159}, {"sgm_n1e5_r1e4", 0.2, 100000, 10000, 2156}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := OrderStatsEpsilon(OSFamily{SamplingRate: c.q}, c.n, c.r, c.u, 1e-5, 0.95); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOneRunFDPEpsilon(b *testing.B) {
	for b.Loop() {
		if _, _, err := OneRunFDPEpsilon(100000, 9939, 10000, 1e-5, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}
