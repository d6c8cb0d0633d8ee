package datasets

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// chunkReader reads one column chunk's levels and its values converted to
// T: float32 for features, float64 for labels (which float32 would round
// above 2^24). An integer converts straight to T, as pqarrow's arrays
// were converted before.
type chunkReader[T float32 | float64] struct {
	cr         file.ColumnChunkReader
	unsigned   bool
	defs, reps []int16
	i32        []int32
	i64        []int64
	f32        []float32
	f64        []float64
	bools      []bool
}

func newChunkReader[T float32 | float64](p *parquetFill, c *parquetColumn, g int) (*chunkReader[T], error) {
	cr, err := p.r.RowGroup(g).Column(c.leaf)
	if err != nil {
		return nil, p.t.errorf("column %q: %v", c.name, err)
	}
	r := &chunkReader[T]{cr: cr, unsigned: c.unsigned, defs: make([]int16, parquetBatch)}
	if c.list {
		r.reps = make([]int16, parquetBatch)
	}
	return r, nil
}

// next reads up to len(vals) ≤ parquetBatch levels, the values (nulls
// skipped) into vals; it returns the levels read (0 at the chunk's end)
// and the values read.
func (r *chunkReader[T]) next(vals []T) (int, int, error) {
	n := int64(len(vals))
	defs, reps := r.defs[:n], r.reps
	if reps != nil {
		reps = reps[:n]
	}
	var lv int64
	var nv int
	var err error
	switch c := r.cr.(type) {
	case *file.Float32ColumnChunkReader:
		if v, ok := any(vals).([]float32); ok {
			lv, nv, err = c.ReadBatch(n, v, defs, reps)
			break
		}
		lv, nv, err = c.ReadBatch(n, grow(&r.f32, n), defs, reps)
		convert(vals, r.f32[:nv], func(x float32) T { return T(x) })
	case *file.Float64ColumnChunkReader:
		lv, nv, err = c.ReadBatch(n, grow(&r.f64, n), defs, reps)
		convert(vals, r.f64[:nv], func(x float64) T { return T(x) })
	case *file.Int32ColumnChunkReader:
		lv, nv, err = c.ReadBatch(n, grow(&r.i32, n), defs, reps)
		if r.unsigned {
			convert(vals, r.i32[:nv], func(x int32) T { return T(uint32(x)) })
		} else {
			convert(vals, r.i32[:nv], func(x int32) T { return T(x) })
		}
	case *file.Int64ColumnChunkReader:
		lv, nv, err = c.ReadBatch(n, grow(&r.i64, n), defs, reps)
		if r.unsigned {
			convert(vals, r.i64[:nv], func(x int64) T { return T(uint64(x)) })
		} else {
			convert(vals, r.i64[:nv], func(x int64) T { return T(x) })
		}
	case *file.BooleanColumnChunkReader:
		lv, nv, err = c.ReadBatch(n, grow(&r.bools, n), defs, reps)
		convert(vals, r.bools[:nv], func(x bool) T {
			if x {
				return 1
			}
			return 0
		})
	default:
		return 0, 0, fmt.Errorf("unsupported column reader %T", r.cr)
	}
	return int(lv), nv, err
}

func grow[E any](buf *[]E, n int64) []E {
	if int64(cap(*buf)) < n {
		*buf = make([]E, n)
	}
	return (*buf)[:n]
}

func convert[S any, T float32 | float64](dst []T, src []S, conv func(S) T) {
	for i, v := range src {
		dst[i] = conv(v)
	}
}

// readFlat reads number column c of row group g (file rows base …
// base+rows−1): all rows into dst when emit is nil (len(dst) = rows),
// else a batch at a time into dst, each handed to emit with its first
// file row.
func readFlat[T float32 | float64](p *parquetFill, c *parquetColumn, g, base, rows int, dst []T, emit func(row int, v []T) error) error {
	t := p.t
	r, err := newChunkReader[T](p, c, g)
	if err != nil {
		return err
	}
	for row := 0; ; {
		out := dst
		if emit == nil {
			out = dst[row:]
		}
		out = out[:min(len(out), parquetBatch, max(rows-row, 1))]
		lv, nv, err := r.next(out)
		if err != nil {
			return t.errorf("column %q: %v", c.name, err)
		}
		if lv == 0 {
			if row != rows {
				return t.errorf("column %q has %d rows in row group %d, the file's metadata %d", c.name, row, g, rows)
			}
			return nil
		}
		if row+lv > rows {
			return t.errorf("column %q has more rows in row group %d than the file's metadata says (%d)", c.name, g, rows)
		}
		if nv < lv {
			for k, d := range r.defs[:lv] {
				if d < c.present {
					if c == p.label {
						return t.errorf("row %d: the label column %q is null", base+row+k, c.name)
					}
					return t.errorf("row %d: column %q is null", base+row+k, c.name)
				}
			}
		}
		if emit != nil {
			if err := emit(base+row, out[:lv]); err != nil {
				return err
			}
		}
		row += lv
	}
}

