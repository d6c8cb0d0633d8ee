package datasets

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/rng"
)

// SourceFile is the source of a user's own data file (Source.File).
const SourceFile = "file"

// File formats accepted in FileSource.Format.
const (
	FormatParquet = "parquet"
	FormatCSV     = "csv"
	FormatNPY     = "npy"
	FormatNPZ     = "npz"
)

// DefaultFileTestFraction is the share of a file's rows held out as the
// test split when the file has no test file of its own.
const DefaultFileTestFraction = 0.2

// FileRef is one file a FileSource reads. Path is where to read it (the
// caller resolves it, e.g. relative to the spec); it is not part of the
// JSON encoding, so a cache key names the content (SHA256), not the place.
type FileRef struct {
	Path string `json:"-"`
	// SHA256 is the digest (hex) the content must have; Load refuses a
	// file that differs (it changed since the digest was taken). Empty:
	// not checked.
	SHA256 string `json:"sha256"`
}

// FileSource is a labelled data set in a user's file: a table (Parquet,
// CSV) with one label column and numeric feature columns, or arrays (.npz
// with a feature and a label array; .npy features with a .npy of labels).
type FileSource struct {
	Format string  `json:"format"` // FormatParquet, FormatCSV, FormatNPY or FormatNPZ
	Train  FileRef `json:"train"`
	// Test is a file of the same layout holding the test split; nil =
	// TestFraction of Train's rows.
	Test *FileRef `json:"test,omitempty"`
	// Labels is the .npy file of labels (format npy only).
	Labels *FileRef `json:"labels,omitempty"`
	// Label names the label column (Parquet, CSV) or array (npz). Labels
	// are class ids: integers 0, 1, …; the number of classes is the
	// largest label + 1.
	Label string `json:"label,omitempty"`
	// Features lists the feature columns (Parquet, CSV; each entry a name
	// or a glob pattern such as "pixel_*", expanded in file order) or the
	// one feature array (npz). Empty: every column but the label (npz:
	// the one array that is not the label).
	Features []string `json:"features,omitempty"`
	// Shape is the per-example shape, e.g. [1, 28, 28]; its product must
	// be the number of feature values. Empty: the array's own shape (npy,
	// npz: (N, H, W) gives [1, H, W]) or [D].
	Shape []int `json:"shape,omitempty"`
	// MaxValue > 0 is the features' nominal maximum (255 for 8-bit
	// pixels): normalize "unit" divides by it and becomes the default.
	// 0: the data has no fixed range ("none" is the default, "unit" is
	// refused).
	MaxValue float64 `json:"max_value,omitempty"`
	// TestFraction is the share of Train's rows held out when Test is
	// nil, in (0, 1); 0 = DefaultFileTestFraction. The split is stratified
	// and fixed (it does not depend on Options.Seed): within each class, in
	// file order, a permutation from the stream (0, "datasets", "file",
	// "split") sends round(TestFraction × class count) rows to the test
	// split.
	TestFraction float64 `json:"test_fraction,omitempty"`
}

// table is one file's parsed rows: features as float32 (or bytes, for
// 8-bit arrays), labels, and what names the features in messages.
type table struct {
	n, d  int
	x     []float32 // n×d, or nil
	u8    []byte    // n×d, or nil
	y     []int32
	shape []int    // natural per-example shape, product d
	names []string // feature names (columns) for messages; nil for arrays
	what  string   // the file, for messages
	// testRows > 0: the last testRows rows are the test split, placed
	// there while reading.
	testRows int
}

// check validates the source's own fields.
func (f *FileSource) check() error {
	switch f.Format {
	case FormatParquet, FormatCSV, FormatNPY, FormatNPZ:
	default:
		return invalidf("file format %q: want %s, %s, %s or %s", f.Format, FormatParquet, FormatCSV, FormatNPY, FormatNPZ)
	}
	if f.Train.Path == "" {
		return invalidf("file: no path")
	}
	if f.Format == FormatNPY && (f.Labels == nil || f.Labels.Path == "") {
		return invalidf("file: format npy needs the .npy file of labels")
	}
	if f.Format == FormatNPY && f.Test != nil {
		return invalidf("file: a separate test file is not supported for format npy (it would need its own labels): use npz, or a test fraction")
	}
	if f.Format != FormatNPY && f.Label == "" && f.Format != FormatNPZ {
		return invalidf("file: no label column")
	}
	if f.Test != nil && f.TestFraction != 0 {
		return invalidf("file: give a test file or a test fraction, not both")
	}
	if f.TestFraction < 0 || f.TestFraction >= 1 || math.IsNaN(f.TestFraction) {
		return invalidf("file: test fraction %v must be in (0, 1)", f.TestFraction)
	}
	if f.MaxValue < 0 || math.IsNaN(f.MaxValue) || math.IsInf(f.MaxValue, 0) {
		return invalidf("file: max value %v must be finite and > 0 (0 = no fixed range)", f.MaxValue)
	}
	for _, d := range f.Shape {
		if d <= 0 {
			return invalidf("file: shape %v: dimensions must be positive", f.Shape)
		}
	}
	return nil
}

