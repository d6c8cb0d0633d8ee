package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqarrowBytes writes t the way WriteParquet did through parquet/pqarrow
// (Arrow record, pqarrow.NewFileWriter with the stored schema): the
// reference that the writer on parquet/file must match byte for byte.
func pqarrowBytes(t *testing.T, tb *Table) []byte {
	t.Helper()
	fields := make([]arrow.Field, len(tb.Columns))
	for i, c := range tb.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.arrow(), Nullable: true}
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for i, c := range tb.Columns {
		fb := b.Field(i)
		for _, v := range c.Values {
			switch x := v.(type) {
			case nil:
				fb.AppendNull()
			case float64:
				fb.(*array.Float64Builder).Append(x)
			case int64:
				fb.(*array.Int64Builder).Append(x)
			case string:
				fb.(*array.StringBuilder).Append(x)
			case bool:
				fb.(*array.BooleanBuilder).Append(x)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCreatedBy("dpaudit"))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
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

// randomTable has one column of each type per null fraction (none, some,
// all), rows rows.
func randomTable(rows int, seed uint64) *Table {
	r := rand.New(rand.NewPCG(seed, 1))
	tb := &Table{}
	for _, nullFrac := range []float64{0, 0.1, 1} {
		for _, typ := range []ColType{Float64, Int64, String, Bool} {
			vals := make([]any, rows)
			for i := range vals {
				if r.Float64() < nullFrac {
					continue
				}
				switch typ {
				case Float64:
					vals[i] = []float64{r.NormFloat64(), math.Inf(1), math.NaN(), 0, -1e300}[r.IntN(5)]
				case Int64:
					vals[i] = int64(r.Uint64())
				case String:
					vals[i] = strings.Repeat("é", r.IntN(4)) + fmt.Sprint(r.IntN(1000))
				case Bool:
					vals[i] = r.IntN(2) == 1
				}
			}
			tb.Columns = append(tb.Columns, &Column{Name: fmt.Sprintf("%s_%g", typ, nullFrac), Type: typ, Values: vals})
		}
	}
	return tb
}

// TestParquetBytesAsPqarrow: the parquet/file writer writes the bytes
// pqarrow wrote (files in the store and in results stay identical across
// the change), for empty, small and multi-page tables.
func TestParquetBytesAsPqarrow(t *testing.T) {
	for _, rows := range []int{0, 1, 7, 1000, 150000} {
		tb := randomTable(rows, uint64(rows))
		var got bytes.Buffer
		if err := writeParquet(&got, tb); err != nil {
			t.Fatal(err)
		}
		if want := pqarrowBytes(t, tb); !sameParquet(got.Bytes(), want) {
			t.Fatalf("%d rows: %d bytes, pqarrow %d bytes, not the same", rows, got.Len(), len(want))
		}
	}
}

// sameParquet: the same bytes, except that arrow-go's writer lists a
// column chunk's encoding statistics in map order, so between any two runs
// of either writer that list may be permuted (a column whose dictionary
// overflowed has two entries): everything before the footer must be equal
// byte for byte, and the footer the same bytes up to that permutation (the
// same length and the same multiset of bytes).
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

// TestParquetReadsAsPqarrow: reading gives back every value (nulls, NaN,
// strings), all columns or a subset in the asked order, and refuses the
// types pqarrow's reader mapped to Arrow types dpaudit does not use.
func TestParquetReadsAsPqarrow(t *testing.T) {
	dir := t.TempDir()
	tb := randomTable(20000, 3)
	path := filepath.Join(dir, "t.parquet")
	if err := WriteParquet(path, tb); err != nil {
		t.Fatal(err)
	}
	back, err := ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, back, tb)
	sub, err := ReadParquetColumns(path, []string{"string_0.1", "float64_0"})
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, sub, &Table{Columns: []*Column{tb.Col("string_0.1"), tb.Col("float64_0")}})
	if _, err := ReadParquetColumns(path, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("missing column: %v", err)
	}
	cols, err := ParquetSchema(path)
	if err != nil || len(cols) != len(tb.Columns) || cols[5].Name != tb.Columns[5].Name || cols[5].Type != tb.Columns[5].Type {
		t.Fatalf("schema: %v %v", cols, err)
	}

	// An int32 column (what pandas writes for int32) is refused by name.
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	b.Field(0).(*array.Int32Builder).Append(3)
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	bad := filepath.Join(dir, "int32.parquet")
	if err := os.WriteFile(bad, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() error{
		func() error { _, err := ReadParquet(bad); return err },
		func() error { _, err := ParquetSchema(bad); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "column k has unsupported type") {
			t.Errorf("int32 column: %v", err)
		}
	}
}

func sameTable(t *testing.T, got, want *Table) {
	t.Helper()
	if len(got.Columns) != len(want.Columns) {
		t.Fatalf("%d columns, want %d", len(got.Columns), len(want.Columns))
	}
	for i, c := range want.Columns {
		g := got.Columns[i]
		if g.Name != c.Name || g.Type != c.Type || len(g.Values) != len(c.Values) {
			t.Fatalf("column %d: %s %s %d rows, want %s %s %d", i, g.Name, g.Type, len(g.Values), c.Name, c.Type, len(c.Values))
		}
		for j, v := range c.Values {
			w, ok := v.(float64)
			if gv, gok := g.Values[j].(float64); ok && gok && math.Float64bits(gv) == math.Float64bits(w) {
				continue
			}
			if g.Values[j] != v {
				t.Fatalf("column %s row %d: %v, want %v", c.Name, j, g.Values[j], v)
			}
		}
	}
}

// arrow is the Arrow type pqarrow wrote for a column of type t.
func (t ColType) arrow() arrow.DataType {
	switch t {
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case String:
		return arrow.BinaryTypes.String
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.PrimitiveTypes.Float64
}
