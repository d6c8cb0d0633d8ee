package gemm

import (
	"math"
	"testing"
)

// rowShapes: single elements, below/at/above one vector (8, 16), across the
// 48/64-column four-vector blocks, and the trainer's sizes (10 classes, 16/32
// channels for 25,088/3,200 im2col rows, 512 hidden, 3,136 = 196·16).
var rowShapes = []struct{ rows, cols int }{
	{1, 1}, {3, 7}, {5, 8}, {4, 9}, {2, 16}, {7, 17}, {3, 33}, {6, 48}, {5, 49}, {4, 64},
	{3, 65}, {2, 100}, {256, 10}, {1000, 16}, {200, 32}, {64, 512}, {4, 3136}, {0, 5}, {5, 0},
}

// plainRowMatrix is a rows×cols matrix with NaN stride padding (reading it
// poisons a sum; writing it shows up as a changed padding value).
func plainRowMatrix(t *testing.T, alloc func(int) []float32, rows, cols, pad int, gen func() float32) matrix {
	t.Helper()
	return newMatrix(rows, cols, cols+pad, alloc, gen)
}

func checkSameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Fatalf("%s: element %d = %v, plain loop gives %v", what, i, got[i], want[i])
		}
	}
}

// TestRowKernelsMatchPlainLoops: ColSums, AddRowVector and ScaleRows must
// reproduce the plain Go loops (genericRows) bit for bit on every path,
// without touching stride padding (NaN) or memory past the matrix (guard
// page).
func TestRowKernelsMatchPlainLoops(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("rows", current.name)
		gen := uniform(r)
		for _, sh := range rowShapes {
			for _, pad := range []int{0, 3} {
				x := plainRowMatrix(t, alloc, sh.rows, sh.cols, pad, gen)

				got, want := alloc(sh.cols), make([]float32, sh.cols)
				if sh.rows > 0 && sh.cols > 0 {
					genericRows.colSums(sh.rows, sh.cols, &x.data[0], x.ld, &want[0])
				}
				ColSums(sh.rows, sh.cols, x.data, x.ld, got)
				checkSameBits(t, "ColSums", got, want)

				v := alloc(sh.cols)
				for i := range v {
					v[i] = gen()
				}
				wantX := append([]float32(nil), x.data...)
				if sh.rows > 0 && sh.cols > 0 {
					genericRows.addRowVector(sh.rows, sh.cols, &v[0], &wantX[0], x.ld)
				}
				gotX := alloc(len(x.data))
				copy(gotX, x.data)
				AddRowVector(sh.rows, v, gotX, x.ld)
				checkSameBits(t, "AddRowVector (padding included)", gotX, wantX)

				s := alloc(sh.rows)
				for i := range s {
					s[i] = gen()
				}
				dst := plainRowMatrix(t, alloc, sh.rows, sh.cols, pad+1, gen)
				wantD := append([]float32(nil), dst.data...)
				if sh.rows > 0 && sh.cols > 0 {
					genericRows.scaleRows(sh.rows, sh.cols, &s[0], &x.data[0], x.ld, &wantD[0], dst.ld)
				}
				ScaleRows(sh.cols, s, x.data, x.ld, dst.data, dst.ld)
				checkSameBits(t, "ScaleRows (padding included)", dst.data, wantD)

				// The path's kernels themselves, which the exported functions
				// bypass for short rows (stallsInPlace, shortForMaskedStores).
				if sh.rows > 0 && sh.cols > 0 {
					direct := alloc(len(x.data))
					copy(direct, x.data)
					current.rows.addRowVector(sh.rows, sh.cols, &v[0], &direct[0], x.ld)
					checkSameBits(t, "addRowVector kernel", direct, wantX)
					copy(direct, x.data)
					current.rows.scaleRows(sh.rows, sh.cols, &s[0], &direct[0], x.ld, &direct[0], x.ld)
					wantS := append([]float32(nil), x.data...)
					genericRows.scaleRows(sh.rows, sh.cols, &s[0], &x.data[0], x.ld, &wantS[0], x.ld)
					checkSameBits(t, "scaleRows kernel in place", direct, wantS)
				}

				// In place, the way the trainer rescales δ rows.
				inPlace := append([]float32(nil), x.data...)
				ScaleRows(sh.cols, s, inPlace, x.ld, inPlace, x.ld)
				wantIn := append([]float32(nil), x.data...)
				if sh.rows > 0 && sh.cols > 0 {
					genericRows.scaleRows(sh.rows, sh.cols, &s[0], &x.data[0], x.ld, &wantIn[0], x.ld)
				}
				checkSameBits(t, "ScaleRows in place", inPlace, wantIn)
			}
		}
	})
}

