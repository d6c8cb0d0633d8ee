package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/internal/npy"
)

// toyRows is a small labelled table: row i has features (i, i/2, −i) and
// label i mod 3.
func toyRows(n int) (x [][]float32, y []int) {
	for i := range n {
		x = append(x, []float32{float32(i), float32(i) / 2, -float32(i)})
		y = append(y, i%3)
	}
	return x, y
}

func writeCSV(t *testing.T, path string, header string, x [][]float32, y []int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range x {
		fmt.Fprintf(&b, "%d", y[i])
		for _, v := range x[i] {
			fmt.Fprintf(&b, ",%v", v)
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeParquet writes label (int64) then features as float32 columns
// named f0, f1, … (or one fixed-size-list column "pixels" when asList).
func writeParquet(t testing.TB, path string, x [][]float32, y []int, asList bool) {
	t.Helper()
	d := len(x[0])
	fields := []arrow.Field{{Name: "label", Type: arrow.PrimitiveTypes.Int64}}
	if asList {
		fields = append(fields, arrow.Field{Name: "pixels", Type: arrow.FixedSizeListOf(int32(d), arrow.PrimitiveTypes.Float32)})
	} else {
		for j := range d {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float32})
		}
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range x {
		b.Field(0).(*array.Int64Builder).Append(int64(y[i]))
		if asList {
			lb := b.Field(1).(*array.FixedSizeListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Float32Builder).AppendValues(x[i], nil)
		} else {
			for j, v := range x[i] {
				b.Field(1 + j).(*array.Float32Builder).Append(v)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(5000))
	w, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
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

func loadFile(t *testing.T, f *FileSource, o Options) (*Split, error) {
	t.Helper()
	return Load(Source{Name: SourceFile, File: f}, o, "")
}

// The same rows as CSV, Parquet (one column per feature, and one list
// column), .npz and .npy load to identical splits; the split is stratified
// (20% of each class) and keeps file order within each part.
func TestFileFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	x, y := toyRows(100)
	writeCSV(t, filepath.Join(dir, "d.csv"), "label,a,b,c", x, y)
	writeParquet(t, filepath.Join(dir, "d.parquet"), x, y, false)
	writeParquet(t, filepath.Join(dir, "l.parquet"), x, y, true)
	flat := slices.Concat(x...)
	labels := make([]int64, len(y))
	for i, v := range y {
		labels[i] = int64(v)
	}
	npy.WriteFile(filepath.Join(dir, "x.npy"), []int{100, 3}, flat)
	npy.WriteFile(filepath.Join(dir, "y.npy"), []int{100}, labels)
	zf, _ := os.Create(filepath.Join(dir, "d.npz"))
	z := npy.NewNPZWriter(zf)
	npy.WriteNPZ(z, "x", []int{100, 3}, flat)
	npy.WriteNPZ(z, "y", []int{100}, labels)
	z.Close()
	zf.Close()

	sources := map[string]*FileSource{
		"csv":          {Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "d.csv")}, Label: "label"},
		"parquet":      {Format: FormatParquet, Train: FileRef{Path: filepath.Join(dir, "d.parquet")}, Label: "label", Features: []string{"f*"}},
		"parquet-list": {Format: FormatParquet, Train: FileRef{Path: filepath.Join(dir, "l.parquet")}, Label: "label"},
		"npy":          {Format: FormatNPY, Train: FileRef{Path: filepath.Join(dir, "x.npy")}, Labels: &FileRef{Path: filepath.Join(dir, "y.npy")}},
		"npz":          {Format: FormatNPZ, Train: FileRef{Path: filepath.Join(dir, "d.npz")}, Label: "y"},
	}
	var ref *Split
	for _, name := range []string{"csv", "parquet", "parquet-list", "npy", "npz"} {
		s, err := loadFile(t, sources[name], Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Train.N != 79 || s.Test.N != 21 || s.Train.Classes != 3 || !slices.Equal(s.Train.Shape, []int{3}) {
			t.Fatalf("%s: %d train, %d test, %d classes, shape %v", name, s.Train.N, s.Test.N, s.Train.Classes, s.Train.Shape)
		}
		if ref == nil {
			ref = s
			continue
		}
		if !slices.Equal(s.Train.X, ref.Train.X) || !slices.Equal(s.Train.Y, ref.Train.Y) ||
			!slices.Equal(s.Test.X, ref.Test.X) || !slices.Equal(s.Test.Y, ref.Test.Y) {
			t.Fatalf("%s differs from csv", name)
		}
	}
	// Stratified: 20% of each class (34, 33, 33 rows → 7, 7, 7 test rows,
	// rounding 6.8 and 6.6 up), in file order within each part.
	if c := ref.Test.ClassCounts(); !slices.Equal(c, []int{7, 7, 7}) {
		t.Errorf("test class counts %v", c)
	}
	for _, ds := range []*Dataset{ref.Train, ref.Test} {
		for i := 1; i < ds.N; i++ {
			if ds.Row(i)[0] <= ds.Row(i - 1)[0] {
				t.Fatalf("rows out of file order at %d", i)
			}
		}
		for i := range ds.N {
			r := ds.Row(i)
			if r[1] != r[0]/2 || r[2] != -r[0] || int(ds.Y[i]) != int(r[0])%3 {
				t.Fatalf("row %d = %v label %d: features and label came apart", i, r, ds.Y[i])
			}
		}
	}
}

// A wide Parquet file is read a group of columns at a time, with the test
// rows placed while reading: the same split as the CSV of the same rows.
func TestParquetWide(t *testing.T) {
	dir := t.TempDir()
	// Groups of 16 columns of 300 rows: 60 columns take 4 passes.
	defer func(b int) { parquetGroupBytes = b }(parquetGroupBytes)
	parquetGroupBytes = 300 * 4 * 16
	const n, d = 300, 60
	var x [][]float32
	var y []int
	header := "label"
	for j := range d {
		header += fmt.Sprintf(",f%d", j)
	}
	for i := range n {
		row := make([]float32, d)
		for j := range row {
			row[j] = float32(i*1000 + j)
		}
		x, y = append(x, row), append(y, (i*7)%5)
	}
	writeCSV(t, filepath.Join(dir, "w.csv"), header, x, y)
	writeParquet(t, filepath.Join(dir, "w.parquet"), x, y, false)
	a, err := loadFile(t, &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "w.csv")}, Label: "label", TestFraction: 0.3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadFile(t, &FileSource{Format: FormatParquet, Train: FileRef{Path: filepath.Join(dir, "w.parquet")}, Label: "label", TestFraction: 0.3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Train.X, b.Train.X) || !slices.Equal(a.Train.Y, b.Train.Y) || !slices.Equal(a.Test.X, b.Test.X) || !slices.Equal(a.Test.Y, b.Test.Y) {
		t.Fatal("wide parquet and csv differ")
	}
	if a.Test.N != 90 || a.Train.D != d {
		t.Fatalf("%d test rows, %d features", a.Test.N, a.Train.D)
	}
}

// A Parquet file read in several record batches and row groups, with a
// class filter and a subsample, equals the same rows read from CSV; float64
// feature columns are rounded once to float32.
func TestParquetBatches(t *testing.T) {
	dir := t.TempDir()
	x, y := toyRows(parquetBatch*2 + 123)
	writeCSV(t, filepath.Join(dir, "d.csv"), "label,f0,f1,f2", x, y)
	writeParquet(t, filepath.Join(dir, "d.parquet"), x, y, false)
	o := Options{Classes: []int{2, 0}, TrainSize: 3000, TestSize: 500, Seed: 7}
	a, err := loadFile(t, &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "d.csv")}, Label: "label"}, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadFile(t, &FileSource{Format: FormatParquet, Train: FileRef{Path: filepath.Join(dir, "d.parquet")}, Label: "label"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Train.X, b.Train.X) || !slices.Equal(a.Train.Y, b.Train.Y) || !slices.Equal(a.Test.X, b.Test.X) {
		t.Fatal("parquet and csv differ")
	}
	if a.Train.N != 3000 || a.Train.Classes != 2 {
		t.Fatalf("%d rows, %d classes", a.Train.N, a.Train.Classes)
	}
}

// Images: a .npz of uint8 (N, H, W) loads as [1, H, W], divided by
// max_value under the default normalisation; a shape that does not match
// is refused.
func TestNPZImages(t *testing.T) {
	dir := t.TempDir()
	n, h, w := 40, 4, 5
	px := make([]uint8, n*h*w)
	for i := range px {
		px[i] = uint8(i % 256)
	}
	lab := make([]uint8, n)
	for i := range lab {
		lab[i] = uint8(i % 2)
	}
	p := filepath.Join(dir, "img.npz")
	zf, _ := os.Create(p)
	z := npy.NewNPZWriter(zf)
	npy.WriteNPZ(z, "images", []int{n, h, w}, px)
	npy.WriteNPZ(z, "labels", []int{n}, lab)
	z.Close()
	zf.Close()
	f := &FileSource{Format: FormatNPZ, Train: FileRef{Path: p}, Label: "labels", MaxValue: 255}
	s, err := loadFile(t, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Train.Shape, []int{1, 4, 5}) || s.Train.N+s.Test.N != n {
		t.Fatalf("shape %v, %d+%d", s.Train.Shape, s.Train.N, s.Test.N)
	}
	if got, want := s.Train.X[1], float32(1.0/255); got != want {
		t.Fatalf("pixel 1 = %v, want %v", got, want)
	}
	f.Shape = []int{2, 2, 5}
	if s, err := loadFile(t, f, Options{}); err != nil || !slices.Equal(s.Train.Shape, []int{2, 2, 5}) {
		t.Fatalf("reshape: %v", err)
	}
	f.Shape = []int{1, 5, 5}
	_, err = loadFile(t, f, Options{})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "shape" || !strings.Contains(err.Error(), "shape [1, 5, 5] holds 25 values per example, but img.npz:images has 20") {
		t.Fatalf("shape mismatch: %v", err)
	}
}

// A separate test file is the test split, whole.
func TestFileTestPath(t *testing.T) {
	dir := t.TempDir()
	x, y := toyRows(30)
	writeCSV(t, filepath.Join(dir, "train.csv"), "label,a,b,c", x[:20], y[:20])
	writeCSV(t, filepath.Join(dir, "test.csv"), "label,a,b,c", x[20:], y[20:])
	s, err := loadFile(t, &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "train.csv")},
		Test: &FileRef{Path: filepath.Join(dir, "test.csv")}, Label: "label"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 20 || s.Test.N != 10 || s.Test.X[0] != 20 {
		t.Fatalf("%d/%d, first test value %v", s.Train.N, s.Test.N, s.Test.X[0])
	}
	writeCSV(t, filepath.Join(dir, "test.csv"), "label,a,c,b", x[20:], y[20:])
	_, err = loadFile(t, &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "train.csv")},
		Test: &FileRef{Path: filepath.Join(dir, "test.csv")}, Label: "label"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `test.csv: feature 1 is column "c", in train.csv it is "b"`) {
		t.Fatalf("mismatched columns: %v", err)
	}
}

