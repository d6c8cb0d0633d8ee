// Package parquetio reads and writes Parquet columns on arrow-go's
// parquet/file layer: flat columns of the common types, and lists of
// float32 on the write side. It is the one Parquet reader and writer of
// dpaudit (pipeline's tables, canary plans, users' score tables).
//
// Why not arrow-go's Arrow-record layer (parquet/pqarrow): it imports
// arrow/flight, which links gRPC and protobuf (about a fifth of the binary
// and of a cold build) into a tool that never speaks gRPC. The writer makes
// the calls pqarrow's writer makes for these types (the same schema nodes,
// the same ARROW:schema metadata, the same column-writer methods), so the
// files are byte for byte what pqarrow wrote; the reader gives the values
// and the type names pqarrow's reader gave. The tests beside it check both
// against pqarrow itself.
package parquetio

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Type is a column's type, named as Arrow names it.
type Type int

const (
	Unsupported Type = iota
	Bool
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
	String
	// Float32List is a list of float32 (written only).
	Float32List
)

var typeNames = [...]string{"unsupported", "bool", "int8", "int16", "int32", "int64",
	"uint8", "uint16", "uint32", "uint64", "float32", "float64", "utf8", "list<element: float32, nullable>"}

func (t Type) String() string { return typeNames[t] }

// Column is one column: its values at row positions (the zero value
// where a row is null), in the slice its type uses — Ints for the integer
// types (a uint64 as its bits), Floats for float32 and float64, Bools,
// Strings, Lists.
type Column struct {
	Name string
	Type Type
	// Required: the column has no nulls by its schema (Arrow's Nullable:
	// false). Written columns are optional unless Required.
	Required bool
	// Valid marks the rows that have a value; nil when every row has one.
	Valid []bool

	Ints    []int64
	Floats  []float64
	Bools   []bool
	Strings []string
	Lists   [][]float32

	// Read only: the column's type as pqarrow read it (from the Arrow
	// schema stored in the file when there is one, so a pandas
	// categorical names its dictionary type), and whether it was
	// dictionary-typed there.
	TypeName   string
	Dictionary bool
}

// Len is the number of rows.
func (c *Column) Len() int {
	switch {
	case c.Lists != nil:
		return len(c.Lists)
	case c.Strings != nil:
		return len(c.Strings)
	case c.Bools != nil:
		return len(c.Bools)
	case c.Floats != nil:
		return len(c.Floats)
	}
	return len(c.Ints)
}

func (c *Column) isNull(i int) bool { return c.Valid != nil && !c.Valid[i] }

// Write writes the columns (one row group, zstd, created by dpaudit) as
// pqarrow.NewFileWriter with WithStoreSchema wrote the Arrow record of the
// same fields. Types: Bool, Int64, Float64, String, Float32List (required,
// without null elements). Like arrow-go's writer, it closes w when w is an
// io.Closer (after an error too, once the file writer exists).
func Write(w io.Writer, cols []Column) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("dpaudit"),
	)
	fields := make(schema.FieldList, len(cols))
	arrowFields := make([]arrow.Field, len(cols))
	for i := range cols {
		c := &cols[i]
		node, at, err := c.schemaNode()
		if err != nil {
			return err
		}
		fields[i] = node
		arrowFields[i] = arrow.Field{Name: c.Name, Type: at, Nullable: !c.Required}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return err
	}
	meta, err := arrowSchemaMetadata(arrowFields, props)
	if err != nil {
		return err
	}
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return err
	}
	rg := fw.AppendRowGroup()
	for i := range cols {
		cw, err := rg.NextColumn()
		if err == nil {
			err = writeColumn(cw, &cols[i])
		}
		if err != nil {
			fw.Close()
			return err
		}
	}
	if err := rg.Close(); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// arrowSchemaMetadata is the ARROW:schema key pqarrow's WithStoreSchema
// writes: the IPC-serialised schema, base64.
func arrowSchemaMetadata(fields []arrow.Field, props *parquet.WriterProperties) (metadata.KeyValueMetadata, error) {
	var buf bytes.Buffer
	iw := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, nil)), ipc.WithAllocator(props.Allocator()))
	if err := iw.Close(); err != nil {
		return nil, err
	}
	meta := metadata.KeyValueMetadata{}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(buf.Bytes()))
	return meta, nil
}

// schemaNode is the schema node and Arrow type pqarrow makes for c.
func (c *Column) schemaNode() (schema.Node, arrow.DataType, error) {
	rep := parquet.Repetitions.Optional
	if c.Required {
		rep = parquet.Repetitions.Required
	}
	var node schema.Node
	var at arrow.DataType
	var err error
	switch c.Type {
	case Int64:
		at = arrow.PrimitiveTypes.Int64
		node, err = schema.NewPrimitiveNodeLogical(c.Name, rep, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
	case String:
		at = arrow.BinaryTypes.String
		node, err = schema.NewPrimitiveNodeLogical(c.Name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
	case Bool:
		at = arrow.FixedWidthTypes.Boolean
		node, err = schema.NewPrimitiveNodeLogical(c.Name, rep, schema.NoLogicalType{}, parquet.Types.Boolean, -1, -1)
	case Float64:
		at = arrow.PrimitiveTypes.Float64
		node, err = schema.NewPrimitiveNodeLogical(c.Name, rep, schema.NoLogicalType{}, parquet.Types.Double, -1, -1)
	case Float32List:
		if !c.Required || c.Valid != nil {
			return nil, nil, fmt.Errorf("column %q: only required lists are written", c.Name)
		}
		// pqarrow stores the element field under Parquet's name for it
		at = arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Float32, Nullable: true})
		var elem schema.Node
		elem, err = schema.NewPrimitiveNodeLogical("element", parquet.Repetitions.Optional, schema.NoLogicalType{}, parquet.Types.Float, -1, -1)
		if err == nil {
			node, err = schema.ListOfWithName(c.Name, elem, rep, -1)
		}
	default:
		err = fmt.Errorf("column %q: cannot write type %s", c.Name, c.Type)
	}
	return node, at, err
}

