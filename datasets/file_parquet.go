package datasets

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// Parquet files are read on arrow-go's parquet/file layer, column chunk by
// column chunk, straight into the float32 matrix: not through
// parquet/pqarrow, whose arrow/flight import would link gRPC and protobuf
// into the binary (cmd/dpaudit's TestBinaryLinksNoGRPC refuses that).

// parquetBatch is how many values are decoded at once.
const parquetBatch = 8192

// parquetGroupBytes bounds the values of one group of feature columns of
// one row group, read side by side (on all cores) before they go to their
// places in the matrix a block of rows at a time. The reader holds each
// column chunk it reads whole, so memory beyond the matrix stays about a
// group's chunks and values for any width — never one row group of every
// column. A variable so that tests can make groups small.
var parquetGroupBytes = 32 << 20

// readParquet reads the label and feature columns of a Parquet file. A
// feature column is a number (any integer or float type, or bool) or a
// list of numbers with the same length in every row (an image in one
// column).
func readParquet(path, label string, features []string, testFraction float64) (*table, error) {
	t := &table{what: baseName(path)}
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, t.errorf("not a readable Parquet file: %v", err)
	}
	defer rdr.Close()
	root := rdr.MetaData().Schema.Root()
	names := make([]string, root.NumFields())
	for i := range names {
		names[i] = root.Field(i).Name()
	}
	li, feats, err := selectColumns(names, label, features, t.what)
	if err != nil {
		return nil, err
	}
	p := &parquetFill{t: t, r: rdr}
	if err := p.describe(li, feats); err != nil {
		return nil, err
	}
	if err := p.layout(); err != nil {
		return nil, err
	}
	if err := p.readLabels(); err != nil {
		return nil, err
	}
	if testFraction > 0 {
		// Place the test rows at the end as they are read: splitting the
		// matrix afterwards would copy them.
		isTest, nTest, err := splitRows(t, testFraction)
		if err != nil {
			return nil, err
		}
		p.places = splitPlaces(isTest, nTest)
		y := make([]int32, t.n)
		for i, v := range t.y {
			y[p.places[i]] = v
		}
		t.y, t.testRows = y, nTest
	}
	t.x = make([]float32, t.n*t.d)
	if err := p.readFeatures(); err != nil {
		return nil, err
	}
	if err := p.checkFinite(); err != nil {
		return nil, err
	}
	return t, nil
}

// parquetFill converts a Parquet file's columns into a table.
type parquetFill struct {
	t     *table
	r     *file.Reader
	label *parquetColumn
	feats []*parquetColumn
	// places[i] is the matrix row of file row i (nil: the same).
	places []int
}

// parquetColumn is one top-level column of the file: a number per row,
// or a list of numbers per row, stored in one leaf column.
type parquetColumn struct {
	name     string
	leaf     int // the leaf column's index
	desc     *schema.Column
	list     bool
	unsigned bool  // an unsigned integer stored in a signed physical type
	present  int16 // definition level from which the row's value (or list) is not null
	element  int16 // list: definition level from which the list holds an element
	width    int   // values per row
	off      int   // offset of the first in a matrix row
}

// describe finds the leaf column under each chosen field and refuses a
// label or feature column that is not numeric before anything is read.
func (p *parquetFill) describe(label int, feats []int) error {
	t := p.t
	c := p.column(label)
	if c == nil || c.list || !numericLeaf(c) {
		return &FieldError{Field: "label", Err: invalidf("%s: the label column %q has type %s; labels are class ids 0, 1, … (integers)", t.what, p.fieldName(label), p.typeName(label, c))}
	}
	p.label = c
	for _, f := range feats {
		c := p.column(f)
		if c == nil || !numericLeaf(c) {
			return &FieldError{Field: "features", Err: invalidf("%s: column %q has type %s, not a number or a list of numbers", t.what, p.fieldName(f), p.typeName(f, c))}
		}
		p.feats = append(p.feats, c)
	}
	return nil
}

func (p *parquetFill) fieldName(field int) string {
	return p.r.MetaData().Schema.Root().Field(field).Name()
}

// column describes top-level field i, or returns nil when it is neither a
// flat column nor a list of flat values (a struct, a map, nested lists).
func (p *parquetFill) column(field int) *parquetColumn {
	sc := p.r.MetaData().Schema
	node := sc.Root().Field(field)
	leaf := -1
	for i := range sc.NumColumns() {
		if sc.ColumnRoot(i) == node {
			if leaf >= 0 {
				return nil
			}
			leaf = i
		}
	}
	if leaf < 0 {
		return nil
	}
	d := sc.Column(leaf)
	c := &parquetColumn{name: node.Name(), leaf: leaf, desc: d, list: d.MaxRepetitionLevel() == 1}
	if d.MaxRepetitionLevel() > 1 || (!c.list && len(d.ColumnPath()) != 1) {
		return nil
	}
	// Definition levels count the optional and repeated nodes from the
	// top: the field's own level says the row is not null, the repeated
	// node's that a list has an element.
	var path []schema.Node
	for n := d.SchemaNode(); n != nil && n.Parent() != nil; n = n.Parent() {
		path = append(path, n)
	}
	var def int16
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].RepetitionType() != parquet.Repetitions.Required {
			def++
		}
		if path[i] == node {
			c.present = def
		}
		if path[i].RepetitionType() == parquet.Repetitions.Repeated {
			c.element = def
		}
	}
	return c
}

