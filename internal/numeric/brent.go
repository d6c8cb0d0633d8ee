package numeric

import (
	"fmt"
	"math"
)

// Bracket is an interval [A, B] (in either order) on which a function
// changes sign: FA = f(A) and FB = f(B) are of opposite signs, or one is 0.
type Bracket struct {
	A, B, FA, FB float64
}

// NewBracket evaluates f at a and b and checks that they bracket a root.
func NewBracket(f func(float64) float64, a, b float64) (Bracket, error) {
	br := Bracket{A: a, B: b, FA: f(a), FB: f(b)}
	if !br.valid() {
		return br, fmt.Errorf("numeric: [%v, %v] does not bracket a root (f = %v, %v)", a, b, br.FA, br.FB)
	}
	return br, nil
}

func (br Bracket) valid() bool {
	if math.IsNaN(br.FA) || math.IsNaN(br.FB) {
		return false
	}
	return br.FA == 0 || br.FB == 0 || (br.FA < 0) != (br.FB < 0)
}

// Brent shrinks a bracket of f with Brent's method (Brent 1973, "Algorithms
// for Minimization without Derivatives", ch. 4: inverse quadratic
// interpolation and secant steps, falling back to bisection whenever they
// do not shrink the bracket fast enough). It stops when the bracket is
// narrower than 2·(absTol + relTol·|x|) and returns it, so the caller can
// pick the side it needs (for a calibration, the side whose f meets the
// constraint). In the result, B is the best estimate of the root (|FB| ≤ |FA|).
// Infinite values of f are allowed (they force bisection steps); NaN is an
// error. gonum has no bracketing root finder, hence this one. Bad
// tolerances are the caller's bug (every caller passes constants), so they
// are a plain error, not an input error.
func Brent(f func(float64) float64, br Bracket, absTol, relTol float64, maxIter int) (Bracket, error) {
	if !br.valid() {
		return br, fmt.Errorf("numeric: Brent needs a bracket with a sign change (f(%v) = %v, f(%v) = %v)", br.A, br.FA, br.B, br.FB)
	}
	if !(absTol >= 0) || !(relTol >= 0) || absTol+relTol == 0 {
		return br, fmt.Errorf("numeric: Brent: root tolerances must be ≥ 0 and not both 0, got %v and %v", absTol, relTol)
	}
	// Notation of Brent's zeroin: b is the best point, c the contrapoint
	// (f(b), f(c) of opposite signs), a the previous b.
	a, b, fa, fb := br.A, br.B, br.FA, br.FB
	if math.Abs(fa) < math.Abs(fb) {
		a, b, fa, fb = b, a, fb, fa
	}
	c, fc := a, fa
	d := b - a
	e := d
	for iter := 0; iter < maxIter; iter++ {
		if fb == 0 {
			return Bracket{A: b, B: b, FA: fb, FB: fb}, nil
		}
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol := 2*math.SmallestNonzeroFloat64 + absTol + relTol*math.Abs(b)
		m := 0.5 * (c - b)
		if math.Abs(m) <= tol {
			return Bracket{A: c, B: b, FA: fc, FB: fb}, nil
		}
		if math.Abs(e) >= tol && math.Abs(fa) > math.Abs(fb) && !math.IsInf(fa, 0) && !math.IsInf(fb, 0) && !math.IsInf(fc, 0) {
			var p, q float64
			s := fb / fa
			if a == c {
				p = 2 * m * s // secant
				q = 1 - s
			} else { // inverse quadratic interpolation
				qq := fa / fc
				r := fb / fc
				p = s * (2*m*qq*(qq-r) - (b-a)*(r-1))
				q = (qq - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			} else {
				p = -p
			}
			if 2*p < math.Min(3*m*q-math.Abs(tol*q), math.Abs(e*q)) {
				e = d
				d = p / q
			} else {
				d, e = m, m
			}
		} else {
			d, e = m, m
		}
		a, fa = b, fb
		if math.Abs(d) > tol {
			b += d
		} else if m > 0 {
			b += tol
		} else {
			b -= tol
		}
		fb = f(b)
		if math.IsNaN(fb) {
			return Bracket{A: c, B: a, FA: fc, FB: fa}, fmt.Errorf("numeric: Brent: f(%v) is NaN", b)
		}
	}
	return Bracket{A: c, B: b, FA: fc, FB: fb}, fmt.Errorf("numeric: Brent did not converge in %d iterations (bracket [%v, %v])", maxIter, c, b)
}
