//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

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
