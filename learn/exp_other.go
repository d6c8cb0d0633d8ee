//go:build !amd64 || purego

package learn

// expBlocks has no vector kernel here: expInto does everything with exp32.
func expBlocks(y, x []float32) int { return 0 }

// eluBlocks has no vector kernel here: eluForward does everything.
func eluBlocks(y, x []float32) int { return 0 }

// softmaxDelta16 has no vector kernel here: softmaxCEDelta's loops do it.
func softmaxDelta16(z, e []float32, y []int32, loss []float64) bool {
	return false
}

// haveSoftmaxKernel reports whether softmaxDelta16 has a kernel (tests).
func haveSoftmaxKernel() bool { return false }

// eluGradBlocks has no vector kernel here: activation.backward's loop does
// everything.
func eluGradBlocks(d, g, y []float32) int { return 0 }
