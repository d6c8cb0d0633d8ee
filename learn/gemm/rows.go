package gemm

import "fmt"

// Row and column kernels for the trainer's bookkeeping around the GEMMs:
// bias gradients (ColSums), bias adds (AddRowVector), per-example clipping
// factors (ScaleRows), per-example squared norms (RowSumSquares) and the
// NaN/Inf guard (AllFinite). ColSums, AddRowVector and ScaleRows perform,
// element by element, exactly the operations of the plain loops documented
// on each, in the same order, so their results are bit-identical to those
// loops on every path. Matrices are row-major with a row stride (ld ≥ cols);
// inconsistent sizes panic like Sgemm's.

// rowKernels are one path's implementations; x, v, s, src and dst are
// non-empty and sized as checked by the exported wrappers.
type rowKernels struct {
	colSums      func(rows, cols int, x *float32, ldx int, dst *float32)
	addRowVector func(rows, cols int, v *float32, x *float32, ldx int)
	scaleRows    func(rows, cols int, s *float32, src *float32, lds int, dst *float32, ldd int)
	nonFinite    func(x []float32) int // start of a block holding the first non-finite value, or -1
}

// ColSums sets dst[j] = Σ_i x[i·ldx+j] for j < cols, adding the rows in
// order: exactly `clear(dst); for i { for j { dst[j] += x[i·ldx+j] } }`.
func ColSums(rows, cols int, x []float32, ldx int, dst []float32) {
	mustRows("ColSums", "x", rows, cols, len(x), ldx)
	mustLen("ColSums", "dst", cols, len(dst))
	if cols == 0 {
		return
	}
	if rows == 0 {
		clear(dst[:cols])
		return
	}
	current.rows.colSums(rows, cols, &x[0], ldx, &dst[0])
}

// AddRowVector adds v to every row: x[i·ldx+j] += v[j] for i < rows,
// j < cols (cols = len(v)), e.g. a bias to a batch of activations.
func AddRowVector(rows int, v []float32, x []float32, ldx int) {
	cols := len(v)
	mustRows("AddRowVector", "x", rows, cols, len(x), ldx)
	if rows == 0 || cols == 0 {
		return
	}
	if current.stallsInPlace(cols, ldx) || current.shortForMaskedStores(cols) {
		genericRows.addRowVector(rows, cols, &v[0], &x[0], ldx)
		return
	}
	current.rows.addRowVector(rows, cols, &v[0], &x[0], ldx)
}

// ScaleRows sets dst[i·ldd+j] = s[i]·src[i·lds+j] for i < rows = len(s),
// j < cols. dst and src may be the same matrix (in place, ldd = lds).
func ScaleRows(cols int, s []float32, src []float32, lds int, dst []float32, ldd int) {
	rows := len(s)
	mustRows("ScaleRows", "src", rows, cols, len(src), lds)
	mustRows("ScaleRows", "dst", rows, cols, len(dst), ldd)
	if rows == 0 || cols == 0 {
		return
	}
	if (&src[0] == &dst[0] && current.stallsInPlace(cols, ldd)) || current.shortForMaskedStores(cols) {
		genericRows.scaleRows(rows, cols, &s[0], &src[0], lds, &dst[0], ldd)
		return
	}
	current.rows.scaleRows(rows, cols, &s[0], &src[0], lds, &dst[0], ldd)
}

// stallsInPlace reports whether updating short rows in place would stall the
// vector kernels: when the row stride is not a whole number of vectors, the
// (masked) store of one row's last vector overlaps the next row's first load,
// store-to-load forwarding fails and every row waits for the store to retire
// (256×10 ran at a quarter of the plain loop's speed on Zen 4). Long rows
// amortise the stall. The plain loop gives the same bits.
func (ar *arch) stallsInPlace(cols, ld int) bool {
	return cols < 64 && ld%ar.width != 0
}

// shortForMaskedStores reports whether rows are too short for a path whose
// partial-vector stores are slow (AVX2's VMASKMOVPS, microcoded on AMD):
// with fewer than four vectors per row the masked tail dominates and the
// plain loop is faster (ScaleRows on 256×10: 1.3 vs 2.0 Gelem/s on Zen 4).
// Rows of whole vectors have no masked tail: a conv layer's 16-channel bias
// add (AddRowVector 5408×16) took the plain loop at 1.4 elements/ns.
func (ar *arch) shortForMaskedStores(cols int) bool {
	return !ar.maskedB && cols < 4*ar.width && cols%ar.width != 0
}

// SumSquares returns Σ x[i]²; it is Dot(x, x), bit for bit.
func SumSquares(x []float32) float32 { return current.dot(x, x) }

// RowSumSquares sets dst[i] = SumSquares(x[i·ldx : i·ldx+cols]) for
// i < rows = len(dst): per-example squared norms of a batch.
func RowSumSquares(cols int, x []float32, ldx int, dst []float32) {
	rows := len(dst)
	mustRows("RowSumSquares", "x", rows, cols, len(x), ldx)
	if cols == 0 {
		clear(dst)
		return
	}
	// Narrow rows (the 10-wide layers of Hayes et al.'s 784-10-10) sixteen
	// at a time where the path has a kernel for them.
	if k := current.rowSumSquaresNarrow; k != nil && cols < 16 && rows >= 16 {
		n := rows &^ 15
		k(n, cols, &x[0], ldx, &dst[0])
		x, dst = x[min(n*ldx, len(x)):], dst[n:]
	}
	dot := current.dot
	for i := range dst {
		r := x[i*ldx : i*ldx+cols]
		dst[i] = dot(r, r)
	}
}

// AllFinite reports whether x holds no NaN or ±Inf and, if it does, the
// index of the first one (else -1).
func AllFinite(x []float32) (ok bool, first int) {
	if len(x) == 0 {
		return true, -1
	}
	start := current.rows.nonFinite(x)
	if start < 0 {
		return true, -1
	}
	for i := start; i < len(x); i++ {
		if v := x[i]; v-v != 0 { // v−v is 0 for finite v, NaN otherwise
			return false, i
		}
	}
	panic("gemm.AllFinite: vector kernel reported a non-finite value that is not there")
}

func mustRows(fn, name string, rows, cols, length, ld int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("gemm.%s: negative size %d×%d", fn, rows, cols))
	}
	if rows == 0 || cols == 0 {
		return // an empty matrix needs no storage and any stride
	}
	if err := checkMatrix(name, rows, cols, length, ld); err != nil {
		panic(fmt.Sprintf("gemm.%s: %v", fn, err))
	}
}

func mustLen(fn, name string, n, length int) {
	if length < n {
		panic(fmt.Sprintf("gemm.%s: len(%s) = %d, need %d", fn, name, length, n))
	}
}
