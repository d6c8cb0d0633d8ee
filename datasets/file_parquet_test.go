package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeParquetJSON writes rows given as JSON objects with pqarrow (as
// pandas or pyarrow would write them), rowGroup rows per row group.
func writeParquetJSON(t *testing.T, path string, fields []arrow.Field, rows string, rowGroup int64) {
	t.Helper()
	sc := arrow.NewSchema(fields, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup)), pqarrow.DefaultWriterProps())
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

// Every numeric type, nullable columns without nulls, lists and
// fixed-size lists, over several row groups: each value is float32 of
// the written one (integers beyond 2^24 and unsigned ones above the
// signed range included), the label its integer. (The fixed-size list is
// written in one row group: pqarrow's writer repeats the first group's
// values of a fixed-size list column in every later group.)
func TestParquetTypes(t *testing.T) {
	for _, c := range []struct {
		pair     arrow.DataType
		rowGroup int64
	}{{arrow.ListOf(arrow.PrimitiveTypes.Int16), 7}, {arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16), 100}} {
		checkParquetTypes(t, c.pair, c.rowGroup)
	}
}

func checkParquetTypes(t *testing.T, pair arrow.DataType, rowGroup int64) {
	nullable := func(name string, ty arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: ty, Nullable: true}
	}
	fields := []arrow.Field{
		{Name: "label", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8}, {Name: "i16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32}, {Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8}, {Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32}, {Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32}, nullable("f64", arrow.PrimitiveTypes.Float64),
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		nullable("img", arrow.ListOf(arrow.PrimitiveTypes.Float64)),
		{Name: "pair", Type: pair},
	}
	var rows []string
	var want [][]float32
	var labels []int32
	for i := range 23 {
		k := int64(i)
		i64 := int64(1)<<53 + 1 + k*1000003
		u32 := uint32(1)<<31 + uint32(k)*7
		u64 := uint64(1)<<63 + uint64(k)*1000000007
		f64 := 0.1 * float64(k)
		rows = append(rows, "{"+strings.Join([]string{
			jsonKV("label", k%4), jsonKV("i8", -k), jsonKV("i16", -300*k), jsonKV("i32", -70000*k), jsonKV("i64", i64),
			jsonKV("u8", 200+k), jsonKV("u16", 60000+k), jsonKV("u32", u32), jsonKV("u64", u64),
			jsonKV("f32", float32(k)/3), jsonKV("f64", f64), jsonKV("b", k%2 == 1),
			`"img": [` + jsonNum(f64) + "," + jsonNum(-f64) + "," + jsonNum(1e30*f64) + "]", `"pair": [` + jsonNum(k) + "," + jsonNum(-k) + "]",
		}, ", ")+"}")
		b := float32(0)
		if k%2 == 1 {
			b = 1
		}
		want = append(want, []float32{float32(-k), float32(-300 * k), float32(-70000 * k), float32(i64),
			float32(200 + k), float32(60000 + k), float32(u32), float32(u64),
			float32(k) / 3, float32(f64), b, float32(f64), float32(-f64), float32(1e30 * f64), float32(k), float32(-k)})
		labels = append(labels, int32(k%4))
	}
	path := filepath.Join(t.TempDir(), "types.parquet")
	writeParquetJSON(t, path, fields, "["+strings.Join(rows, ",\n")+"]", rowGroup)
	tab, err := readParquet(path, "label", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 b img[0] img[1] img[2] pair[0] pair[1]"
	if got := strings.Join(tab.names, " "); got != wantNames {
		t.Fatalf("names %q, want %q", got, wantNames)
	}
	if tab.n != len(want) || tab.d != len(want[0]) {
		t.Fatalf("%d×%d, want %d×%d", tab.n, tab.d, len(want), len(want[0]))
	}
	for i, row := range want {
		if tab.y[i] != labels[i] {
			t.Errorf("row %d: label %d, want %d", i, tab.y[i], labels[i])
		}
		for j, v := range row {
			if got := tab.x[i*tab.d+j]; math.Float32bits(got) != math.Float32bits(v) {
				t.Errorf("row %d, %s: %v, want %v", i, tab.names[j], got, v)
			}
		}
	}
}

func jsonKV(k string, v any) string { return `"` + k + `": ` + jsonNum(v) }

func jsonNum(v any) string {
	switch x := v.(type) {
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// Nulls where values are needed, lists of other lengths, and columns that
// are not numbers: each a message naming the file row and column.
func TestParquetRefusals(t *testing.T) {
	f64 := arrow.PrimitiveTypes.Float64
	list := arrow.ListOf(f64)
	for _, tc := range []struct {
		fields []arrow.Field
		rows   string
		want   string
	}{
		{[]arrow.Field{{Name: "label", Type: f64, Nullable: true}, {Name: "f", Type: f64}},
			`[{"label": 1, "f": 1}, {"label": null, "f": 2}]`, `row 1: the label column "label" is null`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "f", Type: f64, Nullable: true}},
			`[{"label": 1, "f": 1}, {"label": 0, "f": 1}, {"label": 0, "f": 1}, {"label": 0, "f": null}]`, `row 3: column "f" is null`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "img", Type: list, Nullable: true}},
			`[{"label": 1, "img": [1, 2]}, {"label": 0, "img": [1, 2]}, {"label": 0, "img": null}]`, `row 2: column "img" is null`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "img", Type: list, Nullable: true}},
			`[{"label": 1, "img": null}, {"label": 0, "img": [1, 2]}]`, `row 0: column "img" is null`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "img", Type: list}},
			`[{"label": 1, "img": [1, 2]}, {"label": 0, "img": [3, null]}]`, `column "img": value 3 of the lists is null`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "img", Type: list}},
			`[{"label": 1, "img": [1, 2]}, {"label": 0, "img": [1, 2]}, {"label": 0, "img": [1, 2, 3]}]`, `row 2: column "img" holds 3 values, row 0 holds 2`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "img", Type: list}},
			`[{"label": 1, "img": [1, 2]}, {"label": 0, "img": []}, {"label": 0, "img": [1, 2]}]`, `row 1: column "img" holds 0 values, row 0 holds 2`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "s", Type: arrow.BinaryTypes.String}},
			`[{"label": 1, "s": "a"}]`, `column "s" has type String, not a number or a list of numbers`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: f64}, arrow.Field{Name: "b", Type: f64})}},
			`[{"label": 1, "st": {"a": 1, "b": 2}}]`, `column "st" has type group, not a number`},
		{[]arrow.Field{{Name: "label", Type: arrow.BinaryTypes.String}, {Name: "f", Type: f64}},
			`[{"label": "cat", "f": 1}]`, `the label column "label" has type String; labels are class ids`},
		{[]arrow.Field{{Name: "label", Type: f64}, {Name: "f", Type: f64}},
			`[{"label": 1.5, "f": 1}]`, `row 0: the label 1.5 is not an integer class id`},
	} {
		path := filepath.Join(t.TempDir(), "bad.parquet")
		writeParquetJSON(t, path, tc.fields, tc.rows, 2)
		_, err := readParquet(path, "label", nil, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadInput(err) {
			t.Errorf("%s: got %v, want %q", tc.rows, err, tc.want)
		}
	}
}
