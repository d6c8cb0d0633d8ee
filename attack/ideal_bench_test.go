package attack_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
)

// The simulator alone (no estimate), per trial-step, on one and two
// workers: 20,000 trials × T = 1000 of the benchmark audit's mechanism
// (DPAUDIT_IDEAL_TRIALS sets another count, e.g. a small one to count
// instructions under valgrind).
//
//	go test -run '^$' -bench IdealSimulate ./attack/
func BenchmarkIdealSimulate(b *testing.B) {
	m := attack.IdealMechanism{SamplingRate: 0.01, Steps: 1000, NoiseMultiplier: 0.8256}
	trials := 20000
	if v, err := strconv.Atoi(os.Getenv("DPAUDIT_IDEAL_TRIALS")); err == nil && v > 0 {
		trials = v
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			rep := 0
			for b.Loop() {
				if _, err := attack.SimulateIdeal(attack.IdealRun{Mechanism: m, Seed: 1, Path: []any{"bench", rep}, Count: trials, Workers: workers}); err != nil {
					b.Fatal(err)
				}
				rep++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*trials*m.Steps), "ns/trial-step")
		})
	}
}
