package numeric

import (
	"math"
	"testing"
)

func TestLogNormCDF(t *testing.T) {
	// Expected values: mpmath log(ncdf(x)) at 60 digits. Tolerance 1e-14
	// relative: the asymptotic series (x < −20) and erfc (x ≥ −20) branches
	// are both near machine precision.
	cases := []struct{ x, want float64 }{
		{5, -2.8665161296376359338e-7},
		{0.5, -0.36894641528865639307},
		{-1, -1.8410216450092635058},
		{-5, -15.064998393988725736},
		{-10, -53.231285150512470578},
		{-19.9, -201.91716770733259757},
		{-20.1, -205.92711840194824576},
		{-37, -689.0305855768905936},
		{-40, -804.60844201375378817},
		{-100, -5005.5242086942050886},
		{-1000, -500007.82669481218431},
	}
	for _, c := range cases {
		nearRel(t, "LogNormCDF", LogNormCDF(c.x), c.want, 1e-14)
	}
	if v := LogNormCDF(math.Inf(-1)); !math.IsInf(v, -1) {
		t.Errorf("LogNormCDF(−Inf) = %v, want −Inf", v)
	}
}

func TestErfcxLarge(t *testing.T) {
	// erfcx(w) = e^{w²}·erfc(w); at w = 20, 25 the product of math.Exp and
	// math.Erfc is still representable and accurate to ~1e-15 (relative
	// error of exp(w²) ≈ w²·1e-16), which bounds the tolerance.
	for _, w := range []float64{20, 22.5, 25} {
		want := math.Exp(w*w) * math.Erfc(w)
		nearRel(t, "ErfcxLarge", ErfcxLarge(w), want, 1e-13)
	}
}
