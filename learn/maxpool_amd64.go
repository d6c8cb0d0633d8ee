//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func maxPool2RowAVX2(x *float32, y *float32, arg *int32, outW, c, rowStride, base int)

//go:noescape
func maxPool2BackReLURowAVX2(dx, pooled, grad *float32, arg *int32, outW, c, rowStride, base int)

var haveMaxPoolAVX2 = cpu.X86.HasAVX2

// maxPool2Row pools one output row (see forward2) with the AVX2 kernel
// when the channels fill whole vectors, and reports whether it did.
func maxPool2Row(x []float32, y []float32, arg []int32, outW, c, rowStride, base int) bool {
	if !haveMaxPoolAVX2 || c%8 != 0 || outW == 0 {
		return false
	}
	_ = x[rowStride+(2*outW)*c-1]
	_ = y[outW*c-1]
	_ = arg[outW*c-1]
	maxPool2RowAVX2(&x[0], &y[0], &arg[0], outW, c, rowStride, base)
	return true
}

// maxPool2BackReLURow is one output row of backwardThroughReLU for 2×2
// stride-2 windows with the AVX2 kernel when the channels fill whole
// vectors, and reports whether it did. It writes every input of the
// row's windows. dx starts at the row's first window; pooled (the pool's
// outputs), g and arg at its first output; base is the window's offset in
// the image.
func maxPool2BackReLURow(dx, pooled, g []float32, arg []int32, outW, c, rowStride, base int) bool {
	if !haveMaxPoolAVX2 || c%8 != 0 || outW == 0 {
		return false
	}
	_ = dx[rowStride+(2*outW)*c-1]
	_ = pooled[outW*c-1]
	_ = g[outW*c-1]
	_ = arg[outW*c-1]
	maxPool2BackReLURowAVX2(&dx[0], &pooled[0], &g[0], &arg[0], outW, c, rowStride, base)
	return true
}
