package datasets

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBatch is how many rows are decoded at once. The features go
// straight from each batch into the float32 matrix, so memory beyond the
// matrix is one batch of the selected columns (8192 rows of 784 float64
// columns: 51 MB), never the whole Arrow table.
const parquetBatch = 8192

// readParquet reads the label and feature columns of a Parquet file in
// record batches. A feature column is a number (any integer or float
// type, or bool) or a list or fixed-size list of numbers with the same
// length in every row (an image in one column).
func readParquet(path, label string, features []string) (*table, error) {
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
	cols := append([]int{li}, feats...)
	var leaves []int
	for _, c := range cols {
		leaves = append(leaves, leafColumns(fr.Manifest.Fields[c])...)
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return nil, t.errorf("%v", err)
	}
	defer rr.Release()
	p := &parquetFill{t: t, total: int(rdr.NumRows()), label: names[li]}
	for _, c := range feats {
		p.feats = append(p.feats, names[c])
	}
	for rr.Next() {
		if err := p.batch(rr.RecordBatch()); err != nil {
			return nil, err
		}
	}
	if err := rr.Err(); err != nil {
		return nil, t.errorf("%v", err)
	}
	if t.n == 0 {
		return nil, t.errorf("the file has no rows")
	}
	t.x = t.x[:t.n*t.d]
	return t, nil
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

// parquetFill converts record batches into a table.
type parquetFill struct {
	t      *table
	total  int // rows in the file
	label  string
	feats  []string
	widths []int // values per row of each feature column
	offs   []int // offset of each feature column in a row
	vals   [][]float32
	buf    [][]float32 // conversion scratch per column
}

// batch converts one record batch: labels, then features column by column
// into row-major rows (blocked, so that writes stay in cache).
func (p *parquetFill) batch(rec arrow.RecordBatch) error {
	t := p.t
	n := int(rec.NumRows())
	base := t.n
	labels := rec.Column(rec.Schema().FieldIndices(p.label)[0])
	if err := p.labels(labels, base); err != nil {
		return err
	}
	if p.vals == nil {
		p.vals = make([][]float32, len(p.feats))
		p.buf = make([][]float32, len(p.feats))
	}
	for k, name := range p.feats {
		arr := rec.Column(rec.Schema().FieldIndices(name)[0])
		v, w, err := p.column(k, arr, base)
		if err != nil {
			return err
		}
		p.vals[k] = v
		if p.widths == nil || len(p.widths) <= k {
			p.widths = append(p.widths, w)
		} else if p.widths[k] != w {
			return t.errorf("column %q has %d values per row from row %d on, %d before", name, w, base, p.widths[k])
		}
	}
	if t.x == nil {
		p.layout()
		t.x = make([]float32, 0, p.total*t.d)
	}
	d := t.d
	if (base+n)*d > cap(t.x) {
		return t.errorf("more rows than the %d its metadata declares", p.total)
	}
	t.x = t.x[:(base+n)*d]
	const block = 64
	for r0 := 0; r0 < n; r0 += block {
		r1 := min(r0+block, n)
		for k, v := range p.vals {
			w, off := p.widths[k], p.offs[k]
			for r := r0; r < r1; r++ {
				copy(t.x[(base+r)*d+off:(base+r)*d+off+w], v[r*w:(r+1)*w])
			}
		}
	}
	for i, v := range t.x[base*d:] {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return t.errorf("row %d, %s is %v (features must be finite)", base+i/d, p.featureName(i%d), v)
		}
	}
	t.n += n
	return nil
}

// layout fixes the feature offsets once the first batch gave the widths.
func (p *parquetFill) layout() {
	t := p.t
	p.offs = make([]int, len(p.widths))
	for k, w := range p.widths {
		p.offs[k] = t.d
		t.d += w
		for j := range w {
			if w == 1 {
				t.names = append(t.names, p.feats[k])
			} else {
				t.names = append(t.names, fmt.Sprintf("%s[%d]", p.feats[k], j))
			}
		}
	}
	t.shape = []int{t.d}
}

// featureName names feature j of a row.
func (p *parquetFill) featureName(j int) string {
	return fmt.Sprintf("column %q", p.t.names[j])
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
	if t.y == nil {
		t.y = make([]int32, 0, p.total)
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
// and its width (values per row).
func (p *parquetFill) column(k int, arr arrow.Array, base int) ([]float32, int, error) {
	t, name := p.t, p.feats[k]
	if i := firstNull(arr); i >= 0 {
		return nil, 0, t.errorf("row %d: column %q is null", base+i, name)
	}
	var child arrow.Array
	var offsets func(int) (int64, int64)
	switch a := arr.(type) {
	case *array.List:
		child, offsets = a.ListValues(), a.ValueOffsets
	case *array.FixedSizeList:
		child, offsets = a.ListValues(), a.ValueOffsets
	case *array.LargeList:
		child, offsets = a.ListValues(), a.ValueOffsets
	default:
		v, err := toFloat32(arr, p.buf[k])
		if err != nil {
			return nil, 0, &FieldError{Field: "features", Err: invalidf("%s: column %q %v", t.what, name, err)}
		}
		if _, own := arr.(*array.Float32); !own {
			p.buf[k] = v // reuse the conversion buffer for the next batch
		}
		return v, 1, nil
	}
	if i := firstNull(child); i >= 0 {
		return nil, 0, t.errorf("column %q: value %d of the lists is null", name, i)
	}
	all, err := toFloat32(child, nil)
	if err != nil {
		return nil, 0, &FieldError{Field: "features", Err: invalidf("%s: column %q holds lists whose values %v", t.what, name, err)}
	}
	n := arr.Len()
	if n == 0 {
		return nil, 0, nil
	}
	s0, e0 := offsets(0)
	w := int(e0 - s0)
	out := p.buf[k][:0]
	for i := range n {
		s, e := offsets(i)
		if int(e-s) != w {
			return nil, 0, t.errorf("row %d: column %q holds %d values, row %d holds %d (every row needs the same number)", base+i, name, e-s, base, w)
		}
		out = append(out, all[s:e]...)
	}
	p.buf[k] = out
	return out, w, nil
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
