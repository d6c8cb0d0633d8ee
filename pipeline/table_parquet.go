package pipeline

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Parquet I/O on arrow-go's parquet/file layer. Tables are flat columns of
// four types, so the Arrow-record layer (parquet/pqarrow) is not needed —
// and it imports arrow/flight, which links gRPC and protobuf (about a fifth
// of the binary and of a cold build) into a tool that never speaks gRPC.
// The writer makes the calls pqarrow's writer makes for these types (the
// same schema nodes, the same ARROW:schema metadata, the same column-writer
// methods), so the files are byte for byte what pqarrow wrote; the test
// beside it checks that against pqarrow itself.

// writeParquet writes t to w as pqarrow.NewFileWriter with
// WithStoreSchema would.
func writeParquet(w io.Writer, t *Table) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("dpaudit"),
	)
	fields := make(schema.FieldList, len(t.Columns))
	arrowFields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		node, err := c.Type.parquetNode(c.Name)
		if err != nil {
			return err
		}
		fields[i] = node
		arrowFields[i] = arrow.Field{Name: c.Name, Type: c.Type.arrow(), Nullable: true}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return err
	}
	var ipcSchema bytes.Buffer
	iw := ipc.NewWriter(&ipcSchema, ipc.WithSchema(arrow.NewSchema(arrowFields, nil)), ipc.WithAllocator(props.Allocator()))
	if err := iw.Close(); err != nil {
		return err
	}
	meta := metadata.KeyValueMetadata{}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(ipcSchema.Bytes()))
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return err
	}
	rg := fw.AppendRowGroup()
	for _, c := range t.Columns {
		cw, err := rg.NextColumn()
		if err != nil {
			fw.Close()
			return err
		}
		if err := writeColumn(cw, c); err != nil {
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

// parquetNode is the schema node pqarrow makes for an optional column of
// type t.
func (t ColType) parquetNode(name string) (schema.Node, error) {
	switch t {
	case Int64:
		return schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
	case String:
		return schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
	case Bool:
		return schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.NoLogicalType{}, parquet.Types.Boolean, -1, -1)
	}
	return schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.NoLogicalType{}, parquet.Types.Double, -1, -1)
}

// writeColumn writes one column with the method pqarrow's writeDenseArrow
// uses for its type: the dense batch when nothing is null, the spaced one
// (values at every row, a validity bitmap) otherwise.
func writeColumn(cw file.ColumnChunkWriter, c *Column) error {
	n := len(c.Values)
	defs := make([]int16, n)
	valid := make([]byte, (n+7)/8)
	nulls := 0
	for i, v := range c.Values {
		if v == nil {
			nulls++
			continue
		}
		defs[i] = 1
		valid[i/8] |= 1 << (i % 8)
	}
	var err error
	switch w := cw.(type) {
	case *file.Float64ColumnChunkWriter:
		vals := make([]float64, n)
		for i, v := range c.Values {
			if v != nil {
				vals[i] = v.(float64)
			}
		}
		if nulls == 0 {
			_, err = w.WriteBatch(vals, defs, nil)
		} else {
			_, err = w.WriteBatchSpacedWithError(vals, defs, nil, valid, 0)
		}
	case *file.Int64ColumnChunkWriter:
		vals := make([]int64, n)
		for i, v := range c.Values {
			if v != nil {
				vals[i] = v.(int64)
			}
		}
		if nulls == 0 {
			_, err = w.WriteBatch(vals, defs, nil)
		} else {
			_, err = w.WriteBatchSpacedWithError(vals, defs, nil, valid, 0)
		}
	case *file.BooleanColumnChunkWriter:
		err = writeBools(w, c.Values, defs, valid, nulls)
	case *file.ByteArrayColumnChunkWriter:
		var data []byte
		offsets := make([]int32, n+1)
		for i, v := range c.Values {
			if v != nil {
				data = append(data, v.(string)...)
			}
			offsets[i+1] = int32(len(data))
		}
		switch {
		case w.SupportsArrowOffsets() && nulls == 0:
			_, err = w.WriteBatchArrow(data, offsets, defs, nil)
		case w.SupportsArrowOffsets():
			_, err = w.WriteBatchSpacedArrow(data, offsets, defs, nil, valid, 0)
		default: // the dictionary encoder (the default) takes slices
			vals := make([]parquet.ByteArray, n)
			for i := range vals {
				vals[i] = parquet.ByteArray(data[offsets[i]:offsets[i+1]])
			}
			if nulls == 0 {
				_, err = w.WriteBatch(vals, defs, nil)
			} else {
				_, err = w.WriteBatchSpacedWithError(vals, defs, nil, valid, 0)
			}
		}
	default:
		err = fmt.Errorf("column %q: unexpected column writer %T", c.Name, cw)
	}
	if err != nil {
		return fmt.Errorf("column %q: %w", c.Name, err)
	}
	return nil
}

