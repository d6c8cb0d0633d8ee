package learn

import (
	"math"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// The trainer's inner loops that are not GEMMs. Most are thin wrappers of
// learn/gemm's vector kernels. ColSums, AddRowVector, ScaleRows, Tanh and
// AllFinite do exactly the operations of the plain loops stated here, in the
// same order, so their results are the same bits on every path (AVX-512,
// AVX2, portable Go); SumSquares and Axpy are identical on AVX2 and AVX-512
// (fused multiply-adds) and round each product separately on the portable
// path, like Sgemm. Scalar float arithmetic in this package writes
// float32(x*y) / float64(x*y) around products that meet an addition, so
// the compiler cannot fuse them into FMAs (it does on arm64 and with
// GOAMD64=v3), so the GOAMD64 level does not change results (verified by
// hand: the same trained parameters for every model kind and both clipping
// schemes, built with v1 and with v3). The
// standard library's math.Exp and math.Log (sigmoid loss, the tails of
// exp32 and of the ziggurat) may still differ between architectures.

// rowSqNorms sets dst[i] = Σ_j x[i·cols+j]² for i < rows, each row summed by
// gemm.SumSquares (64 float32 partial sums folded pairwise); tmp holds rows
// float32 values.
func rowSqNorms(x []float32, rows, cols int, dst []float64, tmp []float32) {
	tmp = tmp[:rows]
	gemm.RowSumSquares(cols, x, cols, tmp)
	for i, v := range tmp {
		dst[i] = float64(v)
	}
}

// sumSq returns Σ x[j]², by gemm.SumSquares.
func sumSq(x []float32) float64 {
	return float64(gemm.SumSquares(x))
}

// scaleRows sets dst[i·cols+j] = c[i]·src[i·cols+j] for i < rows.
func scaleRows(dst, src []float32, rows, cols int, c []float32) {
	gemm.ScaleRows(cols, c[:rows], src, cols, dst, cols)
}

// colSums sets dst[j] = Σ_i x[i·cols+j], summing rows in order.
func colSums(x []float32, rows, cols int, dst []float32) {
	gemm.ColSums(rows, cols, x, cols, dst)
}

// addBiasRows adds bias to every row of the rows×len(bias) matrix x. Rows
// narrower than one AVX-512 vector (the hidden and output layers of Hayes
// et al.'s 784-10-10 are 10 wide) would cost one kernel call per row, so
// the matrix is read as a flat array instead, in rows of P = lcm(n, 16)
// elements that the bias tiled P/n times matches element by element (the
// same correctly rounded additions); the last rows·n mod P elements take a
// plain loop. tile is scratch space for the tiled bias (len ≥ P, else
// every row takes the plain loop).
func addBiasRows(x []float32, rows int, bias []float32, tile []float32) {
	if n := len(bias); n < 16 {
		x = x[:rows*n]
		P := 16 * n / gcd(n, 16)
		if full := len(x) / P; full > 0 && len(tile) >= P {
			for j := 0; j < P; j += n {
				copy(tile[j:j+n], bias)
			}
			gemm.AddRowVector(full, tile[:P], x, P)
			x = x[full*P:]
		}
		for i := 0; i < len(x); i += n {
			r := x[i : i+n]
			for j, v := range bias {
				r[j] += v
			}
		}
		return
	}
	gemm.AddRowVector(rows, bias, x, len(bias))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// allFinite reports whether x holds no NaN or ±Inf, and the first bad index.
func allFinite(x []float32) (bool, int) {
	return gemm.AllFinite(x)
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

// tanhSlice sets y[j] = tanh32(x[j]) for j < len(y), bit for bit, with
// gemm.Tanh's vector kernel.
func tanhSlice(y, x []float32) {
	gemm.Tanh(y, x[:len(y)])
}

// exp32 returns e^x in float32 with a relative error of a few ulp. For
// |x| ≤ 80, x·log2 e is split into an integer n and a fraction f ∈ [−½, ½],
// 2^f comes from a degree-7 Taylor polynomial of e^(f·ln 2) evaluated in
// float64 (truncation error < 6e−9, a tenth of a float32 ulp) by Estrin's
// scheme (a chain of 3 multiply-adds instead of Horner's 7, so consecutive
// calls overlap better: ELU ≈ 15 % faster), and 2^n goes into the exponent
// bits. Other x (and NaN) use math.Exp.
func exp32(x float32) float32 {
	if !(x >= -80 && x <= 80) {
		return float32(math.Exp(float64(x)))
	}
	// float64(…) around every product that meets an addition keeps the
	// compiler from fusing them into FMAs (arm64, GOAMD64=v3): same bits on
	// every platform (see tanh32).
	t := float64(float64(x) * math.Log2E)
	n := math.Floor(t + 0.5)
	u := float64((t - n) * math.Ln2)
	u2 := u * u
	r0 := (1 + u) + float64(u2*(1.0/2+float64(u*(1.0/6))))
	r1 := (1.0/24 + float64(u*(1.0/120))) + float64(u2*(1.0/720+float64(u*(1.0/5040))))
	p := r0 + float64(float64(u2*u2)*r1)
	return float32(p * math.Float64frombits(uint64(int64(n)+1023)<<52))
}

// expInto sets y[j] = exp32(x[j]) for j < len(y), bit for bit (x and y may
// be the same slice). The softmax head and ELU of the small audit models
// (Hayes et al.'s 784-10-10: 20,000 exponentials per full-batch step) spent
// a fifth of their time in exp32 (BenchmarkAuditTrial); expBlocks does four at
// a time with AVX2 (exp_amd64.s, the same float64 operations, so the same
// bits), and exp32 finishes what it leaves: groups holding a value outside
// [−80, 80] or NaN, and the tail.
func expInto(y, x []float32) {
	x = x[:len(y)]
	for j := 0; j < len(x); {
		j += expBlocks(y[j:], x[j:])
		for end := min(j+4, len(x)); j < end; j++ {
			y[j] = exp32(x[j])
		}
	}
}
