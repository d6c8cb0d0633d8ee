package datasets

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// readTable parses one file of a FileSource (labels, for format npy, is
// the .npy file of labels). With testFraction > 0 a reader may place the
// test split's rows while reading (table.testRows).
func readTable(f *FileSource, ref FileRef, labels *FileRef, testFraction float64) (*table, error) {
	switch f.Format {
	case FormatCSV:
		return readCSV(ref.Path, f.Label, f.Features)
	case FormatParquet:
		return readParquet(ref.Path, f.Label, f.Features, testFraction)
	case FormatNPY:
		return readNPY(ref.Path, labels.Path)
	case FormatNPZ:
		return readNPZ(ref.Path, f.Label, f.Features)
	}
	return nil, invalidf("file format %q", f.Format)
}

// readCSV reads a CSV file with a header row. Every row must have the
// header's number of fields; features must be numbers (strconv syntax,
// rounded once to float32), finite; labels integers ≥ 0.
func readCSV(path, label string, features []string) (*table, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer file.Close()
	t := &table{what: baseName(path)}
	cr := csv.NewReader(bufio.NewReaderSize(file, 1<<20))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, t.errorf("the file is empty (a CSV needs a header row naming its columns)")
	}
	if err != nil {
		return nil, t.errorf("header: %v", err)
	}
	header = append([]string(nil), header...)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	cr.FieldsPerRecord = len(header)
	li, feats, err := selectColumns(header, label, features, t.what)
	if err != nil {
		return nil, err
	}
	t.d = len(feats)
	t.shape = []int{t.d}
	for _, j := range feats {
		t.names = append(t.names, header[j])
	}
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, t.errorf("row %d (line %d) has %d fields, the header has %d", row, pe.StartLine, len(rec), len(header))
			}
			return nil, t.errorf("row %d: %v", row, err)
		}
		where := func() string { return t.what + ": row " + strconv.Itoa(row) + " (line " + strconv.Itoa(line) + ")" }
		for _, j := range feats {
			v, err := parseFeature(rec[j])
			if err != nil {
				return nil, formatf("%s, column %q: %v", where(), header[j], err)
			}
			t.x = append(t.x, v)
		}
		lv, err := strconv.ParseFloat(strings.TrimSpace(rec[li]), 64)
		if err != nil {
			return nil, formatf("%s, label column %q: %q is not a number", where(), header[li], rec[li])
		}
		y, err := labelOf(lv, where)
		if err != nil {
			return nil, err
		}
		t.y = append(t.y, y)
		t.n++
	}
	if t.n == 0 {
		return nil, t.errorf("no rows after the header")
	}
	return t, nil
}

// parseFeature reads one finite number.
func parseFeature(s string) (float32, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("the value is empty")
	}
	v, err := strconv.ParseFloat(s, 32)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
		return 0, errors.New(s + " is outside the float32 range")
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errors.New(strconv.Quote(s) + " is not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("the value is " + s + " (features must be finite)")
	}
	return float32(v), nil
}