// writeBools: a bitmap batch when nothing is null (pqarrow writes the
// Arrow value bitmap directly), else spaced []bool.
func writeBools(w *file.BooleanColumnChunkWriter, values []any, defs []int16, valid []byte, nulls int) error {
	n := len(values)
	if n == 0 {
		_, err := w.WriteBatch(nil, defs, nil)
		return err
	}
	vals := make([]bool, n)
	bits := make([]byte, (n+7)/8)
	for i, v := range values {
		if v != nil && v.(bool) {
			vals[i] = true
			bits[i/8] |= 1 << (i % 8)
		}
	}
	var err error
	if nulls == 0 {
		_, err = w.WriteBitmapBatch(bits, 0, n, defs, nil)
	} else {
		_, err = w.WriteBatchSpacedWithError(vals, defs, nil, valid, 0)
	}
	return err
}

// readParquetTable reads the named columns (all when names is nil) of a
// Parquet file, in the order given.
func readParquetTable(path string, names []string) (*Table, error) {
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
	idx := make([]int, 0, sc.NumColumns())
	if names == nil {
		for i := 0; i < sc.NumColumns(); i++ {
			idx = append(idx, i)
		}
	}
	for _, n := range names {
		i := sc.ColumnIndexByName(n)
		if i < 0 {
			return nil, fmt.Errorf("%s: no column %q", path, n)
		}
		idx = append(idx, i)
	}
	out := &Table{}
	for _, i := range idx {
		descr := sc.Column(i)
		c := &Column{Name: descr.Name(), Values: make([]any, 0, rdr.NumRows())}
		if c.Type, err = parquetColType(path, descr); err != nil {
			return nil, err
		}
		for g := 0; g < rdr.NumRowGroups(); g++ {
			cr, err := rdr.RowGroup(g).Column(i)
			if err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", path, c.Name, err)
			}
			if c.Values, err = readColumnChunk(cr, c.Values); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", path, c.Name, err)
			}
		}
		out.Columns = append(out.Columns, c)
	}
	return out, nil
}

// readBatch is how many levels readColumnChunk reads at a time.
const readBatch = 4096

// readColumnChunk appends the values of one column chunk to vals (nil for
// a null).
func readColumnChunk(cr file.ColumnChunkReader, vals []any) ([]any, error) {
	maxDef := cr.Descriptor().MaxDefinitionLevel()
	defs := make([]int16, readBatch)
	var read func() (levels, values int, err error)
	var value func(k int) any
	switch r := cr.(type) {
	case *file.Float64ColumnChunkReader:
		buf := make([]float64, readBatch)
		read = func() (int, int, error) { n, v, err := r.ReadBatch(readBatch, buf, defs, nil); return int(n), v, err }
		value = func(k int) any { return buf[k] }
	case *file.Int64ColumnChunkReader:
		buf := make([]int64, readBatch)
		read = func() (int, int, error) { n, v, err := r.ReadBatch(readBatch, buf, defs, nil); return int(n), v, err }
		value = func(k int) any { return buf[k] }
	case *file.BooleanColumnChunkReader:
		buf := make([]bool, readBatch)
		read = func() (int, int, error) { n, v, err := r.ReadBatch(readBatch, buf, defs, nil); return int(n), v, err }
		value = func(k int) any { return buf[k] }
	case *file.ByteArrayColumnChunkReader:
		buf := make([]parquet.ByteArray, readBatch)
		read = func() (int, int, error) { n, v, err := r.ReadBatch(readBatch, buf, defs, nil); return int(n), v, err }
		value = func(k int) any { return string(buf[k]) }
	default:
		return nil, fmt.Errorf("unsupported column reader %T", cr)
	}
	for cr.HasNext() {
		levels, _, err := read()
		if err != nil {
			return nil, err
		}
		if levels == 0 {
			break
		}
		k := 0
		for _, d := range defs[:levels] {
			if maxDef > 0 && d < maxDef {
				vals = append(vals, nil)
				continue
			}
			vals = append(vals, value(k))
			k++
		}
	}
	return vals, nil
}

// parquetColType maps a Parquet column to the table column types, as
// pqarrow mapped them to Arrow types before: doubles, signed 64-bit
// integers, UTF-8 strings and booleans at the top level; anything else
// (other widths, timestamps, binary, nested columns) is refused.
func parquetColType(path string, d *schema.Column) (ColType, error) {
	lt := d.LogicalType()
	plain := lt == nil || lt.Equals(schema.NoLogicalType{})
	switch {
	case d.MaxRepetitionLevel() > 0 || len(d.ColumnPath()) > 1:
		return 0, fmt.Errorf("%s: column %s has unsupported type %s", path, d.Path(), "nested")
	case d.PhysicalType() == parquet.Types.Double && plain:
		return Float64, nil
	case d.PhysicalType() == parquet.Types.Int64 && (plain || lt.Equals(schema.NewIntLogicalType(64, true))):
		return Int64, nil
	case d.PhysicalType() == parquet.Types.ByteArray && lt != nil && lt.Equals(schema.StringLogicalType{}):
		return String, nil
	case d.PhysicalType() == parquet.Types.Boolean && plain:
		return Bool, nil
	}
	return 0, fmt.Errorf("%s: column %s has unsupported type %s", path, d.Name(), parquetTypeName(d))
}

// parquetTypeName names a column's type for the refusal: the logical type
// when there is one, else the physical type.
func parquetTypeName(d *schema.Column) string {
	if lt := d.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
		return fmt.Sprintf("%s (%s)", lt, d.PhysicalType())
	}
	return d.PhysicalType().String()
}
