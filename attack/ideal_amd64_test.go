//go:build amd64 && !purego

package attack

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

// TestIdealZigguratKernel: the AVX2 kernel gives every word the candidate
// and the slow bit of the portable code, on random words and on the edges
// of the fast path (|j| = kn[i] − 1, kn[i], MinInt32, strip 1 where kn is
// 0).
func TestIdealZigguratKernel(t *testing.T) {
	if !haveIdealKernels {
		t.Skip("no AVX2 and FMA")
	}
	z := ziggurat()
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 2000 {
		var buf chacha8.Buffer
		for n := range buf {
			u := r.Uint64()
			i := u >> 32 & 0x7F
			switch k := int32(z.kn[i]); r.IntN(6) {
			case 0:
				u = u&^0xFFFFFFFF | uint64(uint32(k))
			case 1:
				u = u&^0xFFFFFFFF | uint64(uint32(-k))
			case 2:
				u = u&^0xFFFFFFFF | uint64(uint32(k-1))
			case 3:
				u = u&^0xFFFFFFFF | uint64(uint32(1-k))
			case 4:
				u = u&^0xFFFFFFFF | 0x80000000
			}
			buf[n] = u
		}
		sigma := 0.1 + r.Float64()
		var gc, wc [len(chacha8.Buffer{})]float64
		var gs, ws [2]uint64
		gs = [2]uint64{^uint64(0), ^uint64(0)} // the kernel overwrites it
		zigguratCandidates(z, &buf, sigma, &gc, &gs)
		zigguratCandidatesGo(z, &buf, sigma, &wc, &ws)
		if gs != ws {
			t.Fatalf("iteration %d: slow bits %x, want %x", it, gs, ws)
		}
		for n := range chacha8.Words {
			if ws[n>>6]>>(n&63)&1 == 0 && math.Float64bits(gc[n]) != math.Float64bits(wc[n]) {
				t.Fatalf("iteration %d word %d (%#x): %v, want %v", it, n, buf[n], gc[n], wc[n])
			}
		}
	}
}

// TestIdealLanesPortable: without the kernels (the path of other CPUs),
// the lanes still give trial's bits.
func TestIdealLanesPortable(t *testing.T) {
	defer func(v bool) { haveIdealKernels = v }(haveIdealKernels)
	haveIdealKernels = false
	TestIdealLanesMatchTrial(t)
	TestIdealNormalMatchesStdlib(t)
}
