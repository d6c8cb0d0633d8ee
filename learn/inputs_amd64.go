//go:build amd64 && !purego

package learn

import (
	"math"

	"golang.org/x/sys/cpu"
)

// decodeAVX512 and decodeAVX2 (inputs_amd64.s) set dst[j] to the float of
// code src[j] for j < n (n a multiple of 16, resp. 8): zero-extend, convert
// to float32 k, then q = k·r with r = float32(1/255), and one Newton
// correction q += (k − 255·q)·r with fused multiply-adds, which rounds q to
// the float32 nearest k/255 = float32(float64(k)/255).
//
//go:noescape
func decodeAVX512(dst *float32, src *uint8, n int)

//go:noescape
func decodeAVX2(dst *float32, src *uint8, n int)

const (
	decodeTable   = iota // no vector kernel: codeTable lookups
	decodeVecAVX2        // 8 codes at a time
	decodeVec512         // 16 codes at a time
)

// decodeKernel is the fastest kernel this CPU has that reproduces every
// code's float bit for bit (checked here by exhaustion, so a CPU or
// emulator with a different rounding falls back to the table).
var decodeKernel = pickDecodeKernel()

func pickDecodeKernel() int {
	if cpu.X86.HasAVX512F && decodeKernelExact(decodeVec512) {
		return decodeVec512
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA && decodeKernelExact(decodeVecAVX2) {
		return decodeVecAVX2
	}
	return decodeTable
}

// decodeKernelExact runs kernel k on all 256 codes and compares the bits
// with codeTable.
func decodeKernelExact(k int) bool {
	var src [256]uint8
	var dst [256]float32
	for c := range src {
		src[c] = uint8(c)
	}
	if decodeWith(k, dst[:], src[:]) != len(src) {
		return false
	}
	for c, v := range dst {
		if math.Float32bits(v) != math.Float32bits(codeTable[c]) {
			return false
		}
	}
	return true
}

// decodeWith decodes the longest prefix of src the kernel k handles and
// returns its length.
func decodeWith(k int, dst []float32, src []uint8) int {
	var n int
	switch k {
	case decodeVec512:
		n = len(src) &^ 15
		if n > 0 {
			decodeAVX512(&dst[:n][0], &src[0], n)
		}
	case decodeVecAVX2:
		n = len(src) &^ 7
		if n > 0 {
			decodeAVX2(&dst[:n][0], &src[0], n)
		}
	}
	return n
}

// decodeBlocks decodes a prefix of src into dst with the vector kernel and
// returns its length (0 without one); see decodeRow.
func decodeBlocks(dst []float32, src []uint8) int {
	return decodeWith(decodeKernel, dst, src)
}

// prefetchCodes asks for the cache lines of p[:n] (n > 0).
//
//go:noescape
func prefetchCodes(p *uint8, n int)

// prefetchRow starts loading a row's codes that will be decoded soon.
func prefetchRow(c []uint8) {
	if len(c) > 0 {
		prefetchCodes(&c[0], len(c))
	}
}

// decodeVectorized reports whether decodeRow has a vector kernel here.
func decodeVectorized() bool { return decodeKernel != decodeTable }
