//go:build !amd64 || purego

package gemm

// transposeBlocks: no vector transposer on this build; packing uses Go loops.
var transposeBlocks func(dst []float32, dstStride int, src []float32, srcStride, jBlocks, pBlocks int)
