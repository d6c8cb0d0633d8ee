//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func packBRows(dst *float32, src *float32, srcStride, kc, panels, vecs int)

//go:noescape
func packA6Blocks(dst *float32, src *float32, srcStride, blocks int)

//go:noescape
func transpose8x8Blocks(dst *float32, dstStride int, src *float32, srcStride int, jBlocks, pBlocks int)

// transposeBlocks is the vector 8×8 block transposer when the CPU has AVX.
var transposeBlocks = func() func(dst []float32, dstStride int, src []float32, srcStride, jBlocks, pBlocks int) {
	if !cpu.X86.HasAVX {
		return nil
	}
	return func(dst []float32, dstStride int, src []float32, srcStride, jBlocks, pBlocks int) {
		if jBlocks == 0 || pBlocks == 0 {
			return
		}
		// The last element touched on each side, checked once here so the
		// assembly cannot run off either slice.
		_ = dst[(8*pBlocks-1)*dstStride+8*jBlocks-1]
		_ = src[(8*jBlocks-1)*srcStride+8*pBlocks-1]
		transpose8x8Blocks(&dst[0], dstStride, &src[0], srcStride, jBlocks, pBlocks)
	}
}()

// packBRowsVec copies whole B panels of nr = 16 or 32 columns a source row
// at a time (see packBFull) when the CPU has AVX; it reports false where it
// cannot, and the caller copies in Go.
func packBRowsVec(dst []float32, b []float32, ldb, p0, kc, j0, panels, nr int) bool {
	if !cpu.X86.HasAVX || nr != 16 && nr != 32 {
		return false
	}
	_ = dst[panels*kc*nr-1]
	_ = b[(p0+kc-1)*ldb+j0+panels*nr-1]
	packBRows(&dst[0], &b[p0*ldb+j0], ldb, kc, panels, nr/8)
	return true
}

// packA6Vec packs the first kc/8·8 columns of six rows of A as packA6 does
// when the CPU has AVX, and returns how many columns it packed.
func packA6Vec(dst []float32, src []float32, lda, kc int) int {
	blocks := kc / 8
	if !cpu.X86.HasAVX || blocks == 0 {
		return 0
	}
	_ = dst[6*8*blocks-1]
	_ = src[5*lda+8*blocks-1]
	packA6Blocks(&dst[0], &src[0], lda, blocks)
	return 8 * blocks
}
