package scorefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeArrow writes one record of the given columns through pqarrow, as
// pandas and pyarrow write (the Arrow schema stored).
func writeArrow(t *testing.T, path string, fields []arrow.Field, fill func(b *array.RecordBuilder)) {
	t.Helper()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	fill(b)
	rec := b.NewRecordBatch()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, nil, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadParquetTypes: the column types users' tools write — int32 and
// uint8 bits, float32 scores, uint64 and categorical (dictionary) ids,
// large strings — read as the values written; dates, binary, lists and
// categorical scores are refused with the type's Arrow name.
func TestReadParquetTypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.parquet")
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	fields := []arrow.Field{
		{Name: "m32", Type: arrow.PrimitiveTypes.Int32}, {Name: "m8", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "s32", Type: arrow.PrimitiveTypes.Float32}, {Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "cat", Type: dict}, {Name: "big", Type: arrow.BinaryTypes.LargeString},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: "raw", Type: arrow.BinaryTypes.Binary},
		{Name: "vec", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
	}
	writeArrow(t, path, fields, func(b *array.RecordBuilder) {
		for i := range 3 {
			b.Field(0).(*array.Int32Builder).Append(int32(i % 2))
			b.Field(1).(*array.Uint8Builder).Append(uint8(1 - i%2))
			b.Field(2).(*array.Float32Builder).Append(float32(i) + 0.25)
			b.Field(3).(*array.Uint64Builder).Append(1<<63 + uint64(i))
			b.Field(4).(*array.BinaryDictionaryBuilder).AppendString(fmt.Sprintf("user%d", i%2))
			b.Field(5).(*array.LargeStringBuilder).Append(fmt.Sprintf("é%d", i))
			b.Field(6).(*array.Date32Builder).Append(arrow.Date32(i))
			b.Field(7).(*array.BinaryBuilder).Append([]byte{byte(i)})
			lb := b.Field(8).(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Float64Builder).Append(1)
		}
	})
	tb, _, err := Read(path, nil, Columns{Member: "m32", Score: "s32", Run: "u64", User: "cat", Canary: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tb.Member, tb.Score, tb.Run, tb.User, tb.Canary); got != "[false true false] [0.25 1.25 2.25] [9223372036854775808 9223372036854775809 9223372036854775810] [user0 user1 user0] [é0 é1 é2]" {
		t.Errorf("read %s", got)
	}
	if tb, _, err = Read(path, nil, Columns{Member: "m8", Score: "m32"}); err != nil || fmt.Sprint(tb.Member, tb.Score) != "[true false true] [0 1 0]" {
		t.Errorf("uint8 bits, int32 score: %+v, %v", tb, err)
	}
	for _, c := range []struct {
		c    Columns
		want string
	}{
		{Columns{Member: "m32", Score: "cat"}, "column cat (score) has type dictionary<values=utf8, indices=int8, ordered=false>; want a number column"},
		{Columns{Member: "day", Score: "s32"}, "row 1: column day (member): type date32; want bool or 0/1"},
		{Columns{Member: "m32", Score: "s32", User: "raw"}, "column raw (user) has type binary; want an integer or string column"},
		{Columns{Member: "m32", Score: "s32", Run: "day"}, "column day (run) has type date32; want an integer or string column"},
	} {
		if _, _, err := Read(path, nil, c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.c, err, c.want)
		}
	}
	// A list column is not one of the file's flat columns, so it is not
	// found by its name (pqarrow listed it as vec.list.element too).
	if _, _, err := Read(path, nil, Columns{Member: "m32", Score: "vec"}); err == nil || !strings.Contains(err.Error(), `no column "vec"`) {
		t.Errorf("list score: %v", err)
	}
}
