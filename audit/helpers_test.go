package audit

import "github.com/dpaudit/dpaudit/rng"

// gaussianShift returns n trials per world, alternating worlds, with
// world-0 scores N(0, 1) and world-1 scores N(mu, 1): the trade-off curve of
// μ-GDP, so the exact ε(δ) is known (note §8 item 8 lists μ per ε).
func gaussianShift(seed uint64, rep, n int, mu float64) ([]float64, []bool) {
	r := rng.New(seed, "test", "gaussian-shift", rep)
	scores := make([]float64, 2*n)
	worlds := make([]bool, 2*n)
	for i := range scores {
		worlds[i] = i%2 == 1
		scores[i] = r.NormFloat64()
		if worlds[i] {
			scores[i] += mu
		}
	}
	return scores, worlds
}
