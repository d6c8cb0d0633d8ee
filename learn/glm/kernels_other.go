//go:build !amd64 || purego

package glm

func addScaledSparse(row []float64, cols []int32, vals []float64, alpha float64) {
	addScaledSparseGo(row, cols, vals, alpha)
}

func kernel4x8(a, b []float64, kc int, c []float64, ldc int) { kernel4x8Go(a, b, kc, c, ldc) }

func quadForm(b []float64, stride int, kc []int32, kv []float64, index []int32, vals []float64) float64 {
	return quadFormGo(b, stride, kc, kv, index, vals)
}
