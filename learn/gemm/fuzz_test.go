package gemm

import (
	"math"
	"testing"
)

// FuzzSgemm: random shapes (m, n ≤ 70 reach every tile edge of every path;
// k ≤ 600 crosses the 256-long k-chunks), transposes, stride padding, scalars
// and NaN-filled C with beta = 0, on every path, against the float64
// reference with the tolerance of TestSgemmMatchesReference.
// Run: go test -run XXX -fuzz FuzzSgemm ./learn/gemm
func FuzzSgemm(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint16(1), uint8(0), int8(4), int8(0), uint64(1))
	f.Add(uint8(15), uint8(33), uint16(17), uint8(3), int8(-5), int8(3), uint64(2))
	f.Add(uint8(29), uint8(10), uint16(300), uint8(6), int8(2), int8(-8), uint64(3))
	f.Fuzz(func(t *testing.T, m8, n8 uint8, k16 uint16, flags uint8, alpha8, beta8 int8, seed uint64) {
		m, n, k := int(m8%70)+1, int(n8%70)+1, int(k16%600)+1
		tA, tB := flags&1 != 0, flags&2 != 0
		pad := int(flags>>2) % 4
		sc := scalars{float32(alpha8) / 4, float32(beta8) / 4}
		for _, ar := range available {
			useArch(t, ar)
			r := newRand("fuzz", seed)
			worst, _, _ := runCase(t, goAlloc, r, uniform(r), tA, tB, shape{m, n, k}, pad, sc, flags&32 != 0 && sc.beta == 0)
			if tol := 1e-5 * math.Sqrt(float64(k)); worst > tol {
				t.Fatalf("%s m=%d n=%d k=%d tA=%v tB=%v pad=%d %+v: relative error %.3g > %.3g",
					ar.name, m, n, k, tA, tB, pad, sc, worst, tol)
			}
		}
	})
}
