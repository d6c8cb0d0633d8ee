//go:build amd64 && !purego

package gemm

//go:noescape
func rowSumSquaresNarrowAVX512(rows, cols int, x *float32, ldx int, dst *float32)
