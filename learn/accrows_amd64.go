//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func accRows6AVX2(dst, base *float32, off *int32, coef *float32, n int, add bool)

//go:noescape
func accRows1AVX2(dst, base *float32, off *int32, coef *float32, n int, add bool)

// haveAccRows reports whether accRows runs: it must perform the FMA chains
// of the GEMM kernels (gemm's AVX2 and AVX-512 paths, which agree bit for
// bit), so it exists only where they do.
var haveAccRows = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// accRows sets dst[0:w] to Σ_j coef[j]·base[off[j] : off[j]+w] (add
// false) or adds that sum to it (add true): each element one FMA chain
// over j ascending from +0, as a GEMM kernel sums over k, then one float32
// add. w is a positive multiple of 8 and off ascends, so base's bounds
// are checked at the last offset.
func accRows(dst, base []float32, off []int32, coef []float32, w int, add bool) {
	n := len(coef)
	if n == 0 {
		if !add {
			clear(dst[:w])
		}
		return
	}
	_ = dst[w-1]
	_ = off[n-1]
	_ = base[int(off[0])]
	_ = base[int(off[n-1])+w-1]
	c := 0
	for ; c+48 <= w; c += 48 {
		accRows6AVX2(&dst[c], &base[c], &off[0], &coef[0], n, add)
	}
	for ; c < w; c += 8 {
		accRows1AVX2(&dst[c], &base[c], &off[0], &coef[0], n, add)
	}
}
