package gemm

import "fmt"

// Dot returns Σ x[i]·y[i] over len(x) elements. y must be at least as long
// as x. The sum is formed in 64 partial sums (element i into sum i mod 64)
// folded pairwise, so it is more accurate than a running sum and identical on
// the AVX2 and AVX-512 paths.
func Dot(x, y []float32) float32 {
	if len(y) < len(x) {
		panic(fmt.Sprintf("gemm.Dot: len(y) = %d < len(x) = %d", len(y), len(x)))
	}
	return current.dot(x, y)
}

// Axpy computes y[i] += alpha·x[i] over len(x) elements (one fused
// multiply-add per element on the assembly paths). y must be at least as
// long as x.
func Axpy(alpha float32, x, y []float32) {
	if len(y) < len(x) {
		panic(fmt.Sprintf("gemm.Axpy: len(y) = %d < len(x) = %d", len(y), len(x)))
	}
	current.axpy(alpha, x, y)
}

// Scal computes x[i] *= alpha.
func Scal(alpha float32, x []float32) {
	current.scal(alpha, x)
}
