package numeric

import "math"

// expBlockGo is expBlock one math.Exp at a time.
func expBlockGo(dst, src []float64) {
	for i, x := range src {
		dst[i] = math.Exp(x)
	}
}

// fixExpRange recomputes with math.Exp the lanes the vector kernel does not
// cover: results that are not normal numbers (|x| > 700), and NaN.
func fixExpRange(dst, src []float64) {
	for i, x := range src {
		if !(x >= -700 && x <= 700) {
			dst[i] = math.Exp(x)
		}
	}
}
