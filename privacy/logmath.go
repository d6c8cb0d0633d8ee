package privacy

import "math"

// LogAddExp returns log(e^a + e^b) without overflow.
func LogAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Log1mExp returns log(1 − e^x) for x ≤ 0, choosing the form that avoids
// cancellation (Mächler 2012).
func Log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// signedLogSum accumulates a sum of signed terms given as (sign, log|term|).
// It keeps the running sum scaled by the largest magnitude seen so far, so
// terms spanning hundreds of orders of magnitude neither overflow nor lose
// the leading digits.
type signedLogSum struct {
	scale float64 // log of the scale; −Inf while empty
	sum   float64 // signed sum of term/e^scale
}

func newSignedLogSum() signedLogSum { return signedLogSum{scale: math.Inf(-1)} }

func (s *signedLogSum) add(negative bool, logMag float64) {
	if math.IsInf(logMag, -1) {
		return
	}
	if logMag > s.scale {
		if math.IsInf(s.scale, -1) {
			s.sum = 0
		} else {
			s.sum *= math.Exp(s.scale - logMag)
		}
		s.scale = logMag
	}
	v := math.Exp(logMag - s.scale)
	if negative {
		v = -v
	}
	s.sum += v
}

// log returns log of the (assumed positive) sum; −Inf if the sum is ≤ 0.
func (s *signedLogSum) log() float64 {
	if s.sum <= 0 {
		return math.Inf(-1)
	}
	return s.scale + math.Log(s.sum)
}
