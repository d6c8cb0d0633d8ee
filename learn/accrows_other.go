//go:build !amd64 || purego

package learn

// haveAccRows is false: the portable GEMM rounds every product apart, and
// the convolution's dense backward pass is the one that matches it.
const haveAccRows = false

func accRows(dst, base []float32, off []int32, coef []float32, w int, add bool) {
	panic("learn: accRows without AVX2")
}

func convTiles(out []float32, ldc int, x []float32, off []int32, w, bias []float32, nseg, segLen, segStride int, relu bool) {
	panic("learn: convTiles without AVX2")
}

func nonzeroMasks(x []float32, dst []uint8) {
	panic("learn: nonzeroMasks without AVX2")
}

func convGradT6(out []float32, ldc int, x []float32, pos []int32, d []float32, ldd int, disp []int32, nk int, add bool) {
	panic("learn: convGradT6 without AVX2")
}

func accRowsSeg(dst []float32, dstStride int, base []float32, baseStride, nseg int, off []int32, coef []float32, w int, add bool) {
	panic("learn: accRowsSeg without AVX2")
}
