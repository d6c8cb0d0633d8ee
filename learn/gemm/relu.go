package gemm

import (
	"fmt"
	"math"
)

// ReLU sets y[i] = max(x[i], 0) for i < len(y), bit for bit as Go's max
// compiles on this platform: +0 for x[i] ≤ 0 (−0 included), x[i] when it
// is positive; a NaN stays a NaN (on amd64 with its sign cleared, which
// the assembly paths copy; TestReLUMatchesMax). x must
// be at least as long as y; y may alias x. Measured: the scalar loop was
// 3% of an MLP 784-512-10 step.
func ReLU(y, x []float32) {
	if len(x) < len(y) {
		panic(fmt.Sprintf("gemm.ReLU: len(x) = %d < len(y) = %d", len(x), len(y)))
	}
	n := 0
	if current.relu != nil {
		n = len(y) / 16 * 16
		if n > 0 {
			current.relu(y[:n], x)
		}
	}
	reluGo(y[n:], x[n:])
}

// reluGo is the portable ReLU.
func reluGo(y, x []float32) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

// ReLUGrad sets d[i] = g[i] where the ReLU output y[i] is positive and +0
// elsewhere, for i < len(d), exactly as the plain loop
//
//	mask := uint32(-int32(math.Float32bits(y[i])) >> 31)
//	d[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
//
// (a bit operation, so bit-identical on every path; y = −0 keeps g, as in
// that loop). g and y must be at least as long as d; d may alias g.
// Measured: the scalar loop was 4% of an MLP 784-512-10 step.
func ReLUGrad(d, g, y []float32) {
	if len(g) < len(d) || len(y) < len(d) {
		panic(fmt.Sprintf("gemm.ReLUGrad: len(g) = %d, len(y) = %d < len(d) = %d", len(g), len(y), len(d)))
	}
	n := 0
	if current.reluGrad != nil {
		n = len(d) / 16 * 16
		if n > 0 {
			current.reluGrad(d[:n], g, y)
		}
	}
	reluGradGo(d[n:], g[n:], y[n:])
}

// reluGradGo is the portable ReLUGrad.
func reluGradGo(d, g, y []float32) {
	g, y = g[:len(d)], y[:len(d)]
	for i, v := range y {
		mask := uint32(-int32(math.Float32bits(v)) >> 31)
		d[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
	}
}
