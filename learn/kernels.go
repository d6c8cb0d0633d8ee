package learn

import (
	"math"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// Plain-Go inner loops of the trainer that are not GEMMs. They are written
// with several independent accumulators so a later vectorised version (in
// learn/gemm) can replace them one for one; each states its contract exactly.

// rowSqNorms sets dst[i] = Σ_j x[i·cols+j]² for i < rows. Each row is summed
// in float32 with 8 interleaved partial sums, then in float64 across them.
func rowSqNorms(x []float32, rows, cols int, dst []float64) {
	for i := 0; i < rows; i++ {
		dst[i] = sumSq(x[i*cols : (i+1)*cols])
	}
}

// sumSq returns Σ x[j]². Long vectors use the vectorised gemm.Dot (64
// float32 partial sums); short ones 8 float32 lanes combined in float64.
func sumSq(x []float32) float64 {
	if len(x) >= 64 {
		return float64(gemm.Dot(x, x))
	}
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	j := 0
	for ; j+8 <= len(x); j += 8 {
		v := x[j : j+8 : j+8]
		s0 += v[0] * v[0]
		s1 += v[1] * v[1]
		s2 += v[2] * v[2]
		s3 += v[3] * v[3]
		s4 += v[4] * v[4]
		s5 += v[5] * v[5]
		s6 += v[6] * v[6]
		s7 += v[7] * v[7]
	}
	for ; j < len(x); j++ {
		s0 += x[j] * x[j]
	}
	return float64(s0) + float64(s1) + float64(s2) + float64(s3) +
		float64(s4) + float64(s5) + float64(s6) + float64(s7)
}

// scaleRows sets dst[i·cols+j] = c[i]·src[i·cols+j] for i < rows.
func scaleRows(dst, src []float32, rows, cols int, c []float32) {
	for i := 0; i < rows; i++ {
		ci := c[i]
		d := dst[i*cols : (i+1)*cols]
		s := src[i*cols : (i+1)*cols]
		for j := range d {
			d[j] = ci * s[j]
		}
	}
}

// colSums sets dst[j] = Σ_i x[i·cols+j], summing rows in order.
func colSums(x []float32, rows, cols int, dst []float32) {
	clear(dst[:cols])
	for i := 0; i < rows; i++ {
		r := x[i*cols : (i+1)*cols]
		for j, v := range r {
			dst[j] += v
		}
	}
}

// addBiasRows adds bias to every row of the rows×len(bias) matrix x.
func addBiasRows(x []float32, rows int, bias []float32) {
	n := len(bias)
	for i := 0; i < rows; i++ {
		r := x[i*n : (i+1)*n]
		for j, v := range bias {
			r[j] += v
		}
	}
}

// allFinite reports whether x holds no NaN or ±Inf, and the first bad index.
// v−v is 0 for every finite v and NaN otherwise.
func allFinite(x []float32) (bool, int) {
	for i, v := range x {
		if v-v != 0 {
			return false, i
		}
	}
	return true, -1
}

// addInto sets dst[j] += src[j] (exactly: gemm.Axpy with alpha 1 is one
// fused multiply-add by 1, i.e. a correctly rounded addition).
func addInto(dst, src []float32) {
	src = src[:len(dst)]
	if len(src) >= 32 {
		gemm.Axpy(1, src, dst)
		return
	}
	for j, v := range src {
		dst[j] += v
	}
}

// axpyInto sets dst[j] += a·x[j]: gemm.Axpy for long vectors, a plain loop
// for short ones, where a call into the vector kernel does not pay.
func axpyInto(dst []float32, a float32, x []float32) {
	x = x[:len(dst)]
	if len(x) >= 32 {
		gemm.Axpy(a, x, dst)
		return
	}
	for j, v := range x {
		dst[j] += a * v
	}
}

// tanhSlice sets y[j] = tanh32(x[j]), with tanh32's body written out (the
// function is too large for Go to inline) and its polynomials evaluated by
// Estrin's scheme for shorter dependency chains. A candidate for a
// vectorised kernel: it is a fifth of TanhCNN's training time in plain Go.
func tanhSlice(y, x []float32) {
	x = x[:len(y)]
	for j, v := range x {
		if v > 9 {
			v = 9
		}
		if v < -9 {
			v = -9
		}
		v2 := v * v
		v4 := v2 * v2
		v8 := v4 * v4
		p := (tanhA1 + tanhA3*v2) + v4*(tanhA5+tanhA7*v2) + v8*((tanhA9+tanhA11*v2)+v4*tanhA13)
		q := (tanhB0 + tanhB2*v2) + v4*(tanhB4+tanhB6*v2)
		y[j] = v * p / q
	}
}

// exp32 returns e^x in float32 with a relative error of a few ulp. For
// |x| ≤ 80, x·log2 e is split into an integer n and a fraction f ∈ [−½, ½],
// 2^f comes from a degree-7 Taylor polynomial of e^(f·ln 2) evaluated in
// float64 (truncation error < 1e−10, so only the final rounding remains),
// and 2^n goes into the exponent bits. Other x (and NaN) use math.Exp.
func exp32(x float32) float32 {
	if !(x >= -80 && x <= 80) {
		return float32(math.Exp(float64(x)))
	}
	t := float64(x) * math.Log2E
	n := math.Floor(t + 0.5)
	u := (t - n) * math.Ln2
	p := 1 + u*(1+u*(1.0/2+u*(1.0/6+u*(1.0/24+u*(1.0/120+u*(1.0/720+u*(1.0/5040)))))))
	return float32(p * math.Float64frombits(uint64(int64(n)+1023)<<52))
}
