package planfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/attack"
)

// pqarrowPlan writes p the way plans were written through parquet/pqarrow
// (an Arrow record of non-nullable fields, x a list<float32>): the
// reference the writer on parquet/file must match byte for byte, so a plan
// made before and after the change has the same Parquet digest.
func pqarrowPlan(t *testing.T, p *attack.CanaryPlan) []byte {
	t.Helper()
	fields := []arrow.Field{
		{Name: "canary", Type: arrow.PrimitiveTypes.Int64},
		{Name: "member", Type: arrow.FixedWidthTypes.Boolean},
	}
	if p.Records != nil {
		fields = append(fields,
			arrow.Field{Name: "label", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "x", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
			arrow.Field{Name: "source_index", Type: arrow.PrimitiveTypes.Int64})
	} else {
		fields = append(fields, arrow.Field{Name: "coordinate", Type: arrow.PrimitiveTypes.Int64})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	for j, m := range p.Member {
		b.Field(0).(*array.Int64Builder).Append(int64(j))
		b.Field(1).(*array.BooleanBuilder).Append(m)
		if p.Records == nil {
			b.Field(2).(*array.Int64Builder).Append(int64(p.Coordinates[j]))
			continue
		}
		r := p.Records[j]
		b.Field(2).(*array.Int64Builder).Append(int64(r.Y))
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float32Builder).AppendValues(r.X, nil)
		b.Field(4).(*array.Int64Builder).Append(int64(p.Index[j]))
	}
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCreatedBy("dpaudit"))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
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

// TestParquetBytesAsPqarrow: input-canary and gradient-canary plans are
// the bytes pqarrow wrote.
func TestParquetBytesAsPqarrow(t *testing.T) {
	g, err := attack.MakePlan(attack.PlanConfig{Parameters: 1000, Count: 300, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range []*attack.CanaryPlan{noisePlan(t, 1, 3), noisePlan(t, 500, 5), g} {
		path := filepath.Join(t.TempDir(), "p.parquet")
		if _, err := writeParquet(path, p); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := pqarrowPlan(t, p); !sameParquet(got, want) {
			t.Errorf("plan %d: %d bytes, pqarrow %d bytes, not the same", k, len(got), len(want))
		}
	}
}

// sameParquet: the same bytes, up to the order of the encoding statistics
// in the footer, which arrow-go's writer lists in map order (see
// internal/parquetio's tests).
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
