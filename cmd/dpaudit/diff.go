package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
)

// errDiffers ends dpaudit diff with exit code 1 when the folders differ.
var errDiffers = errors.New("results differ")

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", "RESULTS_A RESULTS_B [flags]",
		"Compares two results folders point by point: points are matched by their\nswept parameters (from the manifest), and every column whose value changed\nis shown as old → new. Exit code 0 when equal, 1 when anything differs —\nfor checking that a code change did not move numbers.", stderr)
	tol := fs.Float64("tolerance", 0, "relative tolerance for floats: |a − b| ≤ tol·max(|a|, |b|) counts as equal")
	var ignore multiFlag
	fs.Var(&ignore, "ignore", "columns not compared (repeatable, comma-separated)")
	digits := fs.Int("digits", 8, "significant digits of floats shown")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("dpaudit diff takes two results folders, got %d arguments", len(pos))
	}
	ta, ka, err := diffSide(pos[0])
	if err != nil {
		return usagef("dpaudit diff: %v", err)
	}
	tb, kb, err := diffSide(pos[1])
	if err != nil {
		return usagef("dpaudit diff: %v", err)
	}
	keys := ka
	if len(keys) == 0 || strings.Join(ka, ",") != strings.Join(kb, ",") {
		keys = []string{"point_index"}
	}
	d := &summaryDiff{a: ta, b: tb, nameA: pos[0], nameB: pos[1], keys: keys, tol: *tol, digits: *digits, w: stdout,
		skip: map[string]bool{"point_index": true, "point_id": true}}
	for _, k := range keys {
		d.skip[k] = true
	}
	for _, c := range ignore {
		d.skip[c] = true
	}
	d.columns()
	d.points()
	if !d.differs {
		fmt.Fprintf(stdout, "no differences (%d point(s), matched by %s)\n", ta.Rows(), strings.Join(keys, ", "))
		return nil
	}
	fmt.Fprintf(stdout, "%d of %d point(s) changed\n", d.changed, ta.Rows())
	return silent{errDiffers}
}

// summaryDiff compares two summaries, writing each difference to w as it
// finds it: points are matched by the values of keys, columns in skip are
// not compared.
type summaryDiff struct {
	a, b         *pipeline.Table
	nameA, nameB string
	keys         []string
	skip         map[string]bool
	tol          float64
	digits       int
	w            io.Writer

	differs bool
	changed int // points of both summaries with a changed value
}

// columns reports the compared columns that only one summary has.
func (d *summaryDiff) columns() {
	for _, c := range d.a.Columns {
		if d.b.Col(c.Name) == nil && !d.skip[c.Name] {
			fmt.Fprintf(d.w, "column %s: only in %s\n", c.Name, d.nameA)
			d.differs = true
		}
	}
	for _, c := range d.b.Columns {
		if d.a.Col(c.Name) == nil && !d.skip[c.Name] {
			fmt.Fprintf(d.w, "column %s: only in %s\n", c.Name, d.nameB)
			d.differs = true
		}
	}
}

// rowKey names row i of t by its key columns' values.
func (d *summaryDiff) rowKey(t *pipeline.Table, i int) string {
	var kv []string
	for _, k := range d.keys {
		v := any(nil)
		if c := t.Col(k); c != nil {
			v = c.Values[i]
		}
		kv = append(kv, fmt.Sprintf("%s=%s", k, formatCell(v, 10)))
	}
	return strings.Join(kv, " ")
}

// points reports, in a's row order, the points only a has and the changed
// values of the points both have, then the points only b has (sorted).
func (d *summaryDiff) points() {
	rowsB := map[string]int{}
	for i := 0; i < d.b.Rows(); i++ {
		rowsB[d.rowKey(d.b, i)] = i
	}
	seen := map[string]bool{}
	for i := 0; i < d.a.Rows(); i++ {
		k := d.rowKey(d.a, i)
		seen[k] = true
		j, ok := rowsB[k]
		if !ok {
			fmt.Fprintf(d.w, "point %s: only in %s\n", k, d.nameA)
			d.differs = true
			continue
		}
		if lines := d.changes(i, j); len(lines) > 0 {
			d.changed++
			d.differs = true
			fmt.Fprintf(d.w, "point %s:\n%s\n", k, strings.Join(lines, "\n"))
		}
	}
	var onlyB []string
	for k := range rowsB {
		if !seen[k] {
			onlyB = append(onlyB, k)
		}
	}
	sort.Strings(onlyB)
	for _, k := range onlyB {
		fmt.Fprintf(d.w, "point %s: only in %s\n", k, d.nameB)
		d.differs = true
	}
}

// changes lists the compared columns whose value differs between row i of
// a and row j of b, as "name: old → new (relative change)".
func (d *summaryDiff) changes(i, j int) []string {
	var lines []string
	for _, c := range d.a.Columns {
		cb := d.b.Col(c.Name)
		if d.skip[c.Name] || cb == nil {
			continue
		}
		a, b := c.Values[i], cb.Values[j]
		if !sameValue(a, b, d.tol) {
			lines = append(lines, fmt.Sprintf("  %s: %s → %s%s", c.Name, formatCell(a, d.digits), formatCell(b, d.digits), relChange(a, b)))
		}
	}
	return lines
}

// diffSide reads a folder's summary and the columns that identify points.
func diffSide(dir string) (*pipeline.Table, []string, error) {
	t, err := readResultTable(dir)
	if err != nil {
		return nil, nil, err
	}
	var m struct {
		Swept []string `json:"swept"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		json.Unmarshal(b, &m)
	}
	var keys []string
	for _, k := range m.Swept {
		if t.Col(k) != nil {
			keys = append(keys, k)
		}
	}
	return t, keys, nil
}

func sameValue(a, b any, tol float64) bool {
	fa, oka := a.(float64)
	fb, okb := b.(float64)
	if oka && okb {
		if fa == fb || math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
		return math.Abs(fa-fb) <= tol*math.Max(math.Abs(fa), math.Abs(fb))
	}
	return a == b
}

func relChange(a, b any) string {
	fa, oka := a.(float64)
	fb, okb := b.(float64)
	if !oka || !okb || fa == 0 || math.IsInf(fa, 0) || math.IsNaN(fa+fb) {
		return ""
	}
	return fmt.Sprintf("  (%+.3g%%)", 100*(fb-fa)/math.Abs(fa))
}
