package scorefile

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/audit"
)

// ReadParquet reads a score table from a Parquet file, only the columns
// it needs. Member may be bool or an integer or float column of 0/1,
// score any integer or float column, and the id columns any integer or
// string column (dictionary-encoded strings too, as pandas writes
// categoricals). Nulls are errors naming their row (1-based).
func ReadParquet(path string, c Columns) (*audit.ScoreTable, Info, error) {
	t, info, err := readParquetFile(path, c, nil)
	if err != nil {
		return nil, Info{}, err
	}
	return t.finish("row", c.Filters), info, nil
}

// ReadParquetDir reads every *.parquet file of dir in name order as one
// table (a dpaudit results folder's trials/point=<id>/ parts, in trial
// order); rows are numbered through the concatenation.
func ReadParquetDir(dir string, c Columns) (*audit.ScoreTable, Info, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(files) == 0 {
		return nil, Info{}, invalidf("%s: a directory without *.parquet files", dir)
	}
	slices.Sort(files)
	var t *table
	var info Info
	for _, f := range files {
		if t, info, err = readParquetFile(f, c, t); err != nil {
			return nil, Info{}, err
		}
	}
	return t.finish("row", c.Filters), info, nil
}

// readParquetFile appends path's rows to t (nil: a new table).
func readParquetFile(path string, c Columns, t *table) (*table, Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Info{}, invalidf("%v", err)
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, Info{}, invalidf("%s: not a Parquet file: %v", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		return nil, Info{}, invalidf("%s: %v", path, err)
	}
	sc := rdr.MetaData().Schema
	have := make([]string, sc.NumColumns())
	for i := range have {
		have[i] = sc.Column(i).Name()
	}
	roles, err := c.roles(path, have)
	if err != nil {
		return nil, Info{}, err
	}
	idx := make([]int, len(roles))
	for k, r := range roles {
		idx[k] = sc.ColumnIndexByName(r.column)
	}
	groups := make([]int, rdr.NumRowGroups())
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), idx, groups)
	if err != nil {
		return nil, Info{}, invalidf("%s: %v", path, err)
	}
	defer tbl.Release()
	if t == nil {
		t = newTable(roles, int(tbl.NumRows()))
	} else if err := t.sameRoles(roles); err != nil {
		return nil, Info{}, invalidf("%s: %v", path, err)
	}
	first := len(t.score)
	for k, r := range roles {
		if err := t.addArrow(r, tbl.Column(k).Data().Chunks(), first); err != nil {
			return nil, Info{}, invalidf("%s: %v", path, err)
		}
	}
	return t, Info{Format: "parquet", Columns: have, Used: used(roles)}, nil
}

// sameRoles checks that a further file of a directory fills the same
// columns as the first.
func (t *table) sameRoles(roles []role) error {
	var names []string
	for _, r := range roles {
		names = append(names, r.column)
	}
	if !slices.Equal(names, t.columns) {
		return fmt.Errorf("reads columns %v where the first file read %v", names, t.columns)
	}
	return nil
}

// addArrow converts one column, chunk by chunk.
func (t *table) addArrow(r role, chunks []arrow.Array, first int) error {
	row := first
	for _, ch := range chunks {
		for j := 0; j < ch.Len(); j++ {
			row++
			if ch.IsNull(j) {
				return fmt.Errorf("row %d: column %s (%s) is null", row, r.column, r.name)
			}
			switch r.name {
			case "member":
				b, err := memberAt(ch, j)
				if err != nil {
					return fmt.Errorf("row %d: column %s (member): %v", row, r.column, err)
				}
				t.member = append(t.member, b)
			case "score":
				x, ok := numberAt(ch, j)
				if !ok {
					return fmt.Errorf("column %s (score) has type %s; want a number column", r.column, ch.DataType())
				}
				t.score = append(t.score, x)
			default:
				s, ok := idAt(ch, j)
				if !ok {
					return fmt.Errorf("column %s (%s) has type %s; want an integer or string column", r.column, r.name, ch.DataType())
				}
				t.ids[r.name] = append(t.ids[r.name], s)
			}
		}
	}
	return nil
}

func memberAt(a arrow.Array, j int) (bool, error) {
	if b, ok := a.(*array.Boolean); ok {
		return b.Value(j), nil
	}
	x, ok := numberAt(a, j)
	if !ok {
		return false, fmt.Errorf("type %s; want bool or 0/1", a.DataType())
	}
	if x != 0 && x != 1 {
		return false, fmt.Errorf("%v is not a membership bit (want 0/1 or true/false)", x)
	}
	return x == 1, nil
}

// numberAt reads element j of any integer or float array.
func numberAt(a arrow.Array, j int) (float64, bool) {
	switch v := a.(type) {
	case *array.Float64:
		return v.Value(j), true
	case *array.Float32:
		return float64(v.Value(j)), true
	case *array.Int64:
		return float64(v.Value(j)), true
	case *array.Int32:
		return float64(v.Value(j)), true
	case *array.Int16:
		return float64(v.Value(j)), true
	case *array.Int8:
		return float64(v.Value(j)), true
	case *array.Uint64:
		return float64(v.Value(j)), true
	case *array.Uint32:
		return float64(v.Value(j)), true
	case *array.Uint16:
		return float64(v.Value(j)), true
	case *array.Uint8:
		return float64(v.Value(j)), true
	}
	return math.NaN(), false
}

// idAt reads element j of an integer or string array as text.
func idAt(a arrow.Array, j int) (string, bool) {
	switch v := a.(type) {
	case *array.String:
		return v.Value(j), true
	case *array.LargeString:
		return v.Value(j), true
	case *array.Int64:
		return strconv.FormatInt(v.Value(j), 10), true
	case *array.Int32:
		return strconv.FormatInt(int64(v.Value(j)), 10), true
	case *array.Int16:
		return strconv.FormatInt(int64(v.Value(j)), 10), true
	case *array.Int8:
		return strconv.FormatInt(int64(v.Value(j)), 10), true
	case *array.Uint64:
		return strconv.FormatUint(v.Value(j), 10), true
	case *array.Uint32:
		return strconv.FormatUint(uint64(v.Value(j)), 10), true
	case *array.Uint16:
		return strconv.FormatUint(uint64(v.Value(j)), 10), true
	case *array.Uint8:
		return strconv.FormatUint(uint64(v.Value(j)), 10), true
	case *array.Dictionary:
		return idAt(v.Dictionary(), v.GetValueIndex(j))
	}
	return "", false
}
