package pipeline

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
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

func (t ColType) arrow() arrow.DataType {
	switch t {
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case String:
		return arrow.BinaryTypes.String
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.PrimitiveTypes.Float64
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rdr.Close()
	sc := rdr.MetaData().Schema
	out := make([]string, sc.NumColumns())
	for i := range out {
		out[i] = sc.Column(i).Name()
	}
	return out, nil
}

// ParquetSchema returns the columns of a Parquet file (names and types,
// no values) from its metadata.
func ParquetSchema(path string) ([]*Column, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rdr.Close()
	sc := rdr.MetaData().Schema
	out := make([]*Column, sc.NumColumns())
	for i := range out {
		d := sc.Column(i)
		out[i] = &Column{Name: d.Name()}
		if out[i].Type, err = parquetColType(path, d); err != nil {
			return nil, err
		}
	}
	return out, nil
}
