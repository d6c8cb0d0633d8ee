package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// Reading a subset of columns returns them in the order asked, with the
// same values as a full read; the schema comes from metadata alone.
func TestReadParquetColumns(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.parquet")
	tb := &Table{}
	tb.Add("a", Int64, []any{int64(1), int64(2), nil})
	tb.Add("b", Float64, []any{0.5, nil, 2.5})
	tb.Add("c", String, []any{"x", "y", "z"})
	if err := WriteParquet(p, tb); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquetColumns(p, []string{"c", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Columns) != 2 || got.Columns[0].Name != "c" || got.Columns[1].Name != "a" || got.Rows() != 3 {
		t.Fatalf("got %+v", got.Columns)
	}
	if got.Col("a").Values[2] != nil || got.Col("c").Values[1] != "y" {
		t.Errorf("values %v %v", got.Col("a").Values, got.Col("c").Values)
	}
	if _, err := ReadParquetColumns(p, []string{"nope"}); err == nil {
		t.Error("an unknown column was read")
	}
	sc, err := ParquetSchema(p)
	if err != nil || len(sc) != 3 || sc[1].Name != "b" || sc[1].Type != Float64 || sc[2].Type != String {
		t.Errorf("schema %+v, %v", sc, err)
	}
	// Written with the umask, not 0600.
	probe := filepath.Join(dir, "probe")
	os.WriteFile(probe, nil, 0o666)
	want, _ := os.Stat(probe)
	st, _ := os.Stat(p)
	if st.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("parquet file mode %v, an ordinary file gets %v", st.Mode().Perm(), want.Mode().Perm())
	}
}
