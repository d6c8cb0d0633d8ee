package gemm

import "fmt"

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices,
// where op(X) is X, or Xᵀ when transX is set. op(A) is m×k, op(B) is k×n,
// C is m×n; lda, ldb and ldc are the row strides of A, B and C as stored
// (A is stored m×k, or k×m when transposed; likewise B).
//
// BLAS semantics: when beta is 0, C is overwritten without being read (NaN or
// Inf in C are ignored); when alpha is 0 or k is 0, op(A)·op(B) is not
// computed and C = beta·C. The slices need only be as long as the matrices
// they hold: (rows−1)·ld + cols elements.
//
// Inconsistent arguments (negative sizes, strides below the row width,
// slices too short) are programming errors and panic with a message naming
// the argument; use [Check] first to get them as an error instead.
//
// Sgemm runs on the calling goroutine; see [SgemmParallel] for a threaded
// variant with bit-identical results.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if err := Check(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		panic(err)
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	ar := current
	pl := ar.plan(transA, transB, m, n, k, lda, ldb)
	ws := workspaces.Get().(*workspace)
	ar.run(&pl, ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	workspaces.Put(ws)
}

// Check reports whether the arguments of an Sgemm call are consistent, given
// the lengths of the three slices. It returns nil or an error naming the
// first offending argument.
func Check(transA, transB bool, m, n, k int, lenA, lda, lenB, ldb, lenC, ldc int) error {
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("gemm: negative dimension m=%d n=%d k=%d", m, n, k)
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if err := checkMatrix("A", ar, ac, lenA, lda); err != nil {
		return err
	}
	if err := checkMatrix("B", br, bc, lenB, ldb); err != nil {
		return err
	}
	return checkMatrix("C", m, n, lenC, ldc)
}

func checkMatrix(name string, rows, cols, length, ld int) error {
	if ld < max(1, cols) {
		return fmt.Errorf("gemm: ld%s = %d is less than the %d columns of %s as stored", name, ld, cols, name)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	if need := (rows-1)*ld + cols; length < need {
		return fmt.Errorf("gemm: %s is %d×%d with stride %d and needs %d elements, slice has %d", name, rows, cols, ld, need, length)
	}
	return nil
}

// scaleMatrix sets C = beta·C, writing zeros when beta is 0 so that NaN in C
// does not survive (BLAS semantics).
func scaleMatrix(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
		} else {
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// run dispatches one (block of a) product to the dot or the blocked driver.
func (ar *arch) run(pl *plan, ws *workspace, transA, transB bool, m, n, k int,
	alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if pl.dot {
		ar.gemmDot(ws, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ar.gemm(pl, ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}
