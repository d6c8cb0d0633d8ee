//go:build !amd64 || purego

package attack

import "github.com/dpaudit/dpaudit/internal/chacha8"

const havePoissonKernels = false

func zigHalves(z *[256]uint64, buf *chacha8.Buffer, sigma float64, cand *[2 * len(chacha8.Buffer{})]float64, slow *[4]uint64) {
	zigHalvesGo(z, buf, sigma, cand, slow)
}

func poissonScore(ys, f []float64, st *poissonState) { poissonScoreGo(ys, st) }

func poissonSums(ys []float64, st *poissonState) { poissonSumsGo(ys, st) }
