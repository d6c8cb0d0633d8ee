package privacy

import (
	"math"
	"math/big"
	"testing"
)

// exactSelfConvolve returns the T-fold self-convolution of probs in
// 256-bit floating point, whose exponent range holds masses far below the
// smallest float64 (the role log space plays in float64) and whose
// rounding (about 1e-77 relative per operation) is nothing beside
// float64's: to the precision of any float64 comparison it is exact.
func exactSelfConvolve(probs []float64, T int) []*big.Float {
	const prec = 256
	p := make([]*big.Float, len(probs))
	for i, x := range probs {
		p[i] = new(big.Float).SetPrec(prec).SetFloat64(x)
	}
	acc := []*big.Float{new(big.Float).SetPrec(prec).SetInt64(1)}
	prod := new(big.Float).SetPrec(prec)
	for range T {
		next := make([]*big.Float, len(acc)+len(p)-1)
		for i := range next {
			next[i] = new(big.Float).SetPrec(prec)
		}
		for i, a := range acc {
			for j, b := range p {
				next[i+j].Add(next[i+j], prod.Mul(a, b))
			}
		}
		acc = next
	}
	return acc
}

// TestTiltedSelfComposeBoundsExact: every mass of SelfComposeAt, tilted
// far into the upper tail, is a bound on the exact T-fold convolution in
// its direction (pessimistic ≥ exact, optimistic ≤ exact), and near the
// tilt's loss it is tight. The per-step distribution is a discretised
// Gaussian (variance 9) composed T = 40 times and tilted to mean 26 per
// step, 16 above its own: at that loss the exact masses are ~1e-222, far
// below the plain FFT's absolute error (~2.4e-14), so only the tilted
// composition can get them right.
//
// The tilted bound has two round-off terms, and each case needs one:
//   - the FFT's own error eta: below the tilt's loss the tilted masses are
//     themselves tiny beside the tilted bulk and come out as noise;
//     without eta some of them round to 0 or below the exact value;
//   - the relative rounding rel of tilting and untilting (exponents θ·i,
//     T·log Z and θ·j): it exceeds eta when the grid starts far below the
//     mass (here 2000 points, as a PLD's grid starts at its lowest loss),
//     since the exponents grow with the index; without it the bulk of
//     the tilted result misses the exact masses by ~2e-11 relative.
func TestTiltedSelfComposeBoundsExact(t *testing.T) {
	const T, width = 40, 48
	shape := make([]float64, width)
	s := 0.0
	for i := range shape {
		x := float64(i) - 10
		shape[i] = math.Exp(-x * x / 18)
		s += shape[i]
	}
	for i := range shape {
		shape[i] /= s
	}
	exact := exactSelfConvolve(shape, T)
	for _, lead := range []int{0, 2000} { // grid points below the mass
		probs := append(make([]float64, lead), shape...)
		at := float64(T*lead) + 26*T
		for _, pessimistic := range []bool{true, false} {
			p, err := NewPMF(1, 0, probs, 0, pessimistic)
			if err != nil {
				t.Fatal(err)
			}
			c, err := p.SelfComposeAt(T, 1e-250, at)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for k, got := range c.probs {
				j := c.offset + k - T*lead // index into exact
				if j < 0 || j >= len(exact) {
					continue
				}
				want, _ := exact[j].Float64()
				if want < 1e-300 {
					continue // not a normal float64: nothing to compare at full precision
				}
				checked++
				if pessimistic && !(got >= want) || !pessimistic && !(got <= want) {
					t.Errorf("lead %d, pessimistic %v: mass at loss %d is %.17g, exact %.17g (off by %.3g relative): not a bound",
						lead, pessimistic, c.offset+k, got, want, got/want-1)
				}
				if math.Abs(float64(j)-(at-float64(T*lead))) <= T && !(math.Abs(got/want-1) <= 1e-6) {
					t.Errorf("lead %d, pessimistic %v: mass at loss %d is %.6g, exact %.6g: the tilt did not make it accurate",
						lead, pessimistic, c.offset+k, got, want)
				}
			}
			if checked < 900 {
				t.Errorf("lead %d: only %d masses compared", lead, checked)
			}
		}
	}
}
