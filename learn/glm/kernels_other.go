//go:build !amd64 || purego

package glm

func addOuterRows(h []float64, stride int, c []int32, v []float64, nk int, a float64) {
	addOuterRowsGo(h, stride, c, v, nk, a)
}

func kernel4x8(a, b []float64, kc int, c []float64, ldc int) { kernel4x8Go(a, b, kc, c, ldc) }

func quadForm(b []float64, stride int, kc []int32, kv []float64, index []int32, vals []float64) float64 {
	return quadFormGo(b, stride, kc, kv, index, vals)
}
