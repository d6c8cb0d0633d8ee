package gemm

import (
	"fmt"
	"testing"
)

// TestSgemmParallelBitIdentical: the output split never changes an element's
// operation sequence (package comment), so every thread count must give
// exactly Sgemm's bits, with strides, beta ≠ 0, and splits by rows (tall
// shapes) and by columns (wide ones).
func TestSgemmParallelBitIdentical(t *testing.T) {
	shapes := []shape{{256, 10, 784}, {10, 784, 256}, {300, 130, 70}, {65, 500, 40}, {29, 65, 531}, {1000, 3, 300}}
	forEachPath(t, func(t *testing.T) {
		for _, sh := range shapes {
			for ti := 0; ti < 4; ti++ {
				tA, tB := ti&1 == 1, ti&2 == 2
				r := newRand("parallel", current.name, sh.m, sh.n, sh.k, ti)
				gen := uniform(r)
				ar, ac := sh.m, sh.k
				if tA {
					ar, ac = sh.k, sh.m
				}
				br, bc := sh.k, sh.n
				if tB {
					br, bc = sh.n, sh.k
				}
				a := newMatrix(ar, ac, ac+1, goAlloc, gen)
				b := newMatrix(br, bc, bc+3, goAlloc, gen)
				c0 := newMatrix(sh.m, sh.n, sh.n+2, goAlloc, gen)
				want := append([]float32(nil), c0.data...)
				Sgemm(tA, tB, sh.m, sh.n, sh.k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, want, c0.ld)
				for _, threads := range []int{1, 2, 3, 4, 7} {
					got := append([]float32(nil), c0.data...)
					SgemmParallel(threads, tA, tB, sh.m, sh.n, sh.k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, got, c0.ld)
					for i := range got {
						if !sameBits(got[i], want[i]) {
							t.Fatalf("%v tA=%v tB=%v threads=%d: element %d = %v, serial %v",
								sh, tA, tB, threads, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestSgemmParallelMatchesReference guards the block offsets themselves
// (a bit-identical wrong answer would pass the test above only if Sgemm
// were wrong too, which the reference tests exclude).
func TestSgemmParallelMatchesReference(t *testing.T) {
	r := newRand("parallel-ref")
	for _, sh := range []shape{{200, 70, 90}, {40, 300, 90}} {
		for ti := 0; ti < 4; ti++ {
			tA, tB := ti&1 == 1, ti&2 == 2
			t.Run(fmt.Sprintf("%v/tA=%v/tB=%v", sh, tA, tB), func(t *testing.T) {
				gen := smallInts(r)
				ar, ac := sh.m, sh.k
				if tA {
					ar, ac = sh.k, sh.m
				}
				br, bc := sh.k, sh.n
				if tB {
					br, bc = sh.n, sh.k
				}
				a := newMatrix(ar, ac, ac, goAlloc, gen)
				b := newMatrix(br, bc, bc, goAlloc, gen)
				c := newMatrix(sh.m, sh.n, sh.n, goAlloc, gen)
				c0 := matrix{rows: sh.m, cols: sh.n, ld: sh.n, data: append([]float32(nil), c.data...)}
				want, _ := reference(tA, tB, sh.m, sh.n, sh.k, 2, a, b, 1, c0)
				SgemmParallel(3, tA, tB, sh.m, sh.n, sh.k, 2, a.data, a.ld, b.data, b.ld, 1, c.data, c.ld)
				for i, w := range want {
					if float64(c.data[i]) != w {
						t.Fatalf("element %d = %v, want %v (exact on integer data)", i, c.data[i], w)
					}
				}
			})
		}
	}
}
