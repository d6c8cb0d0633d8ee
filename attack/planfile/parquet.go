package planfile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/attack"
)

// The plan's columns: canary (int64 id, 0 … m−1) and member (bool, train
// on it?), then for input canaries label (int64), x (list<float32>, the
// features in row-major order of the manifest's shape) and source_index
// (int64, the record's index in its source split, -1 for a crafted
// input), for gradient canaries coordinate (int64, the parameter index).
func planSchema(p *attack.CanaryPlan) *arrow.Schema {
	fields := []arrow.Field{
		{Name: "canary", Type: arrow.PrimitiveTypes.Int64},
		{Name: "member", Type: arrow.FixedWidthTypes.Boolean},
	}
	if p.Records != nil {
		fields = append(fields,
			arrow.Field{Name: "label", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "x", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
			arrow.Field{Name: "source_index", Type: arrow.PrimitiveTypes.Int64})
	} else {
		fields = append(fields, arrow.Field{Name: "coordinate", Type: arrow.PrimitiveTypes.Int64})
	}
	return arrow.NewSchema(fields, nil)
}

// writeParquet writes the plan table through a temporary file and
// returns its column names.
func writeParquet(path string, p *attack.CanaryPlan) ([]string, error) {
	schema := planSchema(p)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for j, m := range p.Member {
		b.Field(0).(*array.Int64Builder).Append(int64(j))
		b.Field(1).(*array.BooleanBuilder).Append(m)
		if p.Records == nil {
			b.Field(2).(*array.Int64Builder).Append(int64(p.Coordinates[j]))
			continue
		}
		r := p.Records[j]
		b.Field(2).(*array.Int64Builder).Append(int64(r.Y))
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float32Builder).AppendValues(r.X, nil)
		b.Field(4).(*array.Int64Builder).Append(int64(p.Index[j]))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := createTemp(path)
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCreatedBy("dpaudit"))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil { // closes f too
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	var cols []string
	for _, fl := range schema.Fields() {
		cols = append(cols, fl.Name)
	}
	return cols, nil
}

// Read reads a plan from its Parquet file or its manifest (either path
// finds the other) and checks both digests: a Parquet file that changed
// since the plan was made, or bits that do not match the plan digest,
// are refused as errors wrapping attack.ErrInvalid.
func Read(path string) (*Plan, error) {
	man, pq := path, path
	if strings.EqualFold(filepath.Ext(path), ".json") {
		pq = ""
	} else {
		man = ManifestPath(path)
	}
	b, err := os.ReadFile(man)
	if err != nil {
		return nil, invalidf("canary plan: %v (a plan is its Parquet file and the manifest beside it)", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Format != FormatName {
		return nil, invalidf("canary plan: %s is not a plan manifest (made by dpaudit canaries make)", man)
	}
	if m.Version != Version {
		return nil, invalidf("canary plan: %s has version %d; this dpaudit reads version %d", man, m.Version, Version)
	}
	if pq == "" {
		pq = filepath.Join(filepath.Dir(man), m.Parquet)
	}
	sum, err := fileSHA256(pq)
	if err != nil {
		return nil, invalidf("canary plan: %v", err)
	}
	if sum != m.ParquetSHA256 {
		return nil, invalidf("canary plan: %s changed since the plan was made (SHA-256 %.12s…, the manifest says %.12s…): a plan must not be edited", pq, sum, m.ParquetSHA256)
	}
	p := &Plan{Manifest: m, Path: pq}
	if p.IDs, p.Member, err = readBits(pq); err != nil {
		return nil, invalidf("canary plan: %s: %v", pq, err)
	}
	if d := MembershipDigest(p.IDs, p.Member); d != m.MembershipSHA256 || len(p.IDs) != m.Count {
		return nil, invalidf("canary plan: %s: its canaries and bits do not match the plan digest in %s", pq, man)
	}
	return p, nil
}

// readBits reads the canary and member columns.
func readBits(path string) ([]string, []bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		return nil, nil, err
	}
	sc := rdr.MetaData().Schema
	ci, mi := sc.ColumnIndexByName("canary"), sc.ColumnIndexByName("member")
	if ci < 0 || mi < 0 {
		return nil, nil, fmt.Errorf("no canary or member column")
	}
	groups := make([]int, rdr.NumRowGroups())
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), []int{ci, mi}, groups)
	if err != nil {
		return nil, nil, err
	}
	defer tbl.Release()
	var ids []string
	var member []bool
	for _, ch := range tbl.Column(0).Data().Chunks() {
		a, ok := ch.(*array.Int64)
		if !ok {
			return nil, nil, fmt.Errorf("canary column of type %s", ch.DataType())
		}
		for j := 0; j < a.Len(); j++ {
			ids = append(ids, strconv.FormatInt(a.Value(j), 10))
		}
	}
	for _, ch := range tbl.Column(1).Data().Chunks() {
		a, ok := ch.(*array.Boolean)
		if !ok {
			return nil, nil, fmt.Errorf("member column of type %s", ch.DataType())
		}
		for j := 0; j < a.Len(); j++ {
			member = append(member, a.Value(j))
		}
	}
	return ids, member, nil
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", attack.ErrInvalid, fmt.Sprintf(format, args...))
}
