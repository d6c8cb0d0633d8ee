package gemm

import (
	"math"
	"testing"
)

// TestRowSumSquaresNarrow: rows narrower than a vector (1…15 columns),
// which the AVX-512 path sums sixteen rows at a time, give SumSquares's
// bits row by row, for row counts around multiples of 16, strides above
// the width, and zeros, subnormals, ±Inf and NaN among the values.
// (Checked to fail: with the l += 4 and l += 2 folds swapped, or a column
// left out.)
func TestRowSumSquaresNarrow(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		r := newRand("rowsumsq-narrow", current.name)
		gen := uniform(r)
		for cols := 1; cols < 16; cols++ {
			for _, rows := range []int{15, 16, 17, 45, 64, 1000} {
				ld := cols + rows%3
				x := make([]float32, (rows-1)*ld+cols)
				for i := range x {
					x[i] = gen()
				}
				if rows == 45 {
					x[3], x[ld+1] = float32(math.Inf(-1)), float32(math.NaN())
					x[2*ld] = 1e-42
					x[5*ld] = 0
				}
				dst := make([]float32, rows)
				RowSumSquares(cols, x, ld, dst)
				for i := range dst {
					row := x[i*ld : i*ld+cols]
					if want := SumSquares(row); !sameBits(dst[i], want) {
						t.Fatalf("%d×%d ld %d row %d: %v (%#x), SumSquares %v (%#x)", rows, cols, ld, i,
							dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
					}
				}
			}
		}
	})
}
