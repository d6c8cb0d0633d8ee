package pipeline

import (
	"fmt"
	"io"

	"github.com/dpaudit/dpaudit/internal/parquetio"
)

// Tables are read and written through internal/parquetio, on arrow-go's
// parquet/file layer (not parquet/pqarrow, whose arrow/flight import would
// link gRPC and protobuf): the files are byte for byte what pqarrow wrote
// for the Arrow record of the same nullable columns, and the test beside
// this file checks that against pqarrow itself.

// writeParquet writes t to w as pqarrow.NewFileWriter with
// WithStoreSchema would.
func writeParquet(w io.Writer, t *Table) error {
	cols := make([]parquetio.Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = ioColumn(c)
	}
	return parquetio.Write(w, cols)
}

// ioColumn converts a column of boxed values (nil for null) to typed
// values and a validity mask.
func ioColumn(c *Column) parquetio.Column {
	n := len(c.Values)
	out := parquetio.Column{Name: c.Name, Type: c.Type.ioType()}
	for i, v := range c.Values {
		if v == nil && out.Valid == nil {
			out.Valid = make([]bool, n)
			for k := range i {
				out.Valid[k] = true
			}
		} else if out.Valid != nil {
			out.Valid[i] = v != nil
		}
	}
	switch c.Type {
	case Float64:
		out.Floats = make([]float64, n)
		for i, v := range c.Values {
			if v != nil {
				out.Floats[i] = v.(float64)
			}
		}
	case Int64:
		out.Ints = make([]int64, n)
		for i, v := range c.Values {
			if v != nil {
				out.Ints[i] = v.(int64)
			}
		}
	case String:
		out.Strings = make([]string, n)
		for i, v := range c.Values {
			if v != nil {
				out.Strings[i] = v.(string)
			}
		}
	case Bool:
		out.Bools = make([]bool, n)
		for i, v := range c.Values {
			if v != nil {
				out.Bools[i] = v.(bool)
			}
		}
	}
	return out
}

func (t ColType) ioType() parquetio.Type {
	return [...]parquetio.Type{Float64: parquetio.Float64, Int64: parquetio.Int64, String: parquetio.String, Bool: parquetio.Bool}[t]
}

// readParquetTable reads the named columns (all when names is nil) of a
// Parquet file, in the order given.
func readParquetTable(path string, names []string) (*Table, error) {
	f, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var idx []int
	if names == nil {
		for i := range f.Names() {
			idx = append(idx, i)
		}
	}
	for _, n := range names {
		i := f.Index(n)
		if i < 0 {
			return nil, fmt.Errorf("%s: no column %q", path, n)
		}
		idx = append(idx, i)
	}
	out := &Table{}
	for _, i := range idx {
		typ, err := colType(path, f, i)
		if err != nil {
			return nil, err
		}
		ic, err := f.Read(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out.Columns = append(out.Columns, &Column{Name: ic.Name, Type: typ, Values: boxed(ic)})
	}
	return out, nil
}

// boxed is a column's values as any, nil for null.
func boxed(c *parquetio.Column) []any {
	vals := make([]any, c.Len())
	for i := range vals {
		if c.Valid != nil && !c.Valid[i] {
			continue
		}
		switch c.Type {
		case parquetio.Float64:
			vals[i] = c.Floats[i]
		case parquetio.Int64:
			vals[i] = c.Ints[i]
		case parquetio.String:
			vals[i] = c.Strings[i]
		case parquetio.Bool:
			vals[i] = c.Bools[i]
		}
	}
	return vals
}

// colType maps a Parquet column to the table column types, as pqarrow
// mapped them to Arrow types before: doubles, signed 64-bit integers,
// UTF-8 strings and booleans at the top level; anything else (other
// widths, timestamps, binary, nested columns) is refused.
func colType(path string, f *parquetio.File, i int) (ColType, error) {
	d := f.Descr(i)
	if d.MaxRepetitionLevel() > 0 || len(d.ColumnPath()) > 1 {
		return 0, fmt.Errorf("%s: column %s has unsupported type %s", path, d.Path(), "nested")
	}
	switch f.TypeOf(i) {
	case parquetio.Float64:
		return Float64, nil
	case parquetio.Int64:
		return Int64, nil
	case parquetio.String:
		return String, nil
	case parquetio.Bool:
		return Bool, nil
	}
	return 0, fmt.Errorf("%s: column %s has unsupported type %s", path, d.Name(), parquetTypeName(d))
}
