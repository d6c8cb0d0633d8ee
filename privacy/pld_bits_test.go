package privacy

import (
	"math"
	"runtime"
	"testing"
)

// TestPLDEpsilonBits pins ε(δ) of the PLD accountant to the bit on cases
// that take the plain transform, the mixed-radix one and the tilt at tiny
// δ (pessimistic and optimistic): the speed-ups of the transform and of
// the tilt must not move a bit. The values were printed by main at
// e6e8e55 (before the tiled gather and the copy-free tilt) on amd64; the
// purego FFT kernels give the same bits (TestFFTKernelsBitsAsGo).
func TestPLDEpsilonBits(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("values recorded on amd64")
	}
	for _, c := range []struct {
		m     SampledGaussian
		delta float64
		opt   bool
		want  float64
	}{
		{SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 100000}, 1e-5, false, 0x1.992f0626a45b6p+4},
		{SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 20000}, 1e-12, false, 0x1.dd4c2ab49cc9ep+3},
		{SampledGaussian{NoiseMultiplier: 0.8, SamplingRate: 0.02, Steps: 5000}, 1e-10, true, 0x1.60320a8fc61d2p+4},
		{SampledGaussian{NoiseMultiplier: 2, SamplingRate: 1, Steps: 1000}, 1e-14, false, 0x1.ea4ec9e306628p+7},
	} {
		r, err := EpsilonDetail(AccountantPLD, c.m, c.delta, Options{Optimistic: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(r.Value) != math.Float64bits(c.want) {
			t.Errorf("%+v at δ = %g (optimistic %v): ε = %x, recorded %x", c.m, c.delta, c.opt, r.Value, c.want)
		}
	}
}
