//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func accRows1AVX2(dst, base *float32, off *int32, coef *float32, n int, add bool)

//go:noescape
func convTilesAVX2(out *float32, ldc int, x *float32, off *int32, w *float32, bias *float32, nseg, segLen, segStride, ntiles int, relu bool)

//go:noescape
func nonzeroMasksAVX2(x *float32, n int, dst *uint8)

//go:noescape
func convGradT6AVX2(out *float32, ldc int, x *float32, pos *int32, np int, d *float32, ldd int, disp *int32, nk int, add bool)

//go:noescape
func accRowsSeg6AVX2(dst *float32, dstStride int, base *float32, baseStride int, nseg int, off *int32, coef *float32, n int, add bool)

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
		accRowsSeg6AVX2(&dst[c], 0, &base[c], 0, 1, &off[0], &coef[0], n, add)
	}
	for ; c < w; c += 8 {
		accRows1AVX2(&dst[c], &base[c], &off[0], &coef[0], n, add)
	}
}

// convTiles computes len(off)/6 tiles of six rows of a convolution's
// output, 16 channels wide (see convTilesAVX2): out[r·ldc : r·ldc+16] for
// the patch whose top-left input element is x[off[r]], from w (K×16, the
// transposed weights of the 16 channels) and bias (16), and with relu set
// the ReLU of that. The caller checks that every patch lies inside x.
func convTiles(out []float32, ldc int, x []float32, off []int32, w, bias []float32, nseg, segLen, segStride int, relu bool) {
	n := len(off) / 6
	if n == 0 {
		return
	}
	_ = out[(6*n-1)*ldc+15]
	_ = w[nseg*segLen*16-1]
	_ = bias[15]
	convTilesAVX2(&out[0], ldc, &x[0], &off[0], &w[0], &bias[0], nseg, segLen, segStride, n, relu)
}

// nonzeroMasks sets bit j of dst[v] to whether x[8v+j] != 0, for every
// whole vector of x (len(x) a multiple of 8).
func nonzeroMasks(x []float32, dst []uint8) {
	n := len(x) / 8
	if n == 0 {
		return
	}
	_ = dst[n-1]
	nonzeroMasksAVX2(&x[0], n, &dst[0])
}

// convGradT6 computes nk ≤ 6 rows of a convolution's transposed weight
// gradient Uᵀ·Δ, 16 channels wide, over the positions pos (one k-chunk;
// see convGradT6AVX2): row i sums x[pos[p] + disp[i]]·d[p·ldd : p·ldd+16]
// and is stored into out[i·ldc:], or added to it. disp holds six
// displacements (the unused ones repeat a valid one). The caller checks
// that every patch lies inside x.
func convGradT6(out []float32, ldc int, x []float32, pos []int32, d []float32, ldd int, disp []int32, nk int, add bool) {
	np := len(pos)
	if np == 0 || nk == 0 {
		return
	}
	_ = out[(nk-1)*ldc+15]
	_ = d[(np-1)*ldd+15]
	_ = disp[5]
	convGradT6AVX2(&out[0], ldc, &x[0], &pos[0], np, &d[0], ldd, &disp[0], nk, add)
}

// accRowsSeg is accRows for nseg segments that share the offsets and
// coefficients: segment s sums base[s·baseStride:] into dst[s·dstStride:]
// (a kernel row of a patch per segment). Rows of 48 floats, a 3×3
// kernel over 16 channels, take one call for all segments.
func accRowsSeg(dst []float32, dstStride int, base []float32, baseStride, nseg int, off []int32, coef []float32, w int, add bool) {
	n := len(coef)
	if w != 48 || n == 0 || nseg <= 0 {
		for s := 0; s < nseg; s++ {
			accRows(dst[s*dstStride:], base[s*baseStride:], off, coef, w, add)
		}
		return
	}
	_ = dst[(nseg-1)*dstStride+w-1]
	_ = off[n-1]
	_ = base[int(off[0])]
	_ = base[(nseg-1)*baseStride+int(off[n-1])+w-1]
	accRowsSeg6AVX2(&dst[0], dstStride, &base[0], baseStride, nseg, &off[0], &coef[0], n, add)
}
