//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func expBlocksAVX2(y, x *float32, n int) int

//go:noescape
func expBlocksAVX512(y, x *float32, n int) int

//go:noescape
func eluBlocksAVX512(y, x *float32, n int) int

//go:noescape
func softmaxDelta16AVX512(z, e *float32, y *int32, loss *float64) bool

// softmaxDelta16 runs softmaxCEDelta on sixteen rows of ten logits, losses
// included, with the AVX-512 kernel (the same bits), and reports whether
// it did (no AVX-512, or a value the kernel leaves to the loops: nothing
// written).
func softmaxDelta16(z, e []float32, y []int32, loss []float64) bool {
	if !haveExpAVX512 {
		return false
	}
	_, _, _, _ = z[159], e[159], y[15], loss[15]
	return softmaxDelta16AVX512(&z[0], &e[0], &y[0], &loss[0])
}

// haveExpAVX2 selects expBlocksAVX2, haveExpAVX512 expBlocksAVX512 and
// eluBlocksAVX512 (exp_amd64.s).
var (
	haveExpAVX2   = cpu.X86.HasAVX2
	haveExpAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX2
)

// expBlocks runs exp32 over a prefix of x into y with the vector kernel
// and returns the prefix's length (0 without AVX2); see expInto. With
// AVX-512 it takes eight at a time (the same bits), then AVX2 four.
func expBlocks(y, x []float32) int {
	n := min(len(x), len(y))
	if !haveExpAVX2 || n < 4 {
		return 0
	}
	done := 0
	if haveExpAVX512 && n >= 8 {
		done = expBlocksAVX512(&y[0], &x[0], n)
		if done+4 > n {
			return done
		}
	}
	return done + expBlocksAVX2(&y[done], &x[done], n-done)
}

// eluBlocks runs the ELU (eluForward) over a prefix of x into y with the
// AVX-512 kernel and returns the prefix's length (0 without AVX-512).
func eluBlocks(y, x []float32) int {
	n := min(len(x), len(y))
	if !haveExpAVX512 || n < 8 {
		return 0
	}
	return eluBlocksAVX512(&y[0], &x[0], n)
}

//go:noescape
func eluGradAVX512(d, gr, y *float32, n int) int

// eluGradBlocks runs the ELU's backward pass (activation.backward) over a
// prefix of the slices with the AVX-512 kernel and returns its length (0
// without AVX-512).
func eluGradBlocks(d, g, y []float32) int {
	n := min(len(d), len(g), len(y))
	if !haveExpAVX512 || n < 16 {
		return 0
	}
	return eluGradAVX512(&d[0], &g[0], &y[0], n)
}

// haveSoftmaxKernel reports whether softmaxDelta16 has a kernel (tests).
func haveSoftmaxKernel() bool { return haveExpAVX512 }
