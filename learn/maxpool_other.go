//go:build !amd64 || purego

package learn

func maxPool2Row(x []float32, y []float32, arg []int32, outW, c, rowStride, base int) bool {
	return false
}

func maxPool2BackReLURow(dx, pooled, g []float32, arg []int32, outW, c, rowStride, base int) bool {
	return false
}
