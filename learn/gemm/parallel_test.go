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

// TestWideBPacked: an untransposed B with rows ≥ packBMinStride floats
// apart is packed. Packing changes where B is read from, never
// an element's operations: the bits equal the in-place result, on every
// path and for every thread count, and integer data gives the exact
// product.
func TestWideBPacked(t *testing.T) {
	const m, n, k = 200, 1030, 70
	forEachPath(t, func(t *testing.T) {
		if pl := current.plan(false, false, m, n, k, k, n+3); !pl.packB {
			t.Fatalf("B with %d-float rows and %d rows not packed", n+3, m)
		}
		r := newRand("wide-b", current.name)
		gen := smallInts(r)
		a := newMatrix(m, k, k, goAlloc, gen)
		b := newMatrix(k, n, n+3, goAlloc, gen)
		c0 := newMatrix(m, n, n, goAlloc, gen)
		want, _ := reference(false, false, m, n, k, 2, a, b, 1, c0)
		packed := append([]float32(nil), c0.data...)
		Sgemm(false, false, m, n, k, 2, a.data, a.ld, b.data, b.ld, 1, packed, c0.ld)
		for i, w := range want {
			if float64(packed[i]) != w {
				t.Fatalf("element %d = %v, want %v (exact on integer data)", i, packed[i], w)
			}
		}
		old := packBMinStride
		packBMinStride = 1 << 30
		inPlace := append([]float32(nil), c0.data...)
		Sgemm(false, false, m, n, k, 2, a.data, a.ld, b.data, b.ld, 1, inPlace, c0.ld)
		packBMinStride = old
		u := uniform(r)
		for i := range a.data {
			a.data[i] = u()
		}
		for i := range b.data {
			b.data[i] = u()
		}
		serial := append([]float32(nil), c0.data...)
		Sgemm(false, false, m, n, k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, serial, c0.ld)
		packBMinStride = 1 << 30
		unpacked := append([]float32(nil), c0.data...)
		Sgemm(false, false, m, n, k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, unpacked, c0.ld)
		packBMinStride = old
		for i := range serial {
			if !sameBits(serial[i], unpacked[i]) || !sameBits(packed[i], inPlace[i]) {
				t.Fatalf("element %d: packed B %v, in place %v", i, serial[i], unpacked[i])
			}
		}
		for _, threads := range []int{2, 3} {
			got := append([]float32(nil), c0.data...)
			SgemmParallel(threads, false, false, m, n, k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, got, c0.ld)
			for i := range got {
				if !sameBits(got[i], serial[i]) {
					t.Fatalf("threads=%d: element %d = %v, serial %v", threads, i, got[i], serial[i])
				}
			}
		}
	})
}

// TestSgemmParallelPrepackedB: a row split with packed B panels packs B once
// for all blocks (prepackB). With column blocks cut to 96 columns, several
// blocks × several k-chunks of regions must be laid out and found again:
// bit-identical to Sgemm for transposed and wide B, on every path.
func TestSgemmParallelPrepackedB(t *testing.T) {
	old := ncTarget
	ncTarget = 96
	t.Cleanup(func() { ncTarget = old })
	forEachPath(t, func(t *testing.T) {
		for _, tc := range []struct {
			tB      bool
			m, n, k int
			ldb     int
		}{{true, 120, 250, 600, 600}, {false, 150, 200, 530, 1024}} {
			r := newRand("prepack", current.name, tc.m)
			gen := uniform(r)
			br, bc := tc.k, tc.n
			if tc.tB {
				br, bc = tc.n, tc.k
			}
			a := newMatrix(tc.m, tc.k, tc.k, goAlloc, gen)
			b := newMatrix(br, bc, tc.ldb, goAlloc, gen)
			c0 := newMatrix(tc.m, tc.n, tc.n, goAlloc, gen)
			if pl := current.plan(false, tc.tB, tc.m, tc.n, tc.k, a.ld, b.ld); !pl.packB {
				t.Fatalf("%+v: B not packed; the test needs it", tc)
			}
			want := append([]float32(nil), c0.data...)
			Sgemm(false, tc.tB, tc.m, tc.n, tc.k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, want, c0.ld)
			for _, threads := range []int{2, 3} {
				got := append([]float32(nil), c0.data...)
				SgemmParallel(threads, false, tc.tB, tc.m, tc.n, tc.k, 0.9, a.data, a.ld, b.data, b.ld, -0.4, got, c0.ld)
				for i := range got {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("%+v threads=%d: element %d = %v, serial %v", tc, threads, i, got[i], want[i])
					}
				}
			}
		}
	})
}
