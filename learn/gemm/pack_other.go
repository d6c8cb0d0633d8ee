//go:build !amd64 || purego

package gemm

// transposeBlocks: no vector transposer on this build; packing uses Go loops.
var transposeBlocks func(dst []float32, dstStride int, src []float32, srcStride, jBlocks, pBlocks int)

// packBRowsVec: no vector copier on this build.
func packBRowsVec(dst []float32, b []float32, ldb, p0, kc, j0, panels, nr int) bool { return false }

// packA6Vec: no vector packer on this build.
func packA6Vec(dst []float32, src []float32, lda, kc int) int { return 0 }
