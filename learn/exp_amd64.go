//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func expBlocksAVX2(y, x *float32, n int) int

// haveExpAVX2 selects expBlocksAVX2 (exp_amd64.s).
var haveExpAVX2 = cpu.X86.HasAVX2

// expBlocks runs exp32 over a prefix of x into y with the vector kernel
// and returns the prefix's length (0 without AVX2); see expInto.
func expBlocks(y, x []float32) int {
	if !haveExpAVX2 || len(x) < 4 {
		return 0
	}
	return expBlocksAVX2(&y[0], &x[0], min(len(x), len(y)))
}
