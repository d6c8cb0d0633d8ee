package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// TestExp32Accuracy compares exp32 with math.Exp over [−100, 100] (2·10⁵
// points), including the math.Exp fallback beyond ±80. Tolerance: relative
// 2.5e−7 (two float32 ulp), since only the final rounding remains.
func TestExp32Accuracy(t *testing.T) {
	worst, at := 0.0, 0.0
	for i := -100000; i <= 100000; i++ {
		x := float32(i) * 1e-3
		want := math.Exp(float64(x))
		got := float64(exp32(x))
		if want > math.MaxFloat32 || want < 0x1p-126 { // outside float32's normal range
			continue
		}
		if rel := math.Abs(got-want) / want; rel > worst {
			worst, at = rel, float64(x)
		}
	}
	if worst > 2.5e-7 {
		t.Errorf("max relative error %.3g at x = %g, want ≤ 2.5e−7", worst, at)
	}
	if v := exp32(float32(math.NaN())); v == v {
		t.Errorf("exp32(NaN) = %g", v)
	}
	if exp32(-1000) != 0 || !math.IsInf(float64(exp32(1000)), 1) {
		t.Errorf("exp32(−1000) = %g, exp32(1000) = %g; want 0 and +Inf", exp32(-1000), exp32(1000))
	}
	t.Logf("max relative error %.3g at %g", worst, at)
}

// TestTanhSliceMatchesTanh32 checks that the vector kernel behind the tanh
// activation (gemm.Tanh) gives tanh32's bits exactly, as gemm documents:
// every float32 in [−10, 10] with a 12-bit mantissa stride, plus the clamp
// edges, tiny values, ±Inf and NaN. Tolerance: none (bit equality).
func TestTanhSliceMatchesTanh32(t *testing.T) {
	var x []float32
	for bits := uint32(0); bits < 0x41200000; bits += 1 << 12 { // up to 10
		v := math.Float32frombits(bits)
		x = append(x, v, -v)
	}
	x = append(x, 9, -9, math.Nextafter32(9, 10), 1e-38, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	y := make([]float32, len(x))
	tanhSlice(y, x)
	bad := 0
	for i, v := range x {
		want := gemm.Tanh32(v)
		if math.Float32bits(y[i]) != math.Float32bits(want) && !(want != want && y[i] != y[i]) {
			if bad++; bad <= 5 {
				t.Errorf("tanhSlice(%g) = %g (%#x), tanh32 = %g (%#x)", v, y[i], math.Float32bits(y[i]), want, math.Float32bits(want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d values differ", bad, len(x))
	}
}
