package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/dpaudit/dpaudit/internal/parquetio"
)

// ColType is the type of a table column.
type ColType int

const (
	Float64 ColType = iota
	Int64
	String
	Bool
)

func (t ColType) String() string {
	return [...]string{"float64", "int64", "string", "bool"}[t]
}

// Column is one column of a Table. Values holds float64, int64, string or
// bool values, or nil for null.
type Column struct {
	Name   string
	Type   ColType
	Values []any
}

// Table is a small in-memory table written as one Parquet file.
type Table struct {
	Columns []*Column
}

// Col returns the column named name, or nil.
func (t *Table) Col(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Rows is the number of rows.
func (t *Table) Rows() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return len(t.Columns[0].Values)
}

// Add appends a column; it must have as many values as the others.
func (t *Table) Add(name string, typ ColType, values []any) error {
	if t.Col(name) != nil {
		return fmt.Errorf("duplicate column %q", name)
	}
	if len(t.Columns) > 0 && len(values) != t.Rows() {
		return fmt.Errorf("column %q has %d values, the table has %d rows", name, len(values), t.Rows())
	}
	for i, v := range values {
		if v != nil && !typeMatches(typ, v) {
			return fmt.Errorf("column %q row %d: %T is not %s", name, i, v, typ)
		}
	}
	t.Columns = append(t.Columns, &Column{Name: name, Type: typ, Values: values})
	return nil
}

func typeMatches(t ColType, v any) bool {
	switch v.(type) {
	case float64:
		return t == Float64
	case int64:
		return t == Int64
	case string:
		return t == String
	case bool:
		return t == Bool
	}
	return false
}

// WriteParquet writes the table as a zstd-compressed Parquet file, via a
// temporary file renamed into place. The bytes depend only on the table.
func WriteParquet(path string, t *Table) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := writeParquet(f, t); err != nil { // closes f
		return err
	}
	return os.Rename(tmp, path)
}

// ReadParquet reads a Parquet file written by WriteParquet (or any file
// whose columns are float64, int64, string or bool).
func ReadParquet(path string) (*Table, error) { return ReadParquetColumns(path, nil) }

// ReadParquetColumns reads only the named columns (all when names is
// nil), in the order given: figures of 10⁶ trials read two columns, not
// every score.
func ReadParquetColumns(path string, names []string) (*Table, error) {
	return readParquetTable(path, names)
}

// Float returns value i of a float64 column as float64 (NaN for null).
func (c *Column) Float(i int) float64 {
	if v, ok := c.Values[i].(float64); ok {
		return v
	}
	return math.NaN()
}

// ParquetColumns lists the column names of a Parquet file from its
// metadata, without reading data.
func ParquetColumns(path string) ([]string, error) {
	f, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Names(), nil
}

// ParquetSchema returns the columns of a Parquet file (names and types,
// no values) from its metadata.
func ParquetSchema(path string) ([]*Column, error) {
	f, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]*Column, len(f.Names()))
	for i := range out {
		out[i] = &Column{Name: f.Descr(i).Name()}
		if out[i].Type, err = colType(path, f, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parquetTypeName names a column's type for the refusal: the logical type
// when there is one, else the physical type.
func parquetTypeName(d *schema.Column) string {
	if lt := d.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
		return fmt.Sprintf("%s (%s)", lt, d.PhysicalType())
	}
	return d.PhysicalType().String()
}

// openParquet opens a Parquet file: an error opening the file as it
// comes, an error reading it as Parquet prefixed with the path.
func openParquet(path string) (*parquetio.File, error) {
	f, err := parquetio.Open(path)
	var pe *fs.PathError
	if err != nil && !errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, err
}
