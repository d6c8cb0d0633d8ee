package dpaudit

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/internal/textdist"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// An expect entry states the value a summary column takes at one point
// (spec.Expect). Load checks that the column is written and that the
// selector picks exactly one point, so a typo is a positioned spec error
// before anything runs; CheckExpect compares a published summary with the
// stated values.

// expectPoints resolves every entry of the expect block to the index of
// the point it selects, or returns the positioned problems.
func expectPoints(s *spec.Spec, points []spec.Point, cols []spec.Column, c *stages.Compiled) ([]int, error) {
	exps := points[0].Exp.Expect
	if len(exps) == 0 {
		return nil, nil
	}
	summary := map[string]bool{}
	for _, name := range c.Columns.Summary {
		summary[name] = true
	}
	paths := map[string]string{} // selector column → spec path
	var names []string
	for _, col := range cols {
		paths[col.Name] = col.Path
		names = append(names, col.Name)
	}
	var errs spec.Errors
	at := make([]int, len(exps))
	for i, e := range exps {
		base := fmt.Sprintf("expect[%d]", i)
		if !summary[e.Column] {
			errs = append(errs, s.ErrorAt(base+".column", fmt.Errorf("no summary column %q%s", e.Column, nearest(e.Column, c.Columns.Summary)))...)
		}
		idx, err := selectPoint(e.At, points, paths, names)
		if err != nil {
			errs = append(errs, s.ErrorAt(base+".at"+err.key, err)...)
		}
		at[i] = idx
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return at, nil
}

// selectorError is a selector problem, with the key it is about (".name"
// or "" for the whole selector).
type selectorError struct {
	key string
	msg string
}

func (e *selectorError) Error() string { return e.msg }

// selectPoint returns the index of the one point whose swept and derived
// values equal the selector's.
func selectPoint(sel map[string]any, points []spec.Point, paths map[string]string, names []string) (int, *selectorError) {
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := paths[k]; !ok {
			if len(names) == 0 {
				return -1, &selectorError{"." + k, fmt.Sprintf("no swept or derived column %q: the spec has one point, leave at out", k)}
			}
			return -1, &selectorError{"." + k, fmt.Sprintf("no swept or derived column %q (columns: %s)", k, strings.Join(names, ", "))}
		}
	}
	var hits []int
	for i, p := range points {
		match := true
		for _, k := range keys {
			if !sameValue(p.Values[paths[k]], sel[k]) {
				match = false
				break
			}
		}
		if match {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return -1, &selectorError{"", fmt.Sprintf("selects no point (%s)", describeSelector(sel, keys))}
	}
	return -1, &selectorError{"", fmt.Sprintf("selects %d points (%s); name more of the columns %s", len(hits), describeSelector(sel, keys), strings.Join(names, ", "))}
}

func describeSelector(sel map[string]any, keys []string) string {
	if len(keys) == 0 {
		return "no selector"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %v", k, sel[k])
	}
	return strings.Join(parts, ", ")
}

// sameValue compares a point's value with a selector's: numbers by value
// (an int64 step count equals 500.0), to a relative 1e-9 so that a
// computed value like 256/60000 matches its printed digits.
func sameValue(have, want any) bool {
	hf, hok := asFloat(have)
	wf, wok := asFloat(want)
	if hok && wok {
		return hf == wf || math.Abs(hf-wf) <= 1e-9*math.Max(math.Abs(hf), math.Abs(wf))
	}
	return fmt.Sprint(have) == fmt.Sprint(want)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// nearest suggests the closest name, if one is close.
func nearest(s string, cands []string) string {
	best, bestD := "", max(1, len(s)/3)+1
	for _, c := range cands {
		if d := textdist.Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// Drift is a stated number the results do not keep.
type Drift struct {
	Index    int    // entry of the expect block
	Column   string // summary column
	Point    string // the selector, "target_epsilon = 2, epochs = 15"
	Expected float64
	Measured float64 // NaN when the cell is null
	Tol      float64
}

func (d Drift) String() string {
	return fmt.Sprintf("expect[%d]: %s at %s: expected %s ± %s, measured %s (off by %s)",
		d.Index, d.Column, d.Point, fmtG(d.Expected), fmtG(d.Tol), fmtG(d.Measured), fmtG(math.Abs(d.Measured-d.Expected)))
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// CheckExpect compares the plan's expect block with the summary published
// in dir (its results folder) and returns the stated numbers that drifted
// beyond their tolerance, and how many were checked.
func (p *Plan) CheckExpect(dir string) (drifts []Drift, checked int, err error) {
	exps := p.Points[0].Exp.Expect
	if len(exps) == 0 {
		return nil, 0, nil
	}
	t, err := pipeline.ReadParquet(filepath.Join(dir, "summary.parquet"))
	if err != nil {
		return nil, 0, err
	}
	ids := t.Col("point_id")
	if ids == nil {
		return nil, 0, errors.New("summary.parquet has no point_id column")
	}
	row := map[string]int{}
	for i, v := range ids.Values {
		row[fmt.Sprint(v)] = i
	}
	for i, e := range exps {
		pt := p.Points[p.expectAt[i]]
		r, ok := row[pt.ID]
		col := t.Col(e.Column)
		if !ok || col == nil {
			return nil, 0, fmt.Errorf("expect[%d]: summary.parquet has no row for point %s or no column %s", i, pt.ID, e.Column)
		}
		got := cellFloat(col.Values[r])
		if math.IsNaN(got) || math.Abs(got-e.Value) > e.Tolerance {
			keys := make([]string, 0, len(e.At))
			for k := range e.At {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			drifts = append(drifts, Drift{Index: i, Column: e.Column, Point: describeSelector(e.At, keys), Expected: e.Value, Measured: got, Tol: e.Tolerance})
		}
	}
	return drifts, len(exps), nil
}

// cellFloat reads a summary cell as a number: bools as 0 and 1, null and
// text as NaN.
func cellFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return math.NaN()
}
