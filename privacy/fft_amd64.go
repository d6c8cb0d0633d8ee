//go:build amd64 && !purego

package privacy

import "golang.org/x/sys/cpu"

//go:noescape
func radix4AVX2(x0, x1, x2, x3, w1, w2 *complex128, n int)

// haveFFTAVX2: the AVX2 butterflies (which give the Go code's bits).
var haveFFTAVX2 = cpu.X86.HasAVX2

// radix4Block is one block of radix4Stage: the butterflies of x0…x3 (each
// of length L) with twiddles w1 (length L) and w2 (the first L of 2L).
func radix4Block(x0, x1, x2, x3, w1, w2 []complex128) {
	if !haveFFTAVX2 || len(x0)%2 != 0 {
		radix4BlockGo(x0, x1, x2, x3, w1, w2)
		return
	}
	n := len(x0)
	_, _, _, _, _ = x1[n-1], x2[n-1], x3[n-1], w1[n-1], w2[n-1]
	radix4AVX2(&x0[0], &x1[0], &x2[0], &x3[0], &w1[0], &w2[0], n)
}
