//go:build amd64 && !purego

package attack

import (
	"golang.org/x/sys/cpu"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

//go:noescape
func poissonZiggurat(w *uint64, groups int, tab *uint64, sigma float64, cand *float64, slow *uint64)

//go:noescape
func poissonFactors4(ys *float64, groups int, st *poissonState, f *float64)

//go:noescape
func poissonProducts4(ys, f *float64, groups int, st *poissonState)

//go:noescape
func poissonSums4(ys *float64, groups int, st *poissonState)

// havePoissonKernels: the kernels need AVX2 and FMA.
var havePoissonKernels = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// zigHalves sets cand[h] = σ·(float64(j)·wn) for every half h of buf's
// 128 words (the 4 past the output too: never read) and bit h of slow
// when the fast path does not take half h; see zigHalvesGo.
func zigHalves(z *[256]uint64, buf *chacha8.Buffer, sigma float64, cand *[2 * len(chacha8.Buffer{})]float64, slow *[4]uint64) {
	if !havePoissonKernels {
		zigHalvesGo(z, buf, sigma, cand, slow)
		return
	}
	poissonZiggurat(&buf[0], len(buf)/4, &z[0], sigma, &cand[0], &slow[0])
}

// poissonScore scores len(ys)/4 groups of four steps into st, with f
// (at least as long as ys) as scratch for the likelihood ratios; see
// poissonScoreGo.
func poissonScore(ys, f []float64, st *poissonState) {
	if len(ys) < 4 {
		return
	}
	if !havePoissonKernels {
		poissonScoreGo(ys, st)
		return
	}
	_ = f[len(ys)-1]
	poissonFactors4(&ys[0], len(ys)/4, st, &f[0])
	poissonProducts4(&ys[0], &f[0], len(ys)/4, st)
}

// poissonSums adds len(ys)/4 groups of four steps to st's sums; see
// poissonSumsGo.
func poissonSums(ys []float64, st *poissonState) {
	if len(ys) < 4 {
		return
	}
	if !havePoissonKernels {
		poissonSumsGo(ys, st)
		return
	}
	poissonSums4(&ys[0], len(ys)/4, st)
}
