//go:build amd64 && !purego

package gemm

// Assembly row/column kernels (rows_amd64.s); the exported wrappers in
// rows.go check every size first.

//go:noescape
func colSumsAVX512(rows, cols int, x *float32, ldx int, dst *float32)

//go:noescape
func colSumsAVX2(rows, cols int, x *float32, ldx int, dst *float32)

//go:noescape
func addRowVectorAVX512(rows, cols int, v *float32, x *float32, ldx int)

//go:noescape
func addRowVectorAVX2(rows, cols int, v *float32, x *float32, ldx int)

//go:noescape
func scaleRowsAVX512(rows, cols int, s *float32, src *float32, lds int, dst *float32, ldd int)

//go:noescape
func scaleRowsAVX2(rows, cols int, s *float32, src *float32, lds int, dst *float32, ldd int)

//go:noescape
func nonFiniteBlockAVX512(x []float32) int

//go:noescape
func nonFiniteBlockAVX2(x []float32) int
