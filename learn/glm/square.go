package glm

import "math"

// The blocking of gram: a kc×sqMC block of packed columns stays in
// a core's second-level cache (192 KB) while each packed kc×8 slice of
// the other factor (16 KB) is in the first.
const (
	sqKC = 256
	sqMC = 96
)

// gram sets out to AᵀA for the n×n matrix a (row-major), as a row-major
// n8×n8 matrix, n8 = n rounded up to a multiple of 8 (the extra rows and
// columns zero; out must not overlap a): (AᵀA)[i][j] = Σ_k
// A[k][i]·A[k][j], both factors read along A's rows; for a symmetric A
// it is A·A. When lower is set, A is taken to be lower triangular (zero
// above the diagonal), and the blocks of k that are zero in all of a
// block of rows are skipped. Only the tiles that reach the upper
// triangle are formed; the lower is its mirror. Every entry is, for each
// block of sqKC values of k in order, a sum over that block in order by
// fused multiply-adds from +0, added to the entry: the bits do not
// depend on the CPU (kernel4x8Go is the same arithmetic).
//
// Written by hand because gonum's Dgemm ran at about 4.5 GFLOP/s here
// (213 ms for a 785×785 product, one core), and dFIL needs two such
// products (MᵀM and A²).
func gram(a []float64, n int, lower bool, out []float64) {
	n8 := (n + 7) &^ 7
	c := out[:n8*n8]
	clear(c)
	pa := make([]float64, sqMC*sqKC)
	pb := make([]float64, sqKC*n8)
	for k0 := 0; k0 < n; k0 += sqKC {
		kc := min(sqKC, n-k0)
		packPanels(a, n, k0, kc, 0, n8, 8, pb)
		for i0 := 0; i0 < n8; i0 += sqMC {
			if lower && k0+kc <= i0 { // A[k][i] = 0 for k < i
				break
			}
			mc := min(sqMC, n8-i0)
			packPanels(a, n, k0, kc, i0, mc, 4, pa)
			for j0 := 0; j0 < n8; j0 += 8 {
				b := pb[j0*kc:][:8*kc]
				for ip := 0; ip < mc && i0+ip < j0+8; ip += 4 { // tiles reaching the upper triangle
					kernel4x8(pa[ip*kc:][:4*kc], b, kc, c[(i0+ip)*n8+j0:], n8)
				}
			}
		}
	}
	for i := range n8 { // mirror the upper triangle
		for j := i + 1; j < n8; j++ {
			c[j*n8+i] = c[i*n8+j]
		}
	}
}

// packPanels copies columns [j0, j0+w) of rows [k0, k0+kc) of the n×n
// matrix a into panels of width columns: panel q's row k at
// dst[(q·width)·kc + k·width:][:width], zero beyond column n.
func packPanels(a []float64, n, k0, kc, j0, w, width int, dst []float64) {
	for q := 0; q < w; q += width {
		panel := dst[q*kc:][:width*kc]
		j := j0 + q
		inside := min(width, max(0, n-j)) // columns of the panel within a
		for k := range kc {
			out := panel[k*width:][:width]
			if inside > 0 {
				copy(out, a[(k0+k)*n+j:][:inside])
			}
			clear(out[inside:])
		}
	}
}

// kernel4x8Go adds to the 4×8 block of c at stride ldc the sum over k <
// kc of a[4k+r]·b[8k+l], each entry's sum formed by fused multiply-adds in
// order of k from +0 and then added.
func kernel4x8Go(a, b []float64, kc int, c []float64, ldc int) {
	var acc [4][8]float64
	for k := range kc {
		for r := range 4 {
			for l := range 8 {
				acc[r][l] = math.FMA(a[4*k+r], b[8*k+l], acc[r][l])
			}
		}
	}
	for r := range 4 {
		row := c[r*ldc:][:8]
		for l := range row {
			row[l] += acc[r][l]
		}
	}
}
