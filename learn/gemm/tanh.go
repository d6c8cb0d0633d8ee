package gemm

import "fmt"

// Tanh sets dst[i] = tanh(x[i]) for i < len(x) by the rational
// approximation of Eigen's ptanh_float (odd degree-13 numerator, even
// degree-6 denominator in x², argument clamped to [−9, 9]), which the
// trainer uses for its tanh activations (learn/activation.go, tanh32). Every
// path performs the same float32 operations in the same order — clamp,
// x², separate multiplies and adds (no fused multiply-add), one division —
// so results are bit-identical to the scalar Go function tanh32 (whose
// products are written float32(x*y) so that no compiler may fuse them into
// FMAs) on every path and architecture. NaN stays NaN. dst may be x (in place); len(dst) ≥ len(x).
func Tanh(dst, x []float32) {
	if len(dst) < len(x) {
		panic(fmt.Sprintf("gemm.Tanh: len(dst) = %d < len(x) = %d", len(dst), len(x)))
	}
	if len(x) == 0 {
		return
	}
	current.tanh(dst, x)
}

// Coefficients of the approximation (Eigen, ptanh_float), shared by the Go
// and assembly versions (the assembly copies them as constants).
const (
	tanhA1  = 4.89352455891786e-03
	tanhA3  = 6.37261928875436e-04
	tanhA5  = 1.48572235717979e-05
	tanhA7  = 5.12229709037114e-08
	tanhA9  = -8.60467152213735e-11
	tanhA11 = 2.00018790482477e-13
	tanhA13 = -2.76076847742355e-16
	tanhB0  = 4.89352518554385e-03
	tanhB2  = 2.26843463243900e-03
	tanhB4  = 1.18534705686654e-04
	tanhB6  = 1.19825839466702e-06
)

// tanh32 is the scalar definition; the vector kernels reproduce it.
func Tanh32(x float32) float32 {
	if x > 9 {
		x = 9
	}
	if x < -9 {
		x = -9
	}
	// float32(…) around every product forbids fusing it with the following
	// add (Go spec, floating-point operators), which the compiler would do
	// on arm64 or with GOAMD64=v3 and so change the result.
	x2 := x * x
	p := float32(x2*tanhA13) + tanhA11
	p = float32(x2*p) + tanhA9
	p = float32(x2*p) + tanhA7
	p = float32(x2*p) + tanhA5
	p = float32(x2*p) + tanhA3
	p = float32(x2*p) + tanhA1
	p *= x
	q := float32(x2*tanhB6) + tanhB4
	q = float32(x2*q) + tanhB2
	q = float32(x2*q) + tanhB0
	return p / q
}

func tanhGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = Tanh32(v)
	}
}
