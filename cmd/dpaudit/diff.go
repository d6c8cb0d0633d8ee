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
	differs := false
	skip := map[string]bool{"point_index": true, "point_id": true}
	for _, k := range keys {
		skip[k] = true
	}
	for _, c := range ignore {
		skip[c] = true
	}
	for _, c := range ta.Columns {
		if tb.Col(c.Name) == nil && !skip[c.Name] {
			fmt.Fprintf(stdout, "column %s: only in %s\n", c.Name, pos[0])
			differs = true
		}
	}
	for _, c := range tb.Columns {
		if ta.Col(c.Name) == nil && !skip[c.Name] {
			fmt.Fprintf(stdout, "column %s: only in %s\n", c.Name, pos[1])
			differs = true
		}
	}
	rowKey := func(t *pipeline.Table, i int) string {
		var kv []string
		for _, k := range keys {
			v := any(nil)
			if c := t.Col(k); c != nil {
				v = c.Values[i]
			}
			kv = append(kv, fmt.Sprintf("%s=%s", k, formatCell(v, 10)))
		}
		return strings.Join(kv, " ")
	}
	rowsB := map[string]int{}
	for i := 0; i < tb.Rows(); i++ {
		rowsB[rowKey(tb, i)] = i
	}
	seen := map[string]bool{}
	changed := 0
	for i := 0; i < ta.Rows(); i++ {
		k := rowKey(ta, i)
		seen[k] = true
		j, ok := rowsB[k]
		if !ok {
			fmt.Fprintf(stdout, "point %s: only in %s\n", k, pos[0])
			differs = true
			continue
		}
		var lines []string
		for _, c := range ta.Columns {
			cb := tb.Col(c.Name)
			if skip[c.Name] || cb == nil {
				continue
			}
			a, b := c.Values[i], cb.Values[j]
			if !sameValue(a, b, *tol) {
				lines = append(lines, fmt.Sprintf("  %s: %s → %s%s", c.Name, formatCell(a, *digits), formatCell(b, *digits), relChange(a, b)))
			}
		}
		if len(lines) > 0 {
			changed++
			differs = true
			fmt.Fprintf(stdout, "point %s:\n%s\n", k, strings.Join(lines, "\n"))
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
		fmt.Fprintf(stdout, "point %s: only in %s\n", k, pos[1])
		differs = true
	}
	if !differs {
		fmt.Fprintf(stdout, "no differences (%d point(s), matched by %s)\n", ta.Rows(), strings.Join(keys, ", "))
		return nil
	}
	fmt.Fprintf(stdout, "%d of %d point(s) changed\n", changed, ta.Rows())
	return silent{errDiffers}
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
