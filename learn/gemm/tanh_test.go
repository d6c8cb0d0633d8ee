package gemm

import (
	"math"
	"testing"
)

// tanhInputs: a dense sweep of [−10, 10] (both clamps), every float32 bit
// pattern step 2¹⁶ apart (all exponents, both signs, subnormals), and the
// special values.
func tanhInputs() []float32 {
	var x []float32
	for i := -200000; i <= 200000; i++ {
		x = append(x, float32(i)*5e-5)
	}
	for b := uint64(0); b < 1<<32; b += 1 << 16 {
		x = append(x, math.Float32frombits(uint32(b)))
	}
	return append(x, 9, -9, 9.000001, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)))
}

// TestTanhMatchesScalar: every path reproduces tanh32 bit for bit (same
// float32 operations in the same order), NaN included, for every length's
// tail (inputs end at a guard page), in place too.
func TestTanhMatchesScalar(t *testing.T) {
	in := tanhInputs()
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		for _, n := range []int{len(in), 1, 7, 15, 17, 33, 100} {
			x := alloc(n)
			copy(x, in[len(in)-n:])
			dst := alloc(n)
			Tanh(dst, x)
			for i, v := range x {
				want := Tanh32(v)
				if !sameBits(dst[i], want) && !(math.IsNaN(float64(want)) && math.IsNaN(float64(dst[i]))) {
					t.Fatalf("n=%d: Tanh(%v) = %v (%#x), tanh32 = %v (%#x)", n, v, dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
				}
			}
			Tanh(x, x) // in place
			for i := range x {
				if !sameBits(x[i], dst[i]) && !math.IsNaN(float64(x[i])) {
					t.Fatalf("n=%d: in-place Tanh differs at %d", n, i)
				}
			}
		}
	})
}

// TestTanhAccuracy: against math.Tanh in float64. The approximation's own
// error dominates float32 rounding: on this sweep of [−10, 10] the worst is
// 3.95e-7 (relative and absolute, at x ≈ ±5.77, about 6.6 ulp of values
// near 1), so the bound is 5e-7; a wrong coefficient gives errors ≥ 1e-4.
// NaN maps to NaN, ±Inf to ±1.
func TestTanhAccuracy(t *testing.T) {
	var worst float64
	for i := -200000; i <= 200000; i++ {
		x := float32(i) * 5e-5
		got := float64(Tanh32(x))
		worst = max(worst, math.Abs(got-math.Tanh(float64(x))))
	}
	if worst > 5e-7 {
		t.Errorf("worst |tanh32 − tanh| on [−10, 10] = %.3g > 5e-7", worst)
	}
	t.Logf("worst absolute error on [-10, 10]: %.3g", worst)
	if v := Tanh32(float32(math.NaN())); !math.IsNaN(float64(v)) {
		t.Errorf("tanh32(NaN) = %v", v)
	}
	if Tanh32(float32(math.Inf(1))) != 1 || Tanh32(float32(math.Inf(-1))) != -1 {
		t.Errorf("tanh32(±Inf) = %v, %v, want ±1", Tanh32(float32(math.Inf(1))), Tanh32(float32(math.Inf(-1))))
	}
}