// Bad input: each error names the column or row and is bad input (exit
// code 2).
func TestFileBadInput(t *testing.T) {
	dir := t.TempDir()
	csvFile := func(name, text string) *FileSource {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return &FileSource{Format: FormatCSV, Train: FileRef{Path: p}, Label: "label"}
	}
	good := "label,a,b\n0,1,2\n1,3,4\n0,5,6\n1,7,8\n0,9,10\n"
	for _, tc := range []struct {
		name  string
		f     *FileSource
		field string
		want  string
	}{
		{"misspelt label", func() *FileSource { f := csvFile("a.csv", good); f.Label = "lable"; return f }(), "label",
			`a.csv has no label column "lable" (did you mean "label"?); its columns are "label", "a", "b"`},
		{"missing feature", func() *FileSource { f := csvFile("b.csv", good); f.Features = []string{"a", "c"}; return f }(), "features",
			`b.csv has no feature column "c"`},
		{"pattern", func() *FileSource { f := csvFile("c.csv", good); f.Features = []string{"px_*"}; return f }(), "features",
			`pattern "px_*" matches no column`},
		{"label as feature", func() *FileSource { f := csvFile("d.csv", good); f.Features = []string{"label"}; return f }(), "features",
			`"label" is the label column`},
		{"non-numeric", csvFile("e.csv", "label,a,b\n0,1,2\n1,3,x4\n"), "",
			`e.csv: row 1 (line 3), column "b": "x4" is not a number`},
		{"NaN feature", csvFile("f.csv", "label,a,b\n0,1,2\n1,NaN,4\n"), "",
			`f.csv: row 1 (line 3), column "a": the value is NaN`},
		{"NaN label", csvFile("g.csv", "label,a,b\n0,1,2\nNaN,3,4\n"), "",
			`g.csv: row 1 (line 3): the label is NaN`},
		{"fractional label", csvFile("h.csv", "label,a,b\n0.5,1,2\n"), "",
			`h.csv: row 0 (line 2): the label 0.5 is not an integer class id`},
		{"negative label", csvFile("i.csv", "label,a,b\n-1,1,2\n"), "",
			`the label -1 is negative`},
		{"ragged", csvFile("j.csv", "label,a,b\n0,1,2\n1,3\n"), "",
			`j.csv: row 1 (line 3) has 2 fields, the header has 3`},
		{"empty", csvFile("k.csv", ""), "", `k.csv: the file is empty`},
		{"no rows", csvFile("l.csv", "label,a\n"), "", `l.csv: no rows after the header`},
		{"missing file", &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "nope.csv")}, Label: "label"}, "path",
			`nope.csv does not exist`},
		{"one class left", csvFile("m.csv", "label,a\n0,1\n"), "", `test fraction 0.2 leaves 1 train and 0 test rows`},
	} {
		_, err := loadFile(t, tc.f, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadInput(err) {
			t.Errorf("%s: err %v\nwant %q (bad input)", tc.name, err, tc.want)
			continue
		}
		var fe *FieldError
		if tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
			t.Errorf("%s: field %v, want %q", tc.name, fe, tc.field)
		}
	}
}

