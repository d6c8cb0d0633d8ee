package parquetio

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// File is a Parquet file open for reading columns.
type File struct {
	f      *os.File
	r      *file.Reader
	stored *arrow.Schema // the Arrow schema the writer stored, or nil
}

// Open opens a Parquet file; the error of a file that is not Parquet
// comes from arrow-go.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, r: r, stored: storedSchema(r)}, nil
}

// Close closes the file.
func (f *File) Close() error {
	f.r.Close()
	return f.f.Close()
}

// NumRows is the number of rows.
func (f *File) NumRows() int64 { return f.r.NumRows() }

// Names lists the leaf columns' names in file order.
func (f *File) Names() []string {
	sc := f.r.MetaData().Schema
	out := make([]string, sc.NumColumns())
	for i := range out {
		out[i] = sc.Column(i).Name()
	}
	return out
}

// Index is the index of the column named name, or -1.
func (f *File) Index(name string) int { return f.r.MetaData().Schema.ColumnIndexByName(name) }

// Descr describes leaf column i.
func (f *File) Descr(i int) *schema.Column { return f.r.MetaData().Schema.Column(i) }

// storedSchema decodes the ARROW:schema key (base64 of the IPC schema,
// padded or not, as pqarrow accepts it); nil when absent or unreadable.
func storedSchema(r *file.Reader) *arrow.Schema {
	v := r.MetaData().KeyValueMetadata().FindValue("ARROW:schema")
	if v == nil {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(*v)
	if err != nil || len(b) == 0 {
		if b, err = base64.RawStdEncoding.DecodeString(*v); err != nil {
			return nil
		}
	}
	rd, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	defer rd.Release()
	return rd.Schema()
}

// TypeOf is the type of leaf column i as the reader gives its values:
// Unsupported for nested columns and for types outside the flat ones
// (timestamps, dates, decimals, binary, …), which pqarrow read as other
// Arrow types.
func (f *File) TypeOf(i int) Type {
	d := f.Descr(i)
	if d.MaxRepetitionLevel() > 0 || len(d.ColumnPath()) > 1 {
		return Unsupported
	}
	lt := d.LogicalType()
	plain := lt == nil || lt.Equals(schema.NoLogicalType{})
	switch d.PhysicalType() {
	case parquet.Types.Boolean:
		if plain {
			return Bool
		}
	case parquet.Types.Float:
		if plain {
			return Float32
		}
	case parquet.Types.Double:
		if plain {
			return Float64
		}
	case parquet.Types.ByteArray:
		if lt != nil && lt.Equals(schema.StringLogicalType{}) {
			return String
		}
	case parquet.Types.Int32, parquet.Types.Int64:
		return intType(d.PhysicalType(), lt, plain)
	}
	return Unsupported
}

func intType(phys parquet.Type, lt schema.LogicalType, plain bool) Type {
	if plain {
		if phys == parquet.Types.Int32 {
			return Int32
		}
		return Int64
	}
	it, ok := lt.(schema.IntLogicalType)
	if !ok {
		return Unsupported
	}
	signed := map[int8]Type{8: Int8, 16: Int16, 32: Int32, 64: Int64}
	unsigned := map[int8]Type{8: Uint8, 16: Uint16, 32: Uint32, 64: Uint64}
	if it.IsSigned() {
		return signed[it.BitWidth()]
	}
	return unsigned[it.BitWidth()]
}

// TypeName names column i's type as pqarrow's reader typed it, and says
// whether that was a dictionary type: the stored Arrow field's type when
// the writer stored a schema, else the flat type's Arrow name (and the
// names of dates and binary), else the Parquet logical or physical type.
func (f *File) TypeName(i int) (string, bool) {
	d := f.Descr(i)
	t := f.TypeOf(i)
	if f.stored != nil && len(d.ColumnPath()) == 1 {
		if k := f.stored.FieldIndices(d.Name()); len(k) == 1 {
			at := f.stored.Field(k[0]).Type
			return at.String(), at.ID() == arrow.DICTIONARY
		}
	}
	if t != Unsupported {
		return t.String(), false
	}
	lt := d.LogicalType()
	switch {
	case lt != nil && lt.Equals(schema.DateLogicalType{}):
		return "date32", false
	case d.PhysicalType() == parquet.Types.ByteArray && (lt == nil || lt.Equals(schema.NoLogicalType{})):
		return "binary", false
	}
	if lt != nil && !lt.Equals(schema.NoLogicalType{}) {
		return fmt.Sprintf("%s (%s)", lt, d.PhysicalType()), false
	}
	return d.PhysicalType().String(), false
}

// Read reads leaf column i, every row group. A flat column of a type
// outside the flat ones (Type Unsupported: dates, timestamps, binary, …)
// is read as its physical values (Ints, Floats or Strings), so a caller
// can refuse it row by row as it refused pqarrow's Arrow types; nested
// columns and INT96 are errors.
func (f *File) Read(i int) (*Column, error) {
	d := f.Descr(i)
	t := f.TypeOf(i)
	name, dict := f.TypeName(i)
	c := &Column{Name: d.Name(), Type: t, TypeName: name, Dictionary: dict, Required: d.MaxDefinitionLevel() == 0}
	if d.MaxRepetitionLevel() > 0 || len(d.ColumnPath()) > 1 {
		return nil, fmt.Errorf("column %s has unsupported type %s", d.Path(), name)
	}
	for g := 0; g < f.r.NumRowGroups(); g++ {
		cr, err := f.r.RowGroup(g).Column(i)
		if err == nil {
			err = c.readChunk(cr)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return c, nil
}

// readBatch is how many levels readChunk reads at a time.
const readBatch = 4096

// readChunk appends one column chunk's rows.
func (c *Column) readChunk(cr file.ColumnChunkReader) error {
	maxDef := cr.Descriptor().MaxDefinitionLevel()
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Bools, func(v bool) bool { return v })
	case *file.Int32ColumnChunkReader:
		if c.Type == Uint32 { // stored as its bits
			return readValues(c, r.ReadBatch, maxDef, &c.Ints, func(v int32) int64 { return int64(uint32(v)) })
		}
		return readValues(c, r.ReadBatch, maxDef, &c.Ints, func(v int32) int64 { return int64(v) })
	case *file.Int64ColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Ints, func(v int64) int64 { return v })
	case *file.Float32ColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Floats, func(v float32) float64 { return float64(v) })
	case *file.Float64ColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Floats, func(v float64) float64 { return v })
	case *file.ByteArrayColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Strings, func(v parquet.ByteArray) string { return string(v) })
	case *file.FixedLenByteArrayColumnChunkReader:
		return readValues(c, r.ReadBatch, maxDef, &c.Strings, func(v parquet.FixedLenByteArray) string { return string(v) })
	}
	return fmt.Errorf("unsupported column reader %T", cr)
}

// readValues reads batches of (values, definition levels) and places the
// values at their rows, the zero value at nulls, extending c.Valid.
func readValues[P, T any](c *Column, read func(int64, []P, []int16, []int16) (int64, int, error),
	maxDef int16, out *[]T, conv func(P) T) error {
	buf := make([]P, readBatch)
	defs := make([]int16, readBatch)
	var zero T
	for {
		levels, _, err := read(readBatch, buf, defs, nil)
		if err != nil {
			return err
		}
		if levels == 0 {
			return nil
		}
		k := 0
		for _, d := range defs[:levels] {
			if maxDef > 0 && d < maxDef {
				c.markNull(len(*out))
				*out = append(*out, zero)
				continue
			}
			*out = append(*out, conv(buf[k]))
			k++
		}
		if c.Valid != nil {
			for len(c.Valid) < len(*out) {
				c.Valid = append(c.Valid, true)
			}
		}
	}
}

// markNull records that row i is null (all rows before it valid unless
// marked).
func (c *Column) markNull(i int) {
	for len(c.Valid) < i {
		c.Valid = append(c.Valid, true)
	}
	c.Valid = append(c.Valid, false)
}