// writeColumn writes one column with the method pqarrow's writeDenseArrow
// uses for its type: the dense batch when nothing is null, the spaced one
// (values at every row, a validity bitmap) otherwise.
func writeColumn(cw file.ColumnChunkWriter, c *Column) error {
	if c.Required && c.Valid != nil {
		return fmt.Errorf("column %q: required with nulls", c.Name)
	}
	defs, valid := c.levels()
	var err error
	switch w := cw.(type) {
	case *file.Float64ColumnChunkWriter:
		err = writeDense(w.WriteBatch, w.WriteBatchSpacedWithError, c.Floats, defs, valid)
	case *file.Int64ColumnChunkWriter:
		err = writeDense(w.WriteBatch, w.WriteBatchSpacedWithError, c.Ints, defs, valid)
	case *file.BooleanColumnChunkWriter:
		err = writeBools(w, c.Bools, defs, valid)
	case *file.ByteArrayColumnChunkWriter:
		err = writeStrings(w, c.Strings, defs, valid)
	case *file.Float32ColumnChunkWriter:
		err = writeFloat32Lists(w, c.Lists)
	default:
		err = fmt.Errorf("unexpected column writer %T", cw)
	}
	if err != nil {
		return fmt.Errorf("column %q: %w", c.Name, err)
	}
	return nil
}

// levels are the definition levels of a flat column (nil when required)
// and its validity bitmap (nil when nothing is null).
func (c *Column) levels() ([]int16, []byte) {
	if c.Required {
		return nil, nil
	}
	n := c.Len()
	defs := make([]int16, n)
	var valid []byte
	if c.Valid != nil {
		valid = make([]byte, (n+7)/8)
	}
	for i := range defs {
		if c.isNull(i) {
			continue
		}
		defs[i] = 1
		if valid != nil {
			valid[i/8] |= 1 << (i % 8)
		}
	}
	return defs, valid
}

func writeDense[T any](dense func([]T, []int16, []int16) (int64, error),
	spaced func([]T, []int16, []int16, []byte, int64) (int64, error), vals []T, defs []int16, valid []byte) error {
	var err error
	if valid == nil {
		_, err = dense(vals, defs, nil)
	} else {
		_, err = spaced(vals, defs, nil, valid, 0)
	}
	return err
}

// writeBools: a bitmap batch when nothing is null (pqarrow writes the
// Arrow value bitmap directly), else spaced []bool.
func writeBools(w *file.BooleanColumnChunkWriter, vals []bool, defs []int16, valid []byte) error {
	n := len(vals)
	if n == 0 {
		_, err := w.WriteBatch(nil, defs, nil)
		return err
	}
	if valid != nil {
		_, err := w.WriteBatchSpacedWithError(vals, defs, nil, valid, 0)
		return err
	}
	bits := make([]byte, (n+7)/8)
	for i, v := range vals {
		if v {
			bits[i/8] |= 1 << (i % 8)
		}
	}
	_, err := w.WriteBitmapBatch(bits, 0, n, defs, nil)
	return err
}

// writeStrings: Arrow offsets when the encoder takes them, else slices
// (the dictionary encoder, the default).
func writeStrings(w *file.ByteArrayColumnChunkWriter, vals []string, defs []int16, valid []byte) error {
	var data []byte
	offsets := make([]int32, len(vals)+1)
	for i, v := range vals {
		data = append(data, v...)
		offsets[i+1] = int32(len(data))
	}
	var err error
	switch {
	case w.SupportsArrowOffsets() && valid == nil:
		_, err = w.WriteBatchArrow(data, offsets, defs, nil)
	case w.SupportsArrowOffsets():
		_, err = w.WriteBatchSpacedArrow(data, offsets, defs, nil, valid, 0)
	default:
		bas := make([]parquet.ByteArray, len(vals))
		for i := range bas {
			bas[i] = parquet.ByteArray(data[offsets[i]:offsets[i+1]])
		}
		err = writeDense(w.WriteBatch, w.WriteBatchSpacedWithError, bas, defs, valid)
	}
	return err
}

// writeFloat32Lists writes a required list<float32> column with nullable,
// never null, elements: every element at definition level 2, the first of
// a row at repetition level 0; an empty list is one level 0 entry.
func writeFloat32Lists(w *file.Float32ColumnChunkWriter, lists [][]float32) error {
	var vals []float32
	var defs, reps []int16
	for _, l := range lists {
		if len(l) == 0 {
			defs, reps = append(defs, 0), append(reps, 0)
			continue
		}
		for k := range l {
			defs = append(defs, 2)
			reps = append(reps, min(int16(k), 1))
		}
		vals = append(vals, l...)
	}
	_, err := w.WriteBatch(vals, defs, reps)
	return err
}