// numericLeaf reports whether c's values convert to numbers (and notes
// unsigned integers, which Parquet stores in signed types).
func numericLeaf(c *parquetColumn) bool {
	lt := c.desc.LogicalType()
	plain := lt == nil || lt.Equals(schema.NoLogicalType{})
	switch c.desc.PhysicalType() {
	case parquet.Types.Boolean, parquet.Types.Float, parquet.Types.Double:
		return plain
	case parquet.Types.Int32, parquet.Types.Int64:
		if plain {
			return true
		}
		it, ok := lt.(schema.IntLogicalType)
		c.unsigned = ok && !it.IsSigned()
		return ok
	}
	return false
}

// typeName names field i's type in messages: its leaf's logical type (or
// physical type), as a list where it is one; "group" for other nesting.
func (p *parquetFill) typeName(field int, c *parquetColumn) string {
	if c == nil {
		return "group"
	}
	name := strings.ToLower(c.desc.PhysicalType().String())
	if lt := c.desc.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
		name = lt.String()
	}
	if c.list {
		return "list<" + name + ">"
	}
	return name
}

// layout fixes each feature column's width and offset in a row: 1 for a
// number, and for a list the length of its first row (every row is
// checked against it when read).
func (p *parquetFill) layout() error {
	t := p.t
	for _, c := range p.feats {
		c.width = 1
		if c.list {
			w, err := p.firstListLength(c)
			if err != nil {
				return err
			}
			c.width = w
		}
		c.off = t.d
		t.d += c.width
		for j := range c.width {
			if c.list {
				t.names = append(t.names, fmt.Sprintf("%s[%d]", c.name, j))
			} else {
				t.names = append(t.names, c.name)
			}
		}
	}
	t.shape = []int{t.d}
	if t.d == 0 {
		return &FieldError{Field: "features", Err: invalidf("%s: the feature columns hold no values", t.what)}
	}
	return nil
}

// readLabels reads the label column (all rows; this fixes the row count).
func (p *parquetFill) readLabels() error {
	t := p.t
	t.n = int(p.r.NumRows())
	if t.n == 0 {
		return t.errorf("the file has no rows")
	}
	t.y = make([]int32, 0, t.n)
	vals := make([]float64, parquetBatch)
	for g := range p.r.NumRowGroups() {
		rows := int(p.r.RowGroup(g).NumRows())
		base := len(t.y)
		err := readFlat(p, p.label, g, base, rows, vals, func(row int, v []float64) error {
			for i, x := range v {
				y, err := labelOf(x, func() string { return fmt.Sprintf("%s: row %d", t.what, row+i) })
				if err != nil {
					return err
				}
				t.y = append(t.y, y)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readFeatures reads the feature columns row group by row group, in
// groups of columns read side by side.
func (p *parquetFill) readFeatures() error {
	base := 0
	for g := range p.r.NumRowGroups() {
		rows := int(p.r.RowGroup(g).NumRows())
		for lo := 0; lo < len(p.feats); {
			hi, bytes := lo, 0
			for hi < len(p.feats) && (hi == lo || bytes+rows*p.feats[hi].width*4 <= parquetGroupBytes) {
				bytes += rows * p.feats[hi].width * 4
				hi++
			}
			if err := p.readGroup(p.feats[lo:hi], g, base, rows); err != nil {
				return err
			}
			lo = hi
			// The reader allocates every column chunk it reads afresh: a
			// file's worth of garbage, which with the matrix live the heap
			// could hold until it doubled. Collecting after each group
			// bounds it to one group; the matrix is pointer-free, so a
			// collection costs next to nothing.
			runtime.GC()
		}
		base += rows
	}
	return nil
}

// checkFinite names the first row, in file order, with a NaN or infinite
// feature.
func (p *parquetFill) checkFinite() error {
	t := p.t
	if firstNonFinite(t.x) < 0 {
		return nil
	}
	for i := range t.n {
		row := i
		if p.places != nil {
			row = p.places[i]
		}
		if j := firstNonFinite(t.x[row*t.d : (row+1)*t.d]); j >= 0 {
			return t.errorf("row %d, column %q is %v (features must be finite)", i, t.names[j], t.x[row*t.d+j])
		}
	}
	return nil
}

// matrixRow is where file row i starts in the matrix.
func (p *parquetFill) matrixRow(i int) int {
	if p.places != nil {
		i = p.places[i]
	}
	return i * p.t.d
}

// readGroup reads one group of feature columns of row group g (file rows
// base … base+rows−1), each column on its own core: a list column straight
// into its place in each row, a number column into a buffer that then goes
// to the matrix in blocks of rows, so that writes stay in cache.
func (p *parquetFill) readGroup(cols []*parquetColumn, g, base, rows int) error {
	bufs := make([][]float32, len(cols))
	err := parallel.For(context.Background(), len(cols), 0, func(i int) error {
		c := cols[i]
		if c.list {
			return p.readList(c, g, base, rows)
		}
		bufs[i] = make([]float32, rows)
		return readFlat(p, c, g, base, rows, bufs[i], nil)
	})
	if err != nil {
		return err
	}
	x := p.t.x
	const block = 64
	for r0 := 0; r0 < rows; r0 += block {
		r1 := min(r0+block, rows)
		for i, v := range bufs {
			if v == nil {
				continue
			}
			off := cols[i].off
			for r := r0; r < r1; r++ {
				x[p.matrixRow(base+r)+off] = v[r]
			}
		}
	}
	return nil
}
