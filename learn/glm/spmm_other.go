//go:build !amd64 || purego

package glm

func rowTimesBlock(cols []int32, vals []float64, a []float64, stride int, out []float64) {
	rowTimesBlockGo(cols, vals, a, stride, out)
}

func addScaledSparse(row []float64, cols []int32, vals []float64, alpha float64) {
	addScaledSparseGo(row, cols, vals, alpha)
}
