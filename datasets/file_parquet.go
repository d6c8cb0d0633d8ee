package datasets

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBatch is how many rows are decoded at once. The features go
// from each batch straight into the float32 matrix, and a wide file is
// read a group of columns at a time, each group holding about
// parquetGroupBytes of values (each column chunk is still read once). The
// reader copies what it decodes several times over (column chunk, pages,
// batch arrays: about five times a group's values, all garbage once
// converted), so memory beyond the matrix stays a few hundred MB for any
// width — never the whole Arrow table, nor one row group of every column.
const parquetBatch = 8192

// parquetGroupBytes is a variable so that tests can make groups small.
var parquetGroupBytes = 32 << 20

// readParquet reads the label and feature columns of a Parquet file in
// record batches. A feature column is a number (any integer or float
// type, or bool) or a list or fixed-size list of numbers with the same
// length in every row (an image in one column).
func readParquet(path, label string, features []string, testFraction float64) (*table, error) {
	t := &table{what: baseName(path)}
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, t.errorf("not a readable Parquet file: %v", err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: parquetBatch, Parallel: true}, memory.DefaultAllocator)
	if err != nil {
		return nil, t.errorf("%v", err)
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, t.errorf("schema: %v", err)
	}
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	li, feats, err := selectColumns(names, label, features, t.what)
	if err != nil {
		return nil, err
	}
	p := &parquetFill{t: t, fr: fr, total: int(rdr.NumRows()), label: names[li]}
	if err := p.checkTypes(sc, li, feats); err != nil {
		return nil, err
	}
	for _, c := range feats {
		p.feats = append(p.feats, names[c])
	}
	if err := p.layout(feats); err != nil {
		return nil, err
	}
	if err := p.readLabels(li); err != nil {
		return nil, err
	}
	if testFraction > 0 {
		// Place the test rows at the end as they are read: splitting the
		// matrix afterwards would copy them.
		isTest, nTest, err := splitRows(t, testFraction)
		if err != nil {
			return nil, err
		}
		p.places = splitPlaces(isTest, nTest)
		y := make([]int32, t.n)
		for i, v := range t.y {
			y[p.places[i]] = v
		}
		t.y, t.testRows = y, nTest
	}
	t.x = make([]float32, t.n*t.d)
	// Values of one group: rows × the group's widths × 4 bytes.
	for lo := 0; lo < len(feats); {
		hi, bytes := lo, 0
		for hi < len(feats) && (hi == lo || bytes+t.n*p.widths[hi]*4 <= parquetGroupBytes) {
			bytes += t.n * p.widths[hi] * 4
			hi++
		}
		if err := p.readFeatures(feats[lo:hi], lo); err != nil {
			return nil, err
		}
		lo = hi
		// The reader allocates every column chunk it reads afresh
		// (parquet.ReaderProperties.GetStream): a file's worth of garbage,
		// which with the matrix live the heap could hold until it doubled.
		// Collecting after each group bounds it to one group; the matrix is
		// pointer-free, so a collection costs next to nothing.
		runtime.GC()
	}
	if err := p.checkFinite(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkFinite names the first row, in file order, with a NaN or infinite
// feature.
func (p *parquetFill) checkFinite() error {
	t := p.t
	if firstNonFinite(t.x) < 0 {
		return nil
	}
	for i := range t.n {
		row := i
		if p.places != nil {
			row = p.places[i]
		}
		if j := firstNonFinite(t.x[row*t.d : (row+1)*t.d]); j >= 0 {
			return t.errorf("row %d, column %q is %v (features must be finite)", i, t.names[j], t.x[row*t.d+j])
		}
	}
	return nil
}

// leafColumns lists the Parquet leaf columns under a schema field.
func leafColumns(f pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return []int{f.ColIndex}
	}
	var out []int
	for _, c := range f.Children {
		out = append(out, leafColumns(c)...)
	}
	return out
}

// parquetFill converts a Parquet file's columns into a table.
type parquetFill struct {
	t      *table
	fr     *pqarrow.FileReader
	total  int // rows in the file, from its metadata
	label  string
	feats  []string
	widths []int // values per row of each feature column
	offs   []int // offset of each feature column in a row
	buf    [][]float32
	// places[i] is the matrix row of file row i (nil: the same).
	places []int
}

func (p *parquetFill) leaves(field int) []int { return leafColumns(p.fr.Manifest.Fields[field]) }

// numericType reports whether values of t convert to float32.
func numericType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// checkTypes refuses a label or feature column that is not numeric
// before anything is read.
func (p *parquetFill) checkTypes(sc *arrow.Schema, label int, feats []int) error {
	t := p.t
	if lt := sc.Field(label).Type; !numericType(lt) {
		return &FieldError{Field: "label", Err: invalidf("%s: the label column %q has type %s; labels are class ids 0, 1, … (integers)", t.what, sc.Field(label).Name, lt)}
	}
	for _, c := range feats {
		f := sc.Field(c)
		ok := numericType(f.Type)
		if l, isList := f.Type.(arrow.ListLikeType); isList {
			ok = numericType(l.Elem())
		}
		if !ok {
			return &FieldError{Field: "features", Err: invalidf("%s: column %q has type %s, not a number or a list of numbers", t.what, f.Name, f.Type)}
		}
	}
	return nil
}

