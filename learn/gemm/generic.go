package gemm

import "unsafe"

// The portable path: the same blocked driver as the assembly, with a Go
// micro-kernel of 4×4 register tiles. It runs on every architecture and is
// what `-tags purego` selects on amd64.
//
// Every product is written float32(x*y): the Go spec lets the compiler fuse
// x*y+z into one FMA (arm64 does by default, amd64 with GOAMD64=v3), and it
// may do so in one loop and not in another, which would make an element's
// bits depend on the tile that computed it. An explicit conversion forces the
// rounding and forbids the fusion, so this path gives the same bits on every
// architecture, for every tiling and thread count.

const (
	genericWidth = 4
	genericMR    = 4
)

func genericArch() *arch {
	t := new(kernelTable)
	for layout := 0; layout < 2; layout++ {
		for nv := 1; nv <= 2; nv++ {
			t[layout][nv] = make([]kernelFunc, genericMR+1)
			for mr := 1; mr <= genericMR; mr++ {
				t[layout][nv][mr] = genericKernel(layout, mr)
			}
		}
	}
	return &arch{
		name: "purego", width: genericWidth, maxMR: [3]int{0, genericMR, genericMR}, kernels: t,
		dot: dotGeneric, axpy: axpyGeneric, scal: scalGeneric, tanh: tanhGeneric,
		rows: genericRows,
	}
}

// genericKernel returns a kernelFunc for mr rows of the given layout. It turns
// the raw pointers back into slices of exactly the extent the contract allows,
// so a driver bug shows up as a bounds panic in tests rather than as silent
// memory corruption.
func genericKernel(layout, mr int) kernelFunc {
	return func(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, nr int) {
		var aStep, aRow, aLen int
		if layout == layoutContig {
			aStep, aRow, aLen = as, 1, (k-1)*as+mr
		} else {
			aStep, aRow, aLen = 1, as, (mr-1)*as+k
		}
		av := unsafe.Slice(a, aLen)
		bv := unsafe.Slice(b, (k-1)*bs+nr)
		cv := unsafe.Slice(c, (mr-1)*ldc+nr)
		for i0 := 0; i0 < mr; i0 += 4 {
			for j0 := 0; j0 < nr; j0 += 4 {
				if i0+4 <= mr && j0+4 <= nr {
					tile4x4(k, av[i0*aRow:], aStep, aRow, bv[j0:], bs, cv[i0*ldc+j0:], ldc, alpha, beta)
				} else {
					tileEdge(k, av[i0*aRow:], aStep, aRow, min(4, mr-i0), bv[j0:], bs, min(4, nr-j0), cv[i0*ldc+j0:], ldc, alpha, beta)
				}
			}
		}
	}
}

// tile4x4 accumulates a 4×4 tile in sixteen locals (registers on most
// targets), p ascending.
func tile4x4(k int, a []float32, aStep, aRow int, b []float32, bs int, c []float32, ldc int, alpha, beta float32) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 float32
	for p := 0; p < k; p++ {
		ap := a[p*aStep:]
		a0, a1, a2, a3 := ap[0], ap[aRow], ap[2*aRow], ap[3*aRow]
		bp := b[p*bs : p*bs+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += float32(a0 * b0)
		c01 += float32(a0 * b1)
		c02 += float32(a0 * b2)
		c03 += float32(a0 * b3)
		c10 += float32(a1 * b0)
		c11 += float32(a1 * b1)
		c12 += float32(a1 * b2)
		c13 += float32(a1 * b3)
		c20 += float32(a2 * b0)
		c21 += float32(a2 * b1)
		c22 += float32(a2 * b2)
		c23 += float32(a2 * b3)
		c30 += float32(a3 * b0)
		c31 += float32(a3 * b1)
		c32 += float32(a3 * b2)
		c33 += float32(a3 * b3)
	}
	acc := [4][4]float32{
		{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33},
	}
	for i := range 4 {
		store(c[i*ldc:i*ldc+4], acc[i][:], alpha, beta)
	}
}

// tileEdge is the mr'×nr' (≤ 4×4) remainder tile.
func tileEdge(k int, a []float32, aStep, aRow, mr int, b []float32, bs, nr int, c []float32, ldc int, alpha, beta float32) {
	var acc [4][4]float32
	for p := 0; p < k; p++ {
		bp := b[p*bs : p*bs+nr]
		for i := 0; i < mr; i++ {
			ai := a[p*aStep+i*aRow]
			for j, bj := range bp {
				acc[i][j] += float32(ai * bj)
			}
		}
	}
	for i := 0; i < mr; i++ {
		store(c[i*ldc:i*ldc+nr], acc[i][:nr], alpha, beta)
	}
}

// store writes C = alpha·acc + beta·C, not reading C when beta == 0.
func store(c, acc []float32, alpha, beta float32) {
	if beta == 0 {
		for j, v := range acc {
			c[j] = float32(alpha * v)
		}
		return
	}
	for j, v := range acc {
		c[j] = float32(alpha*v) + float32(beta*c[j])
	}
}

// dotGeneric mirrors the assembly's summation structure (64 partial sums,
// pairwise reduction) so that results are close to, though not bit-identical
// with, the FMA paths.
func dotGeneric(x, y []float32) float32 {
	var s [64]float32
	n := len(x)
	y = y[:n]
	for i := 0; i < n; i++ {
		s[i&63] += float32(x[i] * y[i])
	}
	return reduce64(&s)
}

// reduce64 folds 64 partial sums pairwise: s[l] += s[l+32], then 16, …, 1.
func reduce64(s *[64]float32) float32 {
	for half := 32; half >= 1; half /= 2 {
		for l := 0; l < half; l++ {
			s[l] += s[l+half]
		}
	}
	return s[0]
}

func axpyGeneric(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float32(alpha * v)
	}
}

func scalGeneric(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}