// fileSource reads and checks a FileSource into its train and test pools.
func fileSource(f *FileSource) (*sourceData, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	refs := []*FileRef{&f.Train, f.Test, f.Labels}
	fields := []string{"path", "test_path", "label"}
	stamps := make([]fileStamp, len(refs))
	for i, r := range refs {
		if r != nil {
			var err error
			if stamps[i], err = r.verify(); err != nil {
				return nil, &FieldError{Field: fields[i], Err: err}
			}
		}
	}
	frac := f.TestFraction
	if frac == 0 {
		frac = DefaultFileTestFraction
	}
	if f.Test != nil {
		frac = 0
	}
	train, err := readTable(f, f.Train, f.Labels, frac)
	if err != nil {
		return nil, err
	}
	var test *table
	if f.Test != nil {
		if test, err = readTable(f, *f.Test, nil, 0); err != nil {
			return nil, err
		}
		if err := sameLayout(train, test); err != nil {
			return nil, err
		}
	}
	// A file edited while it was parsed is refused, as one edited since
	// its digest was taken.
	for i, r := range refs {
		if r != nil {
			if err := r.unchanged(stamps[i]); err != nil {
				return nil, &FieldError{Field: fields[i], Err: err}
			}
		}
	}
	shape, err := f.exampleShape(train)
	if err != nil {
		return nil, err
	}
	sd := &sourceData{name: SourceFile, shape: shape, unitMax: f.MaxValue, defaultNormalize: NormalizeNone}
	if f.MaxValue > 0 {
		sd.defaultNormalize = NormalizeUnit
	}
	if test != nil {
		sd.train, sd.test = train.pool(), test.pool()
	} else {
		if sd.train, sd.test, err = splitTable(train, frac); err != nil {
			return nil, err
		}
	}
	sd.classNames = classNames(sd.train.y, sd.test.y)
	return sd, nil
}

// exampleShape checks Shape against the feature count, or derives it.
func (f *FileSource) exampleShape(t *table) ([]int, error) {
	if len(f.Shape) == 0 {
		return slices.Clone(t.shape), nil
	}
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	if n != t.d {
		return nil, &FieldError{Field: "shape", Err: invalidf("shape %s holds %d values per example, but %s has %d feature values per row",
			formatShape(f.Shape), n, t.what, t.d)}
	}
	return slices.Clone(f.Shape), nil
}

// sameLayout checks that the test file has the train file's features.
func sameLayout(train, test *table) error {
	if train.d != test.d {
		return formatf("%s has %d feature values per row, %s has %d", test.what, test.d, train.what, train.d)
	}
	if train.names != nil && !slices.Equal(train.names, test.names) {
		for j := range train.names {
			if train.names[j] != test.names[j] {
				return formatf("%s: feature %d is column %q, in %s it is %q", test.what, j, test.names[j], train.what, train.names[j])
			}
		}
	}
	if !slices.Equal(train.shape, test.shape) {
		return formatf("%s holds examples of shape %v, %s of shape %v", test.what, test.shape, train.what, train.shape)
	}
	return nil
}

// pool wraps a whole table; the pool owns its memory (nothing else keeps
// the table), so Load may hand it out without copying.
func (t *table) pool() pool {
	return pool{n: t.n, d: t.d, f32: t.x, u8: t.u8, y: t.y, owned: true}
}

