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
	c := f.Common()
	if c.Table == "trials" {
		if len(trials) == 0 {
			return nil, fmt.Errorf("figure %s reads the trials table, and there is none", c.Name)
		}
		// A where over point parameters only selects whole points: apply
		// it to the summary and read only those points' trials.
		done := ""
		if c.Where != "" {
			if keep, ok, err := pointFilter(c.Where, summary, trials[0].Path); err != nil {
				return nil, err
			} else if ok {
				var kept []TrialPart
				for _, p := range trials {
					if keep[p.PointID] {
						kept = append(kept, p)
					}
				}
				if len(kept) == 0 {
					return nil, fmt.Errorf("figure %s: no point is left after where %q", c.Name, c.Where)
				}
				trials, done = kept, c.Where
			}
		}
		fr, err := TrialsFrame(summary, trials, cols)
		if err != nil {
			return nil, err
		}
		fr.whereDone = done
		return fr, nil
	}
	return FromTable(summary, cols)
}

// pointFilter evaluates a where expression on the summary when it reads
// no trials column; ok is false when it does.
func pointFilter(where string, summary *pipeline.Table, trialPath string) (map[string]bool, bool, error) {
	ids, err := whereIdents(where)
	if err != nil {
		return nil, false, err
	}
	trialCols, err := pipeline.ParquetColumns(trialPath)
	if err != nil {
		return nil, false, err
	}
	for _, id := range ids {
		if contains(trialCols, id) || summary.Col(id) == nil {
			return nil, false, nil
		}
	}
	fr, err := FromTable(summary, append(ids, "point_id"))
	if err != nil {
		return nil, false, err
	}
	mask, err := WhereMask(where, fr)
	if err != nil {
		return nil, false, err
	}
	keep := map[string]bool{}
	idc := fr.Col("point_id")
	for i, k := range mask {
		if k {
			keep[idc.Str[i]] = true
		}
	}
	return keep, true, nil
}