// listRows walks the rows of a list column's chunk: each row's values go
// to put (row within the chunk, the value's index in the row, the value)
// while the row holds at most width values; a row with another count, a
// null row or a null element is an error naming file row base+row.
type listRows struct {
	p     *parquetFill
	c     *parquetColumn
	base  int
	width int
	row   int // current row within the chunk (−1 before the first)
	count int // values of the current row so far
	elem  int // elements of the chunk so far (for null elements)
}

// levels consumes one batch of levels and the values they place.
func (w *listRows) levels(defs, reps []int16, vals []float32, put func(row, j int, v float32)) error {
	t, c := w.p.t, w.c
	vi := 0
	for k, d := range defs {
		if reps[k] == 0 {
			if err := w.endRow(); err != nil {
				return err
			}
			w.row++
			if d < c.present {
				return t.errorf("row %d: column %q is null", w.base+w.row, c.name)
			}
		}
		if d < c.element {
			continue // an empty list
		}
		if d < c.desc.MaxDefinitionLevel() {
			return t.errorf("column %q: value %d of the lists is null", c.name, w.elem)
		}
		if w.count < w.width {
			put(w.row, w.count, vals[vi])
		}
		vi++
		w.count++
		w.elem++
	}
	return nil
}

// endRow checks the count of the row just read, if any.
func (w *listRows) endRow() error {
	if w.row >= 0 && w.count != w.width {
		return w.p.t.errorf("row %d: column %q holds %d values, row 0 holds %d (every row needs the same number)", w.base+w.row, w.c.name, w.count, w.width)
	}
	w.count = 0
	return nil
}

// readList reads list column c of row group g straight into each row's
// place in the matrix.
func (p *parquetFill) readList(c *parquetColumn, g, base, rows int) error {
	t := p.t
	r, err := newChunkReader[float32](p, c, g)
	if err != nil {
		return err
	}
	w := &listRows{p: p, c: c, base: base, width: c.width, row: -1}
	vals := make([]float32, parquetBatch)
	put := func(row, j int, v float32) {
		if row < rows {
			t.x[p.matrixRow(base+row)+c.off+j] = v
		}
	}
	for {
		lv, _, err := r.next(vals)
		if err != nil {
			return t.errorf("column %q: %v", c.name, err)
		}
		if lv == 0 {
			break
		}
		if err := w.levels(r.defs[:lv], r.reps[:lv], vals, put); err != nil {
			return err
		}
	}
	if err := w.endRow(); err != nil {
		return err
	}
	if w.row+1 != rows {
		return t.errorf("column %q has %d rows in row group %d, the file's metadata %d", c.name, w.row+1, g, rows)
	}
	return nil
}

// firstListLength is the number of values in the first row of list
// column c.
func (p *parquetFill) firstListLength(c *parquetColumn) (int, error) {
	t := p.t
	if p.r.NumRowGroups() == 0 || p.r.NumRows() == 0 {
		return 0, t.errorf("the file has no rows")
	}
	r, err := newChunkReader[float32](p, c, 0)
	if err != nil {
		return 0, err
	}
	vals := make([]float32, parquetBatch)
	n := 0
	for started := false; ; {
		lv, _, err := r.next(vals)
		if err != nil {
			return 0, t.errorf("column %q: %v", c.name, err)
		}
		if lv == 0 {
			return n, nil
		}
		for k, d := range r.defs[:lv] {
			if r.reps[k] == 0 {
				if started {
					return n, nil
				}
				started = true
				if d < c.present {
					return 0, t.errorf("row 0: column %q is null", c.name)
				}
			}
			if d >= c.element {
				n++
			}
		}
	}
}
