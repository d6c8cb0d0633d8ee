package parquetio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqarrowWrite writes rec as dpaudit wrote tables and plans through
// parquet/pqarrow (zstd, created by dpaudit, the Arrow schema stored).
func pqarrowWrite(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties) []byte {
	t.Helper()
	if props == nil {
		props = parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCreatedBy("dpaudit"))
	}
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameParquet: the same bytes, except that arrow-go's writer lists a
// column chunk's encoding statistics in map order, so between any two runs
// of either writer that list may be permuted: everything before the footer
// must be equal byte for byte, and the footer the same bytes up to that
// permutation (the same length and the same multiset of bytes).
func sameParquet(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) != len(b) || len(a) < 12 {
		return false
	}
	foot := int(binary.LittleEndian.Uint32(a[len(a)-8:])) + 8
	if foot > len(a) || !bytes.Equal(a[:len(a)-foot], b[:len(b)-foot]) {
		return false
	}
	fa, fb := append([]byte(nil), a[len(a)-foot:]...), append([]byte(nil), b[len(b)-foot:]...)
	slices.Sort(fa)
	slices.Sort(fb)
	return bytes.Equal(fa, fb)
}

// planLike has a canary plan's shape: required int64 and bool columns
// and a required list<float32> (some lists empty when empties).
func planLike(rows, width int, empties bool, seed uint64) ([]Column, arrow.RecordBatch) {
	r := rand.New(rand.NewPCG(seed, 2))
	ids, bits, lists := make([]int64, rows), make([]bool, rows), make([][]float32, rows)
	for i := range ids {
		ids[i], bits[i] = r.Int64()-r.Int64(), r.IntN(2) == 1
		n := width
		if empties && r.IntN(4) == 0 {
			n = 0
		}
		for range n {
			lists[i] = append(lists[i], float32(r.NormFloat64()))
		}
	}
	cols := []Column{
		{Name: "canary", Type: Int64, Required: true, Ints: ids},
		{Name: "member", Type: Bool, Required: true, Bools: bits},
		{Name: "x", Type: Float32List, Required: true, Lists: lists},
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "canary", Type: arrow.PrimitiveTypes.Int64},
		{Name: "member", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "x", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.BooleanBuilder).AppendValues(bits, nil)
	lb := b.Field(2).(*array.ListBuilder)
	for _, l := range lists {
		lb.Append(true)
		lb.ValueBuilder().(*array.Float32Builder).AppendValues(l, nil)
	}
	return cols, b.NewRecordBatch()
}

// TestWriteAsPqarrow: required columns and lists of float32 are the
// bytes pqarrow wrote (empty, small and multi-page; empty lists too).
// Flat nullable columns are checked the same way by pipeline's tests.
func TestWriteAsPqarrow(t *testing.T) {
	for _, c := range []struct {
		rows, width int
		empties     bool
	}{{0, 3, false}, {1, 1, false}, {7, 5, true}, {300, 784, false}, {5000, 20, true}} {
		cols, rec := planLike(c.rows, c.width, c.empties, uint64(c.rows))
		var got bytes.Buffer
		if err := Write(&got, cols); err != nil {
			t.Fatal(err)
		}
		if want := pqarrowWrite(t, rec, nil); !sameParquet(got.Bytes(), want) {
			t.Errorf("%+v: %d bytes, pqarrow %d bytes, not the same", c, got.Len(), len(want))
		}
	}
	bad := []Column{{Name: "x", Type: Float32List, Lists: [][]float32{{1}}}}
	if err := Write(&bytes.Buffer{}, bad); err == nil || !strings.Contains(err.Error(), "only required lists") {
		t.Errorf("optional list: %v", err)
	}
}

// readCase is one column written through pqarrow with its Arrow type, the
// values pqarrow's reader gave back as text, and the type name it gave.
type readCase struct {
	field arrow.Field
	fill  func(b array.Builder, i int) // appends row i
}

