package privacy

import "math"

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