// splitRows decides which rows of t go to the test split (see
// FileSource.TestFraction): round(frac × count) of each class.
func splitRows(t *table, frac float64) (isTest []bool, nTest int, err error) {
	isTest = make([]bool, t.n)
	byClass := map[int32][]int{}
	for i, y := range t.y {
		byClass[y] = append(byClass[y], i)
	}
	classes := make([]int32, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	r := rng.New(0, "datasets", SourceFile, "split")
	for _, c := range classes {
		rows := byClass[c]
		perm := r.Perm(len(rows))
		k := int(math.Round(frac * float64(len(rows))))
		for _, p := range perm[:k] {
			isTest[rows[p]] = true
		}
		nTest += k
	}
	if nTest == 0 || nTest == t.n {
		return nil, 0, invalidf("%s: test fraction %v leaves %d train and %d test rows", t.what, frac, t.n-nTest, nTest)
	}
	return isTest, nTest, nil
}

// splitPlaces returns each row's place when the train rows come first, in
// file order, then the test rows, in file order.
func splitPlaces(isTest []bool, nTest int) []int {
	places := make([]int, len(isTest))
	train, test := 0, len(isTest)-nTest
	for i, t := range isTest {
		if t {
			places[i], test = test, test+1
		} else {
			places[i], train = train, train+1
		}
	}
	return places
}

// splitTable splits a table's rows into train and test pools. A table
// read with its split already placed (Parquet: rows are written to their
// places as they are read) is only cut; otherwise the rows are reordered
// in place — train rows first, then test rows, each in file order — so
// the two pools share the table's memory and only the test rows are
// copied.
func splitTable(t *table, frac float64) (train, test pool, err error) {
	nTest := t.testRows
	if nTest == 0 {
		isTest, k, err := splitRows(t, frac)
		if err != nil {
			return pool{}, pool{}, err
		}
		moveRows(t, isTest, k)
		nTest = k
	}
	d := t.d
	cut := t.n - nTest
	train = pool{n: cut, d: d, y: t.y[:cut:cut], owned: true}
	test = pool{n: nTest, d: d, y: t.y[cut:], owned: true}
	if t.x != nil {
		train.f32, test.f32 = t.x[:cut*d:cut*d], t.x[cut*d:]
	} else {
		train.u8, test.u8 = t.u8[:cut*d:cut*d], t.u8[cut*d:]
	}
	return train, test, nil
}

// moveRows reorders t's rows stably: rows with isTest false first.
func moveRows(t *table, isTest []bool, nTest int) {
	d := t.d
	testY := make([]int32, 0, nTest)
	var testX []float32
	var testU []byte
	if t.x != nil {
		testX = make([]float32, 0, nTest*d)
	} else {
		testU = make([]byte, 0, nTest*d)
	}
	w := 0
	for i := range t.n {
		if isTest[i] {
			testY = append(testY, t.y[i])
			if t.x != nil {
				testX = append(testX, t.x[i*d:(i+1)*d]...)
			} else {
				testU = append(testU, t.u8[i*d:(i+1)*d]...)
			}
			continue
		}
		if w != i {
			t.y[w] = t.y[i]
			if t.x != nil {
				copy(t.x[w*d:(w+1)*d], t.x[i*d:(i+1)*d])
			} else {
				copy(t.u8[w*d:(w+1)*d], t.u8[i*d:(i+1)*d])
			}
		}
		w++
	}
	copy(t.y[w:], testY)
	if t.x != nil {
		copy(t.x[w*d:], testX)
	} else {
		copy(t.u8[w*d:], testU)
	}
}

// classNames names classes 0..max label as their ids.
func classNames(ys ...[]int32) []string {
	k := int32(-1)
	for _, y := range ys {
		for _, v := range y {
			k = max(k, v)
		}
	}
	names := make([]string, k+1)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}

// FieldError is a problem with one field of a FileSource (e.g. "label",
// "features", "shape", "path"), so that a caller can point at the spec
// key that caused it.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func formatShape(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// label converts one label value to a class id; what names it in errors.
func labelOf(v float64, what func() string) (int32, error) {
	switch {
	case math.IsNaN(v):
		return 0, formatf("%s: the label is NaN", what())
	case v != math.Trunc(v) || math.IsInf(v, 0):
		return 0, formatf("%s: the label %v is not an integer class id", what(), v)
	case v < 0:
		return 0, formatf("%s: the label %v is negative; labels are class ids 0, 1, …", what(), v)
	case v > 1<<24:
		return 0, formatf("%s: the label %v is not a plausible class id (labels are 0, 1, …, number of classes − 1)", what(), v)
	}
	return int32(v), nil
}

// baseName is how a file is named in messages.
func baseName(path string) string { return filepath.Base(path) }

// errorf formats a file's problem (ErrFormat) naming the file.
func (t *table) errorf(format string, args ...any) error {
	return formatf("%s: %s", t.what, fmt.Sprintf(format, args...))
}
