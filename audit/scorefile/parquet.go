package scorefile

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/internal/parquetio"
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
	files, err := Parts(dir)
	if err != nil {
		return nil, Info{}, err
	}
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
	f, err := parquetio.Open(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, Info{}, invalidf("%v", err)
	}
	if err != nil {
		return nil, Info{}, invalidf("%s: not a Parquet file: %v", path, err)
	}
	defer f.Close()
	have := f.Names()
	roles, err := c.roles(path, have)
	if err != nil {
		return nil, Info{}, err
	}
	if t == nil {
		t = newTable(roles, int(f.NumRows()))
	} else if err := t.sameRoles(roles); err != nil {
		return nil, Info{}, invalidf("%s: %v", path, err)
	}
	first := len(t.score)
	for _, r := range roles {
		i := f.Index(r.column)
		if d := f.Descr(i); d.MaxRepetitionLevel() > 0 || len(d.ColumnPath()) > 1 {
			name, _ := f.TypeName(i)
			return nil, Info{}, invalidf("%s: %v", path, typeError(r, name))
		}
		col, err := f.Read(i)
		if err != nil {
			return nil, Info{}, invalidf("%s: %v", path, err)
		}
		if err := t.addColumn(r, col, first); err != nil {
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

// addColumn appends one column's values in role r, refusing nulls and
// types by the first row that shows them, as when the column was read
// through Arrow arrays.
func (t *table) addColumn(r role, c *parquetio.Column, first int) error {
	for j := range c.Len() {
		row := first + j + 1
		if c.Valid != nil && !c.Valid[j] {
			return fmt.Errorf("row %d: column %s (%s) is null", row, r.column, r.name)
		}
		switch r.name {
		case "member":
			b, err := memberAt(c, j)
			if err != nil {
				return fmt.Errorf("row %d: column %s (member): %v", row, r.column, err)
			}
			t.member = append(t.member, b)
		case "score":
			x, ok := numberAt(c, j)
			if !ok {
				return typeError(r, c.TypeName)
			}
			t.score = append(t.score, x)
		default:
			s, ok := idAt(c, j)
			if !ok {
				return typeError(r, c.TypeName)
			}
			t.ids[r.name] = append(t.ids[r.name], s)
		}
	}
	return nil
}

// typeError refuses a column of a type its role cannot take.
func typeError(r role, typeName string) error {
	switch r.name {
	case "member":
		return fmt.Errorf("row 1: column %s (member): type %s; want bool or 0/1", r.column, typeName)
	case "score":
		return fmt.Errorf("column %s (score) has type %s; want a number column", r.column, typeName)
	}
	return fmt.Errorf("column %s (%s) has type %s; want an integer or string column", r.column, r.name, typeName)
}

func memberAt(c *parquetio.Column, j int) (bool, error) {
	if c.Type == parquetio.Bool {
		return c.Bools[j], nil
	}
	x, ok := numberAt(c, j)
	if !ok {
		return false, fmt.Errorf("type %s; want bool or 0/1", c.TypeName)
	}
	if x != 0 && x != 1 {
		return false, fmt.Errorf("%v is not a membership bit (want 0/1 or true/false)", x)
	}
	return x == 1, nil
}

// numberAt reads row j of any integer or float column (not a dictionary,
// which Arrow does not count as a number).
func numberAt(c *parquetio.Column, j int) (float64, bool) {
	if c.Dictionary {
		return math.NaN(), false
	}
	switch c.Type {
	case parquetio.Float32, parquetio.Float64:
		return c.Floats[j], true
	case parquetio.Uint64:
		return float64(uint64(c.Ints[j])), true
	case parquetio.Int8, parquetio.Int16, parquetio.Int32, parquetio.Int64, parquetio.Uint8, parquetio.Uint16, parquetio.Uint32:
		return float64(c.Ints[j]), true
	}
	return math.NaN(), false
}

// idAt reads row j of an integer or string column (dictionary-encoded
// too) as text.
func idAt(c *parquetio.Column, j int) (string, bool) {
	switch c.Type {
	case parquetio.String:
		return c.Strings[j], true
	case parquetio.Uint64:
		return strconv.FormatUint(uint64(c.Ints[j]), 10), true
	case parquetio.Int8, parquetio.Int16, parquetio.Int32, parquetio.Int64, parquetio.Uint8, parquetio.Uint16, parquetio.Uint32:
		return strconv.FormatInt(c.Ints[j], 10), true
	}
	return "", false
}
