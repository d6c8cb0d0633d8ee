package glm

import "math"

// inverseSPD returns the inverse of the symmetric positive definite n×n
// matrix h (row-major), row-major with row stride n8 = n rounded up to a
// multiple of 8 (the extra rows and columns are the identity's), or
// false when h is not positive definite: by the lower Cholesky factor L,
// its inverse M = L⁻¹ and H⁻¹ = MᵀM. The three steps' inner sums run in
// kernel4x8 (a 4×8 block of rows at a time); the small triangles left
// over are plain loops.
//
// Written by hand because gonum's Cholesky factorisation and inverse took
// about 75 ms at MNIST's n = 618 on one core (its level-3 routines run at
// about 4.5 GFLOP/s), where the three steps here take a fraction of that.
func inverseSPD(h []float64, n int) ([]float64, bool) {
	n8 := (n + 7) &^ 7
	l, rows4, ok := cholesky(h, n, n8)
	if !ok {
		return nil, false
	}
	m := invertLower(l, rows4, n8)
	return gram(m, n8, true), true
}

// cholesky returns the lower Cholesky factor L of h padded with the
// identity to n8×n8, row-major, zero above the diagonal, and L packed by
// four rows (rows4[i0·n8 + 4k + r] = L[i0+r][k], i0 a multiple of 4). It
// is left-looking by blocks of 8 columns: block J's rows take H's entries
// less Σ_{k<8J} L[i][k]·L[8J+c][k] (kernel4x8 over L's rows packed by
// four and the block's eight rows packed), then the diagonal 8×8 block
// is factored and the rows below are solved against it.
func cholesky(h []float64, n, n8 int) (l, rows4 []float64, ok bool) {
	l = make([]float64, n8*n8)
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
				for c := range 8 {
					l[(i0+r)*n8+j0+c] = padded(h, n, i0+r, j0+c) - t[r*8+c]
				}
			}
		}
		if !factorBlock(l, n8, j0) {
			return nil, nil, false
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
	return l, rows4, true
}

// padded is h[i][j] for the n×n matrix h, the identity's beyond it.
func padded(h []float64, n, i, j int) float64 {
	if i < n && j < n {
		return h[i*n+j]
	}
	if i == j {
		return 1
	}
	return 0
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

// invertLower returns M = L⁻¹ for the lower triangular n8×n8 matrix l
// (row-major; rows4 as cholesky packs it), zero above the diagonal. Block column J of M solves L·M_J
// = E_J down the rows, four at a time: rows i0 … i0+3 take E less
// Σ_{j0≤k<i0} L[i][k]·M[k][J] (kernel4x8 over L's rows and the block's
// rows so far, both packed), then the 4×4 triangle of L at i0 is solved
// by plain loops.
func invertLower(l, rows4 []float64, n8 int) []float64 {
	m := make([]float64, n8*n8)
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
				copy(m[i*n8+j0:][:8], out)
			}
		}
	}
	return m
}
