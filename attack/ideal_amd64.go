//go:build amd64 && !purego

package attack

import (
	"golang.org/x/sys/cpu"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

//go:noescape
func idealZiggurat(w *uint64, groups int, knwn *uint64, sigma float64, cand *float64, slow *uint64)

//go:noescape
func idealExp4(ys *float64, n int, c float64, e *float64, ok *uint8)

//go:noescape
func idealScore4(ys, e *float64, ok *uint8, n int, st *idealState4) (done int, fold bool)

//go:noescape
func idealScatter4(dst *float64, src *float64, n int)

//go:noescape
func idealSums4(ys *float64, n int, st *idealState4)

// haveIdealKernels: the kernels need AVX2 and FMA, and their exp is
// math.Exp's bits only where math.Exp takes its FMA path (AVX and FMA).
var haveIdealKernels = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// zigguratCandidates sets cand[n] = σ·(float64(j)·float64(wn[i])) for
// every word n of w (j = int32(u), i = u>>32 & 0x7F: NormFloat64's
// fast-path value, scaled as trial scales it) and bit n of slow when the
// fast path does not take the word (|j| ≥ kn[i]).
//
// The kernel converts all of buf, the 4 words past the output (the next
// seed) too, in groups of 8: their candidates are never read, and their
// slow bits are cleared.
func zigguratCandidates(z *zigguratTables, buf *chacha8.Buffer, sigma float64, cand *[len(chacha8.Buffer{})]float64, slow *[2]uint64) {
	if !haveIdealKernels {
		zigguratCandidatesGo(z, buf, sigma, cand, slow)
		return
	}
	idealZiggurat(&buf[0], len(buf)/8, &z.knwn[0], sigma, &cand[0], &slow[0])
	slow[1] &= 1<<(chacha8.Words-64) - 1
}

// copyStrided sets dst[i·stride] = src[i] for i < len(src), and may set
// it for up to 3 more i, to the next multiple of 4, from src's capacity:
// the caller either writes those steps of its lane afterwards or never
// reads them (the block's padding). Whole groups of four spare the
// kernel a tail loop whose exit, at a random run length, the branch
// predictor misses.
func copyStrided(dst []float64, stride int, src []float64) {
	if stride != idealLanes || !haveIdealKernels {
		copyStridedGo(dst, stride, src)
		return
	}
	n4 := (len(src) + 3) &^ 3
	_ = dst[idealLanes*(n4-1)]
	_ = src[:n4]
	idealScatter4(&dst[0], &src[0], len(src))
}
