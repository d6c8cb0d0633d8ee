package gemm

// Placeholder level-1 kernels in plain Go; to be replaced by vectorised ones.

// Dot returns Σ x[i]·y[i] over len(x) elements.
func Dot(x, y []float32) float32 {
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// Axpy computes y += alpha·x over len(x) elements.
func Axpy(alpha float32, x, y []float32) {
	for i, v := range x {
		y[i] += alpha * v
	}
}

// Scal computes x *= alpha.
func Scal(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}