func readCases() []readCase {
	null := func(i int) bool { return i%5 == 3 }
	num := func(i int) int64 { return int64(i*7919%2001 - 1000) }
	mk := func(at arrow.DataType, app func(b array.Builder, i int)) readCase {
		return readCase{arrow.Field{Name: at.String(), Type: at, Nullable: true}, func(b array.Builder, i int) {
			if null(i) {
				b.AppendNull()
			} else {
				app(b, i)
			}
		}}
	}
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	return []readCase{
		mk(arrow.FixedWidthTypes.Boolean, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(i%3 == 0) }),
		mk(arrow.PrimitiveTypes.Int8, func(b array.Builder, i int) { b.(*array.Int8Builder).Append(int8(num(i) / 8)) }),
		mk(arrow.PrimitiveTypes.Int16, func(b array.Builder, i int) { b.(*array.Int16Builder).Append(int16(num(i))) }),
		mk(arrow.PrimitiveTypes.Int32, func(b array.Builder, i int) { b.(*array.Int32Builder).Append(int32(num(i)) << 20) }),
		mk(arrow.PrimitiveTypes.Int64, func(b array.Builder, i int) { b.(*array.Int64Builder).Append(num(i) << 50) }),
		mk(arrow.PrimitiveTypes.Uint8, func(b array.Builder, i int) { b.(*array.Uint8Builder).Append(uint8(i)) }),
		mk(arrow.PrimitiveTypes.Uint16, func(b array.Builder, i int) { b.(*array.Uint16Builder).Append(uint16(i * 31)) }),
		mk(arrow.PrimitiveTypes.Uint32, func(b array.Builder, i int) { b.(*array.Uint32Builder).Append(math.MaxUint32 - uint32(i)) }),
		mk(arrow.PrimitiveTypes.Uint64, func(b array.Builder, i int) { b.(*array.Uint64Builder).Append(math.MaxUint64 - uint64(i)) }),
		mk(arrow.PrimitiveTypes.Float32, func(b array.Builder, i int) { b.(*array.Float32Builder).Append(float32(num(i)) / 3) }),
		mk(arrow.PrimitiveTypes.Float64, func(b array.Builder, i int) { b.(*array.Float64Builder).Append(float64(num(i)) / 3) }),
		mk(arrow.BinaryTypes.String, func(b array.Builder, i int) { b.(*array.StringBuilder).Append("u" + strconv.Itoa(i%17)) }),
		mk(arrow.BinaryTypes.LargeString, func(b array.Builder, i int) { b.(*array.LargeStringBuilder).Append("é" + strconv.Itoa(i)) }),
		mk(dictType, func(b array.Builder, i int) {
			b.(*array.BinaryDictionaryBuilder).AppendString("cat" + strconv.Itoa(i%3))
		}),
		mk(arrow.FixedWidthTypes.Date32, func(b array.Builder, i int) { b.(*array.Date32Builder).Append(arrow.Date32(i)) }),
		mk(arrow.BinaryTypes.Binary, func(b array.Builder, i int) { b.(*array.BinaryBuilder).Append([]byte{byte(i)}) }),
	}
}

// text is element i of an Arrow array as this package's Column gives it.
func text(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	if d, ok := a.(*array.Dictionary); ok {
		return text(d.Dictionary(), d.GetValueIndex(i))
	}
	if f, ok := a.(*array.Float32); ok {
		return fmt.Sprint(float64(f.Value(i)))
	}
	return a.ValueStr(i)
}

func (c *Column) text(i int) string {
	switch {
	case c.Valid != nil && !c.Valid[i]:
		return "null"
	case c.Type == Bool:
		return fmt.Sprint(c.Bools[i])
	case c.Type == Uint64:
		return strconv.FormatUint(uint64(c.Ints[i]), 10)
	case c.Ints != nil:
		return strconv.FormatInt(c.Ints[i], 10)
	case c.Floats != nil:
		return fmt.Sprint(c.Floats[i])
	}
	return c.Strings[i]
}

// TestReadAsPqarrow: every flat column type pqarrow wrote (with and
// without the stored Arrow schema, nulls in each) reads back as pqarrow's
// reader read it: the same values, the same type name, the same
// dictionary flag; types outside the flat ones are Unsupported, named as
// pqarrow named them.
func TestReadAsPqarrow(t *testing.T) {
	cases := readCases()
	fields := make([]arrow.Field, len(cases))
	for k, c := range cases {
		fields[k] = c.field
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	const rows = 9000 // a few pages and batches
	for i := range rows {
		for k, c := range cases {
			c.fill(b.Field(k), i)
		}
	}
	rec := b.NewRecordBatch()
	for _, stored := range []bool{true, false} {
		arrowProps := pqarrow.NewArrowWriterProperties()
		if stored {
			arrowProps = pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
		}
		var buf bytes.Buffer
		w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(parquet.WithDataPageSize(4096)), arrowProps)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		w.Close()
		path := filepath.Join(t.TempDir(), "f.parquet")
		os.WriteFile(path, buf.Bytes(), 0o644)
		want := pqarrowRead(t, path)
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range cases {
			got, err := f.Read(f.Index(c.field.Name))
			wa := want.Column(k).Data().Chunks()[0]
			if err != nil {
				t.Fatalf("stored %v, %s: %v", stored, c.field.Name, err)
			}
			_, isDict := wa.(*array.Dictionary)
			if got.TypeName != wa.DataType().String() || got.Dictionary != isDict || got.Len() != rows {
				t.Errorf("stored %v, %s: type %q dictionary %v rows %d, pqarrow %q %v", stored, c.field.Name, got.TypeName, got.Dictionary, got.Len(), wa.DataType(), isDict)
			}
			if got.Type == Unsupported {
				continue // read as physical values, for the caller to refuse
			}
			for i := range rows {
				if g, w := got.text(i), text(wa, i); g != w {
					t.Fatalf("stored %v, %s row %d: %s, pqarrow %s", stored, c.field.Name, i, g, w)
				}
			}
		}
		f.Close()
	}
}

func pqarrowRead(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(t.Context(), f, nil, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
