package bounds

import "math"

// fastExp returns e^x for x ≤ 709 to within 2 ulp (e^x ≈ 0 below −700),
// about twice as fast as math.Exp in the Monte Carlo inner loop, where one
// exp per coordinate is half the cost. Method: x = (64n + j)·ln2/64 + r with
// |r| ≤ ln2/128, e^x = 2^n · 2^{j/64} · e^r, the last by its degree-5 Taylor
// polynomial (truncation ≤ r⁶/720 ≈ 3.5e-17) and 2^{j/64} from a table.
func fastExp(x float64) float64 {
	if x < -700 {
		return 0
	}
	const (
		invStep = 64 / math.Ln2
		stepHi  = 0x1.62e42fee00000p-7  // ln2/64, high 32 bits: k·stepHi is exact for |k| < 2^21
		stepLo  = 0x1.a39ef35793c76p-39 // ln2/64 − stepHi
		shifter = 0x1.8p52              // adding and subtracting rounds to an integer
	)
	kf := x*invStep + shifter
	kf -= shifter
	r := x - kf*stepHi - kf*stepLo
	k := int64(kf)
	p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	v := exp2Table[k&63] * p
	return math.Float64frombits(math.Float64bits(v) + uint64(k>>6)<<52)
}

// exp2Table[j] = 2^{j/64}.
var exp2Table = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()
