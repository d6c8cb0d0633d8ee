package datasets

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/rng"
)

// The large-file measurement (scripts/bench-parquet-load.sh) writes and
// loads a Parquet data set of DPAUDIT_BIG_ROWS rows (default 320,000) ×
// 784 float32 features plus an int64 label: uniform noise, so that it does
// not compress and the file is 1.0 GB. Both tests skip unless
// DPAUDIT_BIG_PARQUET names the file.

func bigParquetPath(t *testing.T) string {
	p := os.Getenv("DPAUDIT_BIG_PARQUET")
	if p == "" {
		t.Skip("set DPAUDIT_BIG_PARQUET to the file (scripts/bench-parquet-load.sh)")
	}
	return p
}

func TestWriteBigParquet(t *testing.T) {
	path := bigParquetPath(t)
	rows := 320000
	if s := os.Getenv("DPAUDIT_BIG_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	const d, group = 784, 65536
	fields := []arrow.Field{{Name: "label", Type: arrow.PrimitiveTypes.Int64}}
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("px%d", j), Type: arrow.PrimitiveTypes.Float32})
	}
	sc := arrow.NewSchema(fields, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(group))
	w, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(1, "datasets", "big-parquet")
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for lo := 0; lo < rows; lo += group {
		n := min(group, rows-lo)
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r.IntN(10)))
		}
		for j := range d {
			fb := b.Field(1 + j).(*array.Float32Builder)
			for i := 0; i < n; i++ {
				fb.Append(r.Float32())
			}
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	t.Logf("%s: %d rows × %d features, %.3f GB", path, rows, d, float64(st.Size())/1e9)
}

// TestLoadBigParquet loads the file as dpaudit trains on it (test fraction
// 0.2, no digest check: that is `dpaudit validate`'s share).
func TestLoadBigParquet(t *testing.T) {
	path := bigParquetPath(t)
	s, err := Load(Source{Name: SourceFile, File: &FileSource{Format: FormatParquet, Train: FileRef{Path: path}, Label: "label"}}, Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("loaded %d train + %d test rows × %d features\n", s.Train.N, s.Test.N, s.Train.D)
}
