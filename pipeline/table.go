package pipeline

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
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
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.arrow(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, c := range t.Columns {
		fb := b.Field(i)
		for _, v := range c.Values {
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch c.Type {
			case Float64:
				fb.(*array.Float64Builder).Append(v.(float64))
			case Int64:
				fb.(*array.Int64Builder).Append(v.(int64))
			case String:
				fb.(*array.StringBuilder).Append(v.(string))
			case Bool:
				fb.(*array.BooleanBuilder).Append(v.(bool))
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("dpaudit"),
	)
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		f.Close()
		return err
	}
	if err := w.Close(); err != nil { // closes f too
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
	f, rdr, fr, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer rdr.Close()
	var tbl arrow.Table
	if names == nil {
		tbl, err = fr.ReadTable(context.Background())
	} else {
		sc := rdr.MetaData().Schema
		idx := make([]int, len(names))
		for k, n := range names {
			if idx[k] = sc.ColumnIndexByName(n); idx[k] < 0 {
				return nil, fmt.Errorf("%s: no column %q", path, n)
			}
		}
		groups := make([]int, rdr.NumRowGroups())
		for i := range groups {
			groups[i] = i
		}
		tbl, err = fr.ReadRowGroups(context.Background(), idx, groups)
	}
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	out := &Table{}
	for i := 0; i < int(tbl.NumCols()); i++ {
		col := tbl.Column(i)
		c := &Column{Name: col.Name(), Values: make([]any, 0, col.Len())}
		if c.Type, err = colType(path, col.Name(), col.DataType()); err != nil {
			return nil, err
		}
		for _, chunk := range col.Data().Chunks() {
			for j := 0; j < chunk.Len(); j++ {
				if chunk.IsNull(j) {
					c.Values = append(c.Values, nil)
					continue
				}
				switch a := chunk.(type) {
				case *array.Float64:
					c.Values = append(c.Values, a.Value(j))
				case *array.Int64:
					c.Values = append(c.Values, a.Value(j))
				case *array.String:
					c.Values = append(c.Values, a.Value(j))
				case *array.Boolean:
					c.Values = append(c.Values, a.Value(j))
				}
			}
		}
		out.Columns = append(out.Columns, c)
	}
	return out, nil
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
	f, rdr, fr, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer rdr.Close()
	sc, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	var out []*Column
	for _, fl := range sc.Fields() {
		c := &Column{Name: fl.Name}
		if c.Type, err = colType(path, fl.Name, fl.Type); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// openParquet opens a Parquet file for reading as Arrow; the caller closes
// f and rdr.
func openParquet(path string) (*os.File, *file.Reader, *pqarrow.FileReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		rdr.Close()
		f.Close()
		return nil, nil, nil, err
	}
	return f, rdr, fr, nil
}

// colType maps an Arrow type to the table column types dpaudit writes.
func colType(path, name string, t arrow.DataType) (ColType, error) {
	switch t.ID() {
	case arrow.FLOAT64:
		return Float64, nil
	case arrow.INT64:
		return Int64, nil
	case arrow.STRING:
		return String, nil
	case arrow.BOOL:
		return Bool, nil
	}
	return 0, fmt.Errorf("%s: column %s has unsupported type %s", path, name, t)
}
