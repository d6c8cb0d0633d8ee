//go:build !amd64 || purego

package attack

import "github.com/dpaudit/dpaudit/internal/chacha8"

const havePoissonKernels = false

func setPoissonKernels(bool) bool { return false }

func zigHalves(buf *chacha8.Buffer, n int, sigma float64, cand *[poissonHalves]float64, slow *[4]uint64) {
	zigHalvesGo(buf, n, sigma, cand, slow)
}

func poissonScore(ys, f []float64, st *poissonState) { poissonScoreGo(ys, st) }

func poissonSums(ys []float64, st *poissonState) { poissonSumsGo(ys, st) }
