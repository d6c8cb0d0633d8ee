package dpaudit

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/pipeline"
)

// trialsSchema is the one schema of every trials table of a results
// folder: the union of the shards' columns, in first-seen order over the
// points. A score column a distinguisher does not produce is then present
// and null, so DuckDB reads trials/*/*.parquet without union_by_name.
func trialsSchema(srcs []string) ([]*pipeline.Column, error) {
	var out []*pipeline.Column
	seen := map[string]*pipeline.Column{}
	for _, src := range srcs {
		cols, err := pipeline.ParquetSchema(src)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			if prev, ok := seen[c.Name]; ok {
				if prev.Type != c.Type {
					return nil, fmt.Errorf("trials column %s is %s in one table and %s in %s", c.Name, prev.Type, c.Type, src)
				}
				continue
			}
			seen[c.Name] = c
			out = append(out, c)
		}
	}
	return out, nil
}

// conformTrialPart rewrites the published trials table path with the
// schema's columns in order, nulls where it has none; a table that already
// has the schema is left as it is (a verified copy of the store's bytes).
func conformTrialPart(path string, schema []*pipeline.Column) error {
	cols, err := pipeline.ParquetSchema(path)
	if err != nil {
		return err
	}
	same := len(cols) == len(schema)
	for i := 0; same && i < len(cols); i++ {
		same = cols[i].Name == schema[i].Name && cols[i].Type == schema[i].Type
	}
	if same {
		return nil
	}
	t, err := pipeline.ReadParquet(path)
	if err != nil {
		return err
	}
	out := &pipeline.Table{}
	for _, c := range schema {
		vals := make([]any, t.Rows())
		if tc := t.Col(c.Name); tc != nil {
			vals = tc.Values
		}
		if err := out.Add(c.Name, c.Type, vals); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
	}
	f, err := pipeline.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	if err := pipeline.WriteParquet(tmp, out); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