// TestColSumsValues: on small integers the column sums are exact, so this
// checks the plain-loop definition itself against arithmetic.
func TestColSumsValues(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		x := []float32{1, 2, 3, 99, 4, 5, 6, 99, -7, 0, 1, 99}
		got := make([]float32, 3)
		ColSums(3, 3, x, 4, got)
		if want := []float32{-2, 7, 10}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("ColSums = %v, want %v", got, want)
		}
	})
}

// TestRowSumSquares: each entry is SumSquares of its row, and SumSquares is
// Dot(x, x) bit for bit.
func TestRowSumSquares(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		r := newRand("rowsumsq", current.name)
		gen := uniform(r)
		for _, sh := range rowShapes {
			x := plainRowMatrix(t, goAlloc, sh.rows, sh.cols, 2, gen)
			dst := make([]float32, sh.rows)
			RowSumSquares(sh.cols, x.data, x.ld, dst)
			if sh.cols == 0 {
				for i, v := range dst {
					if v != 0 {
						t.Fatalf("%v: empty row %d has sum of squares %v", sh, i, v)
					}
				}
				continue
			}
			for i := range dst {
				row := x.data[i*x.ld : i*x.ld+sh.cols]
				if want := Dot(row, row); !sameBits(dst[i], want) || !sameBits(SumSquares(row), want) {
					t.Fatalf("%v row %d: RowSumSquares %v, SumSquares %v, Dot %v", sh, i, dst[i], SumSquares(row), want)
				}
				var exact float64
				for _, v := range row {
					exact += float64(v) * float64(v)
				}
				if math.Abs(float64(dst[i])-exact) > 1e-6*math.Sqrt(float64(sh.cols))*exact {
					t.Fatalf("%v row %d: %v, want %v", sh, i, dst[i], exact)
				}
			}
		}
	})
}

// TestAllFinite: the first NaN or ±Inf is found wherever it sits (first,
// inside a block, in a masked tail, last); ±0, subnormals and ±MaxFloat32
// are finite.
func TestAllFinite(t *testing.T) {
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		for _, n := range []int{1, 5, 8, 15, 16, 17, 40, 1000} {
			x := alloc(n)
			for i := range x {
				x[i] = [...]float32{0, float32(math.Copysign(0, -1)), 1e-45, math.MaxFloat32, -math.MaxFloat32, 3}[i%6]
			}
			if ok, first := AllFinite(x); !ok || first != -1 {
				t.Fatalf("n=%d finite vector: AllFinite = %v, %d", n, ok, first)
			}
			for _, pos := range []int{0, n / 2, n - 1} {
				for _, b := range bad {
					y := alloc(n)
					copy(y, x)
					y[pos] = b
					if pos+1 < n {
						y[n-1] = b // a later one must not be reported first
					}
					if ok, first := AllFinite(y); ok || first != pos {
						t.Fatalf("n=%d %v at %d: AllFinite = %v, %d", n, b, pos, ok, first)
					}
				}
			}
		}
		if ok, first := AllFinite(nil); !ok || first != -1 {
			t.Errorf("AllFinite(nil) = %v, %d", ok, first)
		}
	})
}
