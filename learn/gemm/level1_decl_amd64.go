//go:build amd64 && !purego

package gemm

// Assembly level-1 kernels (level1_amd64.s). Callers guarantee
// len(y) ≥ len(x); only len(x) elements are touched.

//go:noescape
func dotAVX512(x, y []float32) float32

//go:noescape
func dotAVX2(x, y []float32) float32

//go:noescape
func axpyAVX512(alpha float32, x, y []float32)

//go:noescape
func axpyAVX2(alpha float32, x, y []float32)

//go:noescape
func scalAVX512(alpha float32, x []float32)

//go:noescape
func scalAVX2(alpha float32, x []float32)

//go:noescape
func tanhAVX512(dst, x []float32)

//go:noescape
func tanhAVX2(dst, x []float32)

//go:noescape
func reluGradAVX512(d, g, y []float32)

//go:noescape
func reluGradAVX2(d, g, y []float32)

//go:noescape
func reluAVX512(y, x []float32)

//go:noescape
func reluAVX2(y, x []float32)
