//go:build amd64 && !purego

package privacy

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestFFTKernelsBitsAsGo: the AVX2 butterflies give the transforms of the
// Go code bit for bit, forward and inverse, for power-of-two and radix-3/5
// lengths (inputs with a wide range of magnitudes, as composed PMFs have).
func TestFFTKernelsBitsAsGo(t *testing.T) {
	if !haveFFTAVX2 {
		t.Skip("no AVX2")
	}
	r := rng.New(5, "fft-kernels")
	for _, n := range []int{8, 16, 24, 40, 64, 96, 160, 1024, 1536, 2560, 1 << 14, 3 << 13, 1 << 17, 5 << 16} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Exp(-40*r.Float64()) * r.Float64()
		}
		run := func(avx bool) ([]complex128, []float64) {
			defer func(v bool) { haveFFTAVX2 = v }(haveFFTAVX2)
			haveFFTAVX2 = avx
			c := getPlan(n/2).realForward(append([]float64(nil), x...), make([]complex128, n/2+1))
			spec := append([]complex128(nil), c...)
			back := make([]float64, n)
			getPlan(n/2).realInverse(c, back)
			return spec, back
		}
		ws, wb := run(false)
		gs, gb := run(true)
		for k := range ws {
			if math.Float64bits(real(gs[k])) != math.Float64bits(real(ws[k])) || math.Float64bits(imag(gs[k])) != math.Float64bits(imag(ws[k])) {
				t.Fatalf("n=%d coefficient %d: %v, Go %v", n, k, gs[k], ws[k])
			}
		}
		for i := range wb {
			if math.Float64bits(gb[i]) != math.Float64bits(wb[i]) {
				t.Fatalf("n=%d inverse %d: %v, Go %v", n, i, gb[i], wb[i])
			}
		}
	}
}
