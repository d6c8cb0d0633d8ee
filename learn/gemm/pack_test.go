package gemm

import "testing"

// TestPackBLayout checks packed B panels element by element against the
// definition dst[p·stride + j] = op(B)[p0+p][j0+j], zero for j ≥ cols, for
// both layouts of B and block sizes around the 8×8 transposer's blocks.
func TestPackBLayout(t *testing.T) {
	r := newRand("packB")
	gen := uniform(r)
	for _, transB := range []bool{false, true} {
		for _, tc := range []struct{ p0, kc, j0, cols, stride int }{
			{0, 1, 0, 1, 8}, {0, 8, 0, 8, 8}, {3, 17, 5, 13, 16}, {1, 64, 8, 32, 32},
			{0, 15, 0, 7, 16}, {9, 33, 2, 30, 32}, {0, 256, 0, 16, 16},
		} {
			k, n := tc.p0+tc.kc+3, tc.j0+tc.cols+4
			br, bc := k, n
			if transB {
				br, bc = n, k
			}
			ld := bc + 2
			b := make([]float32, need(br, bc, ld))
			for i := range b {
				b[i] = gen()
			}
			dst := make([]float32, tc.kc*tc.stride)
			for i := range dst {
				dst[i] = 12345 // must all be overwritten
			}
			packB(dst, transB, b, ld, tc.p0, tc.kc, tc.j0, tc.cols, tc.stride)
			for p := 0; p < tc.kc; p++ {
				for j := 0; j < tc.stride; j++ {
					var want float32
					if j < tc.cols {
						if transB {
							want = b[(tc.j0+j)*ld+tc.p0+p]
						} else {
							want = b[(tc.p0+p)*ld+tc.j0+j]
						}
					}
					if got := dst[p*tc.stride+j]; got != want {
						t.Fatalf("transB=%v %+v: dst[%d][%d] = %v, want %v", transB, tc, p, j, got, want)
					}
				}
			}
		}
	}
}

// TestPackALayout: dst[p·rows + i] = op(A)[i0+i][p0+p].
func TestPackALayout(t *testing.T) {
	r := newRand("packA")
	gen := uniform(r)
	for _, transA := range []bool{false, true} {
		for _, tc := range []struct{ i0, rows, p0, kc int }{{0, 1, 0, 1}, {3, 14, 5, 40}, {1, 6, 0, 9}, {0, 8, 0, 8}, {2, 13, 1, 43}, {0, 9, 3, 17}, {5, 16, 0, 264},
			{0, 6, 0, 7}, {2, 6, 3, 264}, {4, 6, 1, 41}} {
			m, k := tc.i0+tc.rows+2, tc.p0+tc.kc+3
			ar, ac := m, k
			if transA {
				ar, ac = k, m
			}
			ld := ac + 1
			a := make([]float32, need(ar, ac, ld))
			for i := range a {
				a[i] = gen()
			}
			dst := make([]float32, tc.rows*tc.kc)
			packA(dst, transA, a, ld, tc.i0, tc.rows, tc.p0, tc.kc)
			for p := 0; p < tc.kc; p++ {
				for i := 0; i < tc.rows; i++ {
					want := a[(tc.i0+i)*ld+tc.p0+p]
					if transA {
						want = a[(tc.p0+p)*ld+tc.i0+i]
					}
					if got := dst[p*tc.rows+i]; got != want {
						t.Fatalf("transA=%v %+v: dst[%d][%d] = %v, want %v", transA, tc, p, i, got, want)
					}
				}
			}
		}
	}
}

// TestPackBFull: whole panels packed a row at a time (packBFull, the
// vector copier where there is one) land where packB puts them, for both
// panel widths and edge sizes; the elements after the panels stay as they
// were.
func TestPackBFull(t *testing.T) {
	r := newRand("packBFull")
	gen := uniform(r)
	for _, nr := range []int{16, 32} {
		for _, tc := range []struct{ p0, kc, j0, panels int }{
			{0, 1, 0, 1}, {3, 17, 5, 2}, {0, 256, 0, 4}, {2, 9, 1, 3},
		} {
			k, n := tc.p0+tc.kc+2, tc.j0+tc.panels*nr+3
			ld := n + 5
			b := make([]float32, need(k, n, ld))
			for i := range b {
				b[i] = gen()
			}
			size := tc.panels * tc.kc * nr
			got, want := make([]float32, size+8), make([]float32, size+8)
			for i := range got {
				got[i], want[i] = 12345, 12345
			}
			packBFull(got, b, ld, tc.p0, tc.kc, tc.j0, tc.panels, nr)
			for q := range tc.panels {
				packB(want[q*tc.kc*nr:], false, b, ld, tc.p0, tc.kc, tc.j0+q*nr, nr, nr)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("nr=%d %+v: element %d = %v, want %v", nr, tc, i, got[i], want[i])
				}
			}
		}
	}
}
