package numeric

import "golang.org/x/sys/cpu"

//go:noescape
func expFMA(dst, src *float64, n int)

// haveExpFMA: math.Exp takes its FMA path exactly when the CPU has AVX and
// FMA (math's useFMA), and expFMA reproduces that path with AVX2 integer
// ops beside it.
var haveExpFMA = cpu.X86.HasAVX && cpu.X86.HasFMA && cpu.X86.HasAVX2

// ExpBlock sets dst[i] = math.Exp(src[i]) for every i, bit for bit, four
// at a time where the CPU allows (len(src) a multiple of 4; dst at least as
// long). It is for loops whose results must not change when they stop
// calling math.Exp one value at a time.
func ExpBlock(dst, src []float64) {
	if !haveExpFMA || len(src) == 0 {
		expBlockGo(dst, src)
		return
	}
	dst = dst[:len(src)]
	expFMA(&dst[0], &src[0], len(src))
	fixExpRange(dst, src)
}
