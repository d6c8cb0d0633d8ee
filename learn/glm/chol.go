package glm

import "math"

// inverseSPD writes the inverse of a symmetric positive definite matrix
// into m, row-major n8×n8, and reports false when it is not positive
// definite. l holds the matrix n8×n8, row-major, n8 a multiple of 8, in
// its lower triangle and diagonal (the upper triangle zero; a matrix of
// another size padded with the identity), and is overwritten. The
// inverse comes from the lower Cholesky factor L, its inverse M = L⁻¹
// and H⁻¹ = MᵀM. The three steps' inner sums run in
// kernel4x8 (a 4×8 block of rows at a time); the small triangles left
// over are plain loops. l ends up holding M.
//
// Written by hand because gonum's Cholesky factorisation and inverse took
// about 75 ms at MNIST's n = 618 on one core (its level-3 routines run at
// about 4.5 GFLOP/s), where the three steps here take a fraction of that.
func inverseSPD(l, m []float64, n8 int) bool {
	rows4, ok := cholesky(l, n8)
	if !ok {
		return false
	}
	invertLower(l, rows4, n8)
	gram(l, n8, true, m)
	return true
}

// cholesky factors l in place (inverseSPD's layout) into its lower
// Cholesky factor L, and returns L packed by four rows (rows4[i0·n8 + 4k
// + r] = L[i0+r][k], i0 a multiple of 4). It is left-looking by blocks of
// 8 columns: block J's rows take H's entries less Σ_{k<8J}
// L[i][k]·L[8J+c][k] (kernel4x8 over L's rows packed by four and the
// block's eight rows packed), then the diagonal 8×8 block is factored and
// the rows below are solved against it. Each entry of H is read where L's
// takes its place, after every earlier block.
func cholesky(l []float64, n8 int) (rows4 []float64, ok bool) {
	rows4 = make([]float64, n8*n8)
	rows8 := make([]float64, 8*n8) // rows8[8k + c] = L[j0+c][k]: block J's rows, packed
	var t [4 * 8]float64
	for j0 := 0; j0 < n8; j0 += 8 {
		for k := range j0 {
			for c := range 8 {
				rows8[8*k+c] = l[(j0+c)*n8+k]
			}
		}
		for i0 := j0; i0 < n8; i0 += 4 {
			clear(t[:])
			if j0 > 0 {
				kernel4x8(rows4[i0*n8:][:4*j0], rows8[:8*j0], j0, t[:], 8)
			}
			for r := range 4 {
				row := l[(i0+r)*n8+j0:][:8]
				for c := range row {
					row[c] -= t[r*8+c]
				}
			}
		}
		if !factorBlock(l, n8, j0) {
			return nil, false
		}
		for i := j0 + 8; i < n8; i++ {
			solveRow(l, n8, i, j0)
		}
		for i := j0; i < n8; i++ { // pack block J's columns of every row below
			for k := j0; k < j0+8; k++ {
				rows4[(i&^3)*n8+4*k+i&3] = l[i*n8+k]
			}
		}
	}
	return rows4, true
}

// factorBlock factors the 8×8 diagonal block at (j0, j0) of l in place
// (its lower triangle holds H's entries less the earlier columns'
// products), zeroing its upper triangle.
func factorBlock(l []float64, n8, j0 int) bool {
	for c := range 8 {
		row := l[(j0+c)*n8+j0:][:8]
		d := row[c]
		for k := range c {
			d -= row[k] * row[k]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		row[c] = d
		for r := c + 1; r < 8; r++ {
			below := l[(j0+r)*n8+j0:][:8]
			s := below[c]
			for k := range c {
				s -= below[k] * row[k]
			}
			below[c] = s / d
		}
		clear(row[c+1:])
	}
	return true
}

// solveRow sets row i's entries in columns [j0, j0+8) of l to x with
// x·L_JJᵀ = the entries now there (L_JJ the diagonal block at j0).
func solveRow(l []float64, n8, i, j0 int) {
	x := l[i*n8+j0:][:8]
	for c := range 8 {
		diag := l[(j0+c)*n8+j0:][:8]
		s := x[c]
		for k := range c {
			s -= x[k] * diag[k]
		}
		x[c] = s / diag[c]
	}
}

// invertLower replaces the lower triangular n8×n8 matrix l (row-major,
// zero above the diagonal; rows4 as cholesky packs it) by M = L⁻¹, lower
// triangular too. Block column J of M solves L·M_J
// = E_J down the rows, four at a time: rows i0 … i0+3 take E less
// Σ_{j0≤k<i0} L[i][k]·M[k][J] (kernel4x8 over L's rows and the block's
// rows so far, both packed), then the 4×4 triangle of L at i0 is solved
// by plain loops.
func invertLower(l, rows4 []float64, n8 int) {
	block := make([]float64, 8*n8) // block[8(k−j0) + c] = M[k][j0+c]
	var t [4 * 8]float64
	for j0 := 0; j0 < n8; j0 += 8 {
		for i0 := j0; i0 < n8; i0 += 4 {
			clear(t[:])
			if kc := i0 - j0; kc > 0 {
				kernel4x8(rows4[i0*n8+4*j0:][:4*kc], block[:8*kc], kc, t[:], 8)
			}
			for r := range 4 {
				i := i0 + r
				lrow := l[i*n8:][:n8]
				out := block[8*(i-j0):][:8]
				for c := range 8 {
					s := -t[r*8+c]
					if i == j0+c {
						s++
					}
					for k := i0; k < i; k++ {
						s -= lrow[k] * block[8*(k-j0)+c]
					}
					out[c] = s / lrow[i]
				}
				copy(l[i*n8+j0:][:8], out) // row i's L in these columns is read no more
			}
		}
	}
}