// layout fixes each feature column's width and offset in a row: 1 for a
// number, the size of a fixed-size list, and for a list the length of its
// first row (every row is checked against it when read).
func (p *parquetFill) layout(feats []int) error {
	t := p.t
	sc, _ := p.fr.Schema()
	for k, c := range feats {
		w := 1
		switch ty := sc.Field(c).Type.(type) {
		case *arrow.FixedSizeListType:
			w = int(ty.Len())
		case *arrow.ListType, *arrow.LargeListType:
			first, err := p.firstListLength(c, k)
			if err != nil {
				return err
			}
			w = first
		}
		p.widths = append(p.widths, w)
		p.offs = append(p.offs, t.d)
		t.d += w
		for j := range w {
			if w == 1 && !isList(sc.Field(c).Type) {
				t.names = append(t.names, p.feats[k])
			} else {
				t.names = append(t.names, fmt.Sprintf("%s[%d]", p.feats[k], j))
			}
		}
	}
	t.shape = []int{t.d}
	if t.d == 0 {
		return &FieldError{Field: "features", Err: invalidf("%s: the feature columns hold no values", t.what)}
	}
	return nil
}

func isList(t arrow.DataType) bool {
	_, ok := t.(arrow.ListLikeType)
	return ok
}

// firstListLength reads the first batch of a list column for the length
// of its first row.
func (p *parquetFill) firstListLength(field, k int) (int, error) {
	rr, err := p.fr.GetRecordReader(context.Background(), p.leaves(field), nil)
	if err != nil {
		return 0, p.t.errorf("%v", err)
	}
	defer rr.Release()
	if !rr.Next() {
		return 0, p.t.errorf("the file has no rows")
	}
	arr := rr.RecordBatch().Column(0)
	if i := firstNull(arr); i == 0 {
		return 0, p.t.errorf("row 0: column %q is null", p.feats[k])
	}
	s, e := arr.(array.ListLike).ValueOffsets(0)
	return int(e - s), nil
}

// readLabels reads the label column (all rows; this fixes the row count).
func (p *parquetFill) readLabels(field int) error {
	t := p.t
	rr, err := p.fr.GetRecordReader(context.Background(), p.leaves(field), nil)
	if err != nil {
		return t.errorf("%v", err)
	}
	defer rr.Release()
	t.y = make([]int32, 0, p.total)
	for rr.Next() {
		if err := p.labels(rr.RecordBatch().Column(0), len(t.y)); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return t.errorf("%v", err)
	}
	t.n = len(t.y)
	if t.n == 0 {
		return t.errorf("the file has no rows")
	}
	return nil
}

// readFeatures reads one group of feature columns (feats[k0:] of the
// file's feature list) into their places in every row, a batch at a time
// and in blocks of rows so that writes stay in cache.
func (p *parquetFill) readFeatures(fields []int, k0 int) error {
	t := p.t
	var leaves []int
	for _, f := range fields {
		leaves = append(leaves, p.leaves(f)...)
	}
	rr, err := p.fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return t.errorf("%v", err)
	}
	defer rr.Release()
	if p.buf == nil {
		p.buf = make([][]float32, len(p.feats))
	}
	vals := make([][]float32, len(fields))
	base, d := 0, t.d
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		if base+n > t.n {
			return t.errorf("column %q has more rows than the label column", p.feats[k0])
		}
		for i := range fields {
			k := k0 + i
			arr := rec.Column(rec.Schema().FieldIndices(p.feats[k])[0])
			v, err := p.column(k, arr, base)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		const block = 64
		for r0 := 0; r0 < n; r0 += block {
			r1 := min(r0+block, n)
			for i, v := range vals {
				w, off := p.widths[k0+i], p.offs[k0+i]
				for r := r0; r < r1; r++ {
					row := (base + r) * d
					if p.places != nil {
						row = p.places[base+r] * d
					}
					copy(t.x[row+off:row+off+w], v[r*w:(r+1)*w])
				}
			}
		}
		base += n
	}
	if err := rr.Err(); err != nil {
		return t.errorf("%v", err)
	}
	if base != t.n {
		return t.errorf("column %q has %d rows, the label column %d", p.feats[k0], base, t.n)
	}
	return nil
}

