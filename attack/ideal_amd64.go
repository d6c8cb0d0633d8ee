//go:build amd64 && !purego

package attack

import (
	"golang.org/x/sys/cpu"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

//go:noescape
func poissonZiggurat(w *uint64, quads int, tab *[256][2]float64, sigma float64, cand *float64, slow *uint64)

//go:noescape
func poissonExps4(ys *float64, groups int, st *poissonState, e *float64)

//go:noescape
func poissonProducts4(ys, e *float64, groups int, st *poissonState)

//go:noescape
func poissonSums4(ys *float64, groups int, st *poissonState)

// havePoissonKernels: the kernels need AVX2 and FMA.
var havePoissonKernels = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// setPoissonKernels turns the kernels off (or back on where the CPU has
// them), for tests of the Go forms, and returns the former setting.
func setPoissonKernels(on bool) bool {
	was := havePoissonKernels
	havePoissonKernels = on && cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA
	return was
}

// zigHalves sets cand[h] = σ·(float64(j)·zigW[i]) for the halves h <
// n of buf (n ≤ 248) and bit h of slow when the fast path does not take
// half h; see zigHalvesGo. It may set them for up to 3 halves more.
func zigHalves(buf *chacha8.Buffer, n int, sigma float64, cand *[poissonHalves]float64, slow *[4]uint64) {
	if !havePoissonKernels {
		zigHalvesGo(buf, n, sigma, cand, slow)
		return
	}
	poissonZiggurat(&buf[0], (n+3)/4, zigPairs(), sigma, &cand[0], &slow[0])
}

// poissonScore scores len(ys)/4 groups of four steps into st, with e
// (at least as long as ys) as scratch for the exps; see poissonScoreGo.
// The exps are a pass of their own: their chains are long and
// independent, the products' short and serial.
func poissonScore(ys, e []float64, st *poissonState) {
	if len(ys) < 4 {
		return
	}
	if !havePoissonKernels {
		poissonScoreGo(ys, st)
		return
	}
	_ = e[len(ys)-1]
	poissonExps4(&ys[0], len(ys)/4, st, &e[0])
	poissonProducts4(&ys[0], &e[0], len(ys)/4, st)
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
