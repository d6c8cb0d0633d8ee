//go:build amd64 && !purego

package learn

import "math"

//go:noescape
func log8AVX512(x *[8]float64) bool

// log8 sets x[i] = math.Log(x[i]) for the eight values, with the AVX-512
// kernel when every one is a positive normal number (the same operations
// as the standard library's amd64 math.Log, so the same bits), else with
// math.Log. The softmax head's 1000 logarithms per step were 3.6% of a
// Hayes et al. trial (BenchmarkAuditTrial).
func log8(x *[8]float64) {
	if haveExpAVX512 && log8AVX512(x) {
		return
	}
	for i, v := range x {
		x[i] = math.Log(v)
	}
}
