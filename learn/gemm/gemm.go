// Package gemm is dpaudit's float32 matrix-multiply kernel, the hot path of
// DP-SGD training.
//
// Placeholder: this first version calls gonum's pure-Go Sgemm (≈3 GFLOP/s).
// It is to be replaced by hand-written kernels (see the package's issue).
package gemm

import "gonum.org/v1/gonum/blas"
import gblas "gonum.org/v1/gonum/blas/gonum"

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices,
// where op(X) is X or Xᵀ. op(A) is m×k, op(B) is k×n, C is m×n; lda, ldb
// and ldc are the row strides of A, B and C as stored.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	gblas.Implementation{}.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
