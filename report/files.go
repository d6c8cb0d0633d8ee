package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

// Tables locates the tables of a results folder: summary.parquet and
// trials/point=<id>/part-<k>.parquet.
type Tables struct {
	Summary string
	Trials  []TrialPart
}

// FindTables lists the tables of a results folder.
func FindTables(dir string) (Tables, error) {
	t := Tables{Summary: filepath.Join(dir, "summary.parquet")}
	if _, err := os.Stat(t.Summary); err != nil {
		return t, fmt.Errorf("%s has no summary.parquet (run the spec first: dpaudit run SPEC)", dir)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "trials", "point=*", "*.parquet"))
	sort.Strings(parts)
	for _, p := range parts {
		id := strings.TrimPrefix(filepath.Base(filepath.Dir(p)), "point=")
		t.Trials = append(t.Trials, TrialPart{PointID: id, Path: p})
	}
	return t, nil
}

// Load reads the columns a figure needs from the tables.
func Load(f *spec.Figure, summary *pipeline.Table, trials []TrialPart) (*Frame, error) {
	cols := Columns(f)
	if f.Common().Table == "trials" {
		if len(trials) == 0 {
			return nil, fmt.Errorf("figure %s reads the trials table, and there is none", f.Common().Name)
		}
		return TrialsFrame(summary, trials, cols)
	}
	return FromTable(summary, cols)
}
