//go:build openblas && cgo

// Package openblas binds OpenBLAS's cblas_sgemm through cgo, for gemm's
// benchmarks only (BenchmarkOpenBLAS): `apt-get install libopenblas-dev`,
// then `go test -tags openblas -bench OpenBLAS ./learn/gemm`. It is a
// separate package because a cgo package cannot hold Go assembly. The
// default build neither needs nor compiles it.
package openblas

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

// SetThreads sets OpenBLAS's thread count (process-wide).
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// Core names the kernel family OpenBLAS chose for this CPU.
func Core() string { return C.GoString(C.openblas_get_corename()) }

// Sgemm is cblas_sgemm with row-major layout and Sgemm's arguments.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := uint32(C.CblasNoTrans), uint32(C.CblasNoTrans)
	if transA {
		ta = C.CblasTrans
	}
	if transB {
		tb = C.CblasTrans
	}
	C.cblas_sgemm(C.CblasRowMajor, ta, tb, C.blasint(m), C.blasint(n), C.blasint(k), C.float(alpha),
		(*C.float)(&a[0]), C.blasint(lda), (*C.float)(&b[0]), C.blasint(ldb), C.float(beta),
		(*C.float)(&c[0]), C.blasint(ldc))
}