// labels converts a batch's label column.
func (p *parquetFill) labels(arr arrow.Array, base int) error {
	t := p.t
	if i := firstNull(arr); i >= 0 {
		return t.errorf("row %d: the label column %q is null", base+i, p.label)
	}
	vals, err := toFloat64(arr)
	if err != nil {
		return &FieldError{Field: "label", Err: invalidf("%s: the label column %q %v", t.what, p.label, err)}
	}
	for i, v := range vals {
		y, err := labelOf(v, func() string { return fmt.Sprintf("%s: row %d", t.what, base+i) })
		if err != nil {
			return err
		}
		t.y = append(t.y, y)
	}
	return nil
}

// column returns a batch's feature column k as row-major float32 values
// (its width per row).
func (p *parquetFill) column(k int, arr arrow.Array, base int) ([]float32, error) {
	t, name, w := p.t, p.feats[k], p.widths[k]
	if i := firstNull(arr); i >= 0 {
		return nil, t.errorf("row %d: column %q is null", base+i, name)
	}
	ll, isList := arr.(array.ListLike)
	if !isList {
		v, err := toFloat32(arr, p.buf[k])
		if err != nil {
			return nil, &FieldError{Field: "features", Err: invalidf("%s: column %q %v", t.what, name, err)}
		}
		if _, own := arr.(*array.Float32); !own {
			p.buf[k] = v // reuse the conversion buffer for the next batch
		}
		return v, nil
	}
	child := ll.ListValues()
	if i := firstNull(child); i >= 0 {
		return nil, t.errorf("column %q: value %d of the lists is null", name, i)
	}
	all, err := toFloat32(child, nil)
	if err != nil {
		return nil, &FieldError{Field: "features", Err: invalidf("%s: column %q holds lists whose values %v", t.what, name, err)}
	}
	out := p.buf[k][:0]
	for i := range arr.Len() {
		s, e := ll.ValueOffsets(i)
		if int(e-s) != w {
			return nil, t.errorf("row %d: column %q holds %d values, row 0 holds %d (every row needs the same number)", base+i, name, e-s, w)
		}
		out = append(out, all[s:e]...)
	}
	p.buf[k] = out
	return out, nil
}

// firstNull returns the index of the first null of arr, or -1.
func firstNull(arr arrow.Array) int {
	if arr.NullN() == 0 {
		return -1
	}
	for i := range arr.Len() {
		if arr.IsNull(i) {
			return i
		}
	}
	return -1
}

// toFloat32 returns a numeric array's values as float32: a float32 array's
// own buffer, anything else converted into dst (reallocated if short).
func toFloat32(arr arrow.Array, dst []float32) ([]float32, error) {
	if a, ok := arr.(*array.Float32); ok {
		return a.Float32Values(), nil
	}
	n := arr.Len()
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	switch a := arr.(type) {
	case *array.Float64:
		convertInto(dst, a.Float64Values())
	case *array.Int8:
		convertInto(dst, a.Int8Values())
	case *array.Int16:
		convertInto(dst, a.Int16Values())
	case *array.Int32:
		convertInto(dst, a.Int32Values())
	case *array.Int64:
		convertInto(dst, a.Int64Values())
	case *array.Uint8:
		convertInto(dst, a.Uint8Values())
	case *array.Uint16:
		convertInto(dst, a.Uint16Values())
	case *array.Uint32:
		convertInto(dst, a.Uint32Values())
	case *array.Uint64:
		convertInto(dst, a.Uint64Values())
	case *array.Boolean:
		for i := range dst {
			dst[i] = 0
			if a.Value(i) {
				dst[i] = 1
			}
		}
	default:
		return nil, fmt.Errorf("has type %s, not a number", arr.DataType())
	}
	return dst, nil
}

// toFloat64 returns a numeric array's values as float64 (for labels,
// which float32 would round above 2^24).
func toFloat64(arr arrow.Array) ([]float64, error) {
	switch a := arr.(type) {
	case *array.Float64:
		return a.Float64Values(), nil
	case *array.Float32:
		return convert64(a.Float32Values()), nil
	case *array.Int8:
		return convert64(a.Int8Values()), nil
	case *array.Int16:
		return convert64(a.Int16Values()), nil
	case *array.Int32:
		return convert64(a.Int32Values()), nil
	case *array.Int64:
		return convert64(a.Int64Values()), nil
	case *array.Uint8:
		return convert64(a.Uint8Values()), nil
	case *array.Uint16:
		return convert64(a.Uint16Values()), nil
	case *array.Uint32:
		return convert64(a.Uint32Values()), nil
	case *array.Uint64:
		return convert64(a.Uint64Values()), nil
	case *array.Boolean:
		out := make([]float64, a.Len())
		for i := range out {
			if a.Value(i) {
				out[i] = 1
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("has type %s, not a number", arr.DataType())
}

func convert64[T real | ~float32](src []T) []float64 {
	out := make([]float64, len(src))
	for i, v := range src {
		out[i] = float64(v)
	}
	return out
}

type real interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float64
}

func convertInto[T real](dst []float32, src []T) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}