func TestParquetBadInput(t *testing.T) {
	dir := t.TempDir()
	x, y := toyRows(10)
	x[6][2] = float32(math.NaN())
	x[9][0] = float32(math.Inf(1)) // a later row: the error names row 6, the first in the file
	p := filepath.Join(dir, "nan.parquet")
	writeParquet(t, p, x, y, false)
	_, err := loadFile(t, &FileSource{Format: FormatParquet, Train: FileRef{Path: p}, Label: "label"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `nan.parquet: row 6, column "f2" is NaN`) || !IsBadInput(err) {
		t.Fatalf("NaN: %v", err)
	}
	_, err = loadFile(t, &FileSource{Format: FormatParquet, Train: FileRef{Path: p}, Label: "lbl"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `nan.parquet has no label column "lbl" (did you mean "label"?); its columns are "label", "f0", "f1", "f2"`) {
		t.Fatalf("missing column: %v", err)
	}
	os.WriteFile(p, []byte("label,a\n0,1\n"), 0o644)
	_, err = loadFile(t, &FileSource{Format: FormatParquet, Train: FileRef{Path: p}, Label: "label"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a readable Parquet file") || !IsBadInput(err) {
		t.Fatalf("not parquet: %v", err)
	}
}

// The recorded digest is checked: a file whose content changed since is
// refused (the run that recorded the digest must be planned again), and
// Digest notices a rewrite.
func TestFileDigest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.csv")
	x, y := toyRows(20)
	writeCSV(t, p, "label,a,b,c", x, y)
	sum, err := Digest(p)
	if err != nil || len(sum) != 64 {
		t.Fatal(sum, err)
	}
	f := &FileSource{Format: FormatCSV, Train: FileRef{Path: p, SHA256: sum}, Label: "label"}
	if _, err := loadFile(t, f, Options{}); err != nil {
		t.Fatal(err)
	}
	x[3][0] = 99
	writeCSV(t, p, "label,a,b,c", x, y)
	os.Chtimes(p, time.Now().Add(time.Second), time.Now().Add(time.Second))
	_, err = loadFile(t, f, Options{})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "changed since this run was planned") || !IsBadInput(err) {
		t.Fatalf("changed file: %v", err)
	}
	sum2, _ := Digest(p)
	if sum2 == sum || ce.Got != sum2 {
		t.Fatalf("digest %s after the rewrite, error says %s", sum2, ce.Got)
	}
}

// The embedded digits written to CSV files (digits' own split, raw values
// 0..16) and read back with max_value 16 are the built-in source, value
// for value, under every option: the file path adds nothing and loses
// nothing.
func TestFileReproducesDigits(t *testing.T) {
	dir := t.TempDir()
	raw, err := Load(Source{Name: SourceDigits}, Options{Normalize: NormalizeNone}, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, ds := range map[string]*Dataset{"train.csv": raw.Train, "test.csv": raw.Test} {
		x := make([][]float32, ds.N)
		y := make([]int, ds.N)
		for i := range ds.N {
			x[i], y[i] = ds.Row(i), int(ds.Y[i])
		}
		header := "label"
		for j := range 64 {
			header += fmt.Sprintf(",p%d", j)
		}
		writeCSV(t, filepath.Join(dir, name), header, x, y)
	}
	f := &FileSource{Format: FormatCSV, Train: FileRef{Path: filepath.Join(dir, "train.csv")},
		Test: &FileRef{Path: filepath.Join(dir, "test.csv")}, Label: "label", Shape: []int{1, 8, 8}, MaxValue: 16}
	for _, o := range []Options{{}, {Classes: []int{3, 8}, Normalize: NormalizeStandardize}, {L2Ball: 1, L2Exact: true, Flatten: true}} {
		want, err := Load(Source{Name: SourceDigits}, o, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := loadFile(t, f, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]*Dataset{{got.Train, want.Train}, {got.Test, want.Test}} {
			g, w := pair[0], pair[1]
			if !slices.Equal(g.X, w.X) || !slices.Equal(g.Y, w.Y) || !slices.Equal(g.Shape, w.Shape) || g.Classes != w.Classes {
				t.Fatalf("options %+v: the file's split differs from digits'", o)
			}
		}
	}
}
