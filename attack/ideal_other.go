//go:build !amd64 || purego

package attack

import "github.com/dpaudit/dpaudit/internal/chacha8"

const haveIdealKernels = false

func idealExp4(ys *float64, n int, c float64, e *float64, ok *uint8) { panic("no ideal kernels") }

func idealScore4(ys, e *float64, ok *uint8, n int, st *idealState4) (int, bool) {
	panic("no ideal kernels")
}

func idealSums4(ys *float64, n int, st *idealState4) { panic("no ideal kernels") }

func zigguratCandidates(z *zigguratTables, buf *chacha8.Buffer, sigma float64, cand *[len(chacha8.Buffer{})]float64, slow *[2]uint64) {
	zigguratCandidatesGo(z, buf, sigma, cand, slow)
}

func copyStrided(dst []float64, stride int, src []float64) { copyStridedGo(dst, stride, src) }
