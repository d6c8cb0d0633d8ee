//go:build !amd64 || purego

package learn

import "math"

// log8 sets x[i] = math.Log(x[i]); amd64 has a vector kernel.
func log8(x *[8]float64) {
	for i, v := range x {
		x[i] = math.Log(v)
	}
}
