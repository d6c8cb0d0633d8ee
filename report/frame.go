// Package report draws the figures a spec declares and writes the
// self-contained report.html of a results folder. It reads tables only —
// it never recomputes a result — and knows nothing of privacy: a figure is
// columns on axes, and the page shows what the caller hands it.
package report

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
)

// Frame is a table held column by column in the form figures need:
// numbers as float64 (NaN for null or non-numeric) and, for columns used
// as categories, their text.
type Frame struct {
	N     int
	Names []string
	cols  map[string]*Col
	// whereDone is the where expression already applied while reading
	// (trial figures filtered by point parameters skip whole points).
	whereDone string
}

// Col is one column of a Frame.
type Col struct {
	Name    string
	Type    pipeline.ColType
	Num     []float64 // numeric value, NaN for null (bool: 0/1)
	Str     []string  // text, for string columns only
	Null    []bool    // nil when no value is null
	integer bool      // every non-null value is integral

	catN      int // Categories memo (for n rows)
	catLabels []string
	catIndex  []int
}

// Col returns the column named name, or nil.
func (f *Frame) Col(name string) *Col { return f.cols[name] }

// Text is the category label of row i.
func (c *Col) Text(i int) string {
	if c.Null != nil && c.Null[i] {
		return "null"
	}
	switch c.Type {
	case pipeline.String:
		return c.Str[i]
	case pipeline.Bool:
		return strconv.FormatBool(c.Num[i] != 0)
	}
	return strconv.FormatFloat(c.Num[i], 'g', 6, 64)
}

// Value is row i as the value a where expression sees.
func (c *Col) Value(i int) any {
	if c.Null != nil && c.Null[i] {
		// Typed like the column (expr-lang checks types at compile time):
		// a null number is NaN, false in every comparison.
		switch c.Type {
		case pipeline.String:
			return ""
		case pipeline.Bool:
			return false
		}
		return math.NaN()
	}
	switch c.Type {
	case pipeline.String:
		return c.Str[i]
	case pipeline.Bool:
		return c.Num[i] != 0
	case pipeline.Int64:
		return int(c.Num[i])
	}
	return c.Num[i]
}

// FromTable converts the named columns of t (all when names is nil).
func FromTable(t *pipeline.Table, names []string) (*Frame, error) {
	f := &Frame{N: t.Rows(), cols: map[string]*Col{}}
	if names == nil {
		for _, c := range t.Columns {
			names = append(names, c.Name)
		}
	}
	for _, n := range names {
		if _, dup := f.cols[n]; dup {
			continue
		}
		tc := t.Col(n)
		if tc == nil {
			return nil, fmt.Errorf("the table has no column %q (columns: %s)", n, strings.Join(tableNames(t), ", "))
		}
		c := &Col{Name: n, Type: tc.Type, Num: make([]float64, len(tc.Values))}
		if tc.Type == pipeline.String {
			c.Str = make([]string, len(tc.Values))
		}
		for i, v := range tc.Values {
			switch x := v.(type) {
			case nil:
				if c.Null == nil {
					c.Null = make([]bool, len(tc.Values))
				}
				c.Null[i] = true
				c.Num[i] = math.NaN()
			case float64:
				c.Num[i] = x
			case int64:
				c.Num[i] = float64(x)
			case bool:
				if x {
					c.Num[i] = 1
				}
			case string:
				c.Str[i] = x
				c.Num[i] = math.NaN()
			}
		}
		f.add(c)
	}
	return f, nil
}

func tableNames(t *pipeline.Table) []string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

func (f *Frame) add(c *Col) {
	f.Names = append(f.Names, c.Name)
	f.cols[c.Name] = c
}

// TrialPart is one trials file of a point.
type TrialPart struct {
	PointID string
	Path    string
}

// TrialsFrame reads the named columns of the trials parts and joins the
// point's summary row onto each trial (by point_id), so trial figures can
// filter, colour and facet by any parameter of the point.
func TrialsFrame(summary *pipeline.Table, parts []TrialPart, names []string) (*Frame, error) {
	ids := summary.Col("point_id")
	if ids == nil {
		return nil, fmt.Errorf("the summary has no point_id column")
	}
	rowOf := map[string]int{}
	for i, v := range ids.Values {
		if s, ok := v.(string); ok {
			rowOf[s] = i
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("there are no trials tables")
	}
	trialCols, sumCols, err := splitColumns(summary, parts[0].Path, names)
	if err != nil {
		return nil, err
	}
	if len(trialCols) == 0 { // the rows still come from the trials
		trialCols = have0(parts[0].Path)
	}
	f := &Frame{cols: map[string]*Col{}}
	var rowsOfPoint []int // summary row of every trial
	for _, p := range parts {
		t, err := pipeline.ReadParquetColumns(p.Path, trialCols)
		if err != nil {
			return nil, err
		}
		part, err := FromTable(t, trialCols)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Path, err)
		}
		row, ok := rowOf[p.PointID]
		if !ok {
			return nil, fmt.Errorf("%s: point %s is not in the summary", p.Path, p.PointID)
		}
		for i := 0; i < part.N; i++ {
			rowsOfPoint = append(rowsOfPoint, row)
		}
		f.appendFrame(part)
	}
	f.N = len(rowsOfPoint)
	return f, f.joinSummary(summary, sumCols, rowsOfPoint)
}

// splitColumns sorts the named columns into those of the trials tables
// (read from the first part) and those only the summary has.
func splitColumns(summary *pipeline.Table, first string, names []string) (trialCols, sumCols []string, err error) {
	have, err := pipeline.ParquetColumns(first)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		switch {
		case contains(have, n):
			trialCols = append(trialCols, n)
		case summary.Col(n) != nil:
			sumCols = append(sumCols, n)
		default:
			return nil, nil, fmt.Errorf("%s: no column %q in the trials or the summary table", filepath.Base(first), n)
		}
	}
	return trialCols, sumCols, nil
}

// joinSummary adds the summary columns cols to the frame, each trial
// taking the value of its point's row (rowsOfPoint).
func (f *Frame) joinSummary(summary *pipeline.Table, cols []string, rowsOfPoint []int) error {
	if len(cols) == 0 {
		return nil
	}
	sf, err := FromTable(summary, cols)
	if err != nil {
		return err
	}
	for _, n := range cols {
		sc := sf.Col(n)
		c := &Col{Name: n, Type: sc.Type, Num: make([]float64, f.N)}
		if sc.Str != nil {
			c.Str = make([]string, f.N)
		}
		if sc.Null != nil {
			c.Null = make([]bool, f.N)
		}
		for i, r := range rowsOfPoint {
			c.Num[i] = sc.Num[r]
			if c.Str != nil {
				c.Str[i] = sc.Str[r]
			}
			if c.Null != nil {
				c.Null[i] = sc.Null[r]
			}
		}
		f.add(c)
	}
	return nil
}

// appendFrame appends the rows of g (same column names) to f.
func (f *Frame) appendFrame(g *Frame) {
	for _, n := range g.Names {
		gc := g.cols[n]
		c := f.cols[n]
		if c == nil {
			c = &Col{Name: n, Type: gc.Type}
			if f.N > 0 { // earlier parts lacked it: null
				c.Num = make([]float64, f.N)
				for i := range c.Num {
					c.Num[i] = math.NaN()
				}
				c.Null = make([]bool, f.N)
				for i := range c.Null {
					c.Null[i] = true
				}
				if gc.Type == pipeline.String {
					c.Str = make([]string, f.N)
				}
			}
			f.add(c)
		}
		before := len(c.Num)
		c.Num = append(c.Num, gc.Num...)
		if gc.Str != nil || c.Str != nil {
			if c.Str == nil {
				c.Str = make([]string, before)
			}
			if gc.Str != nil {
				c.Str = append(c.Str, gc.Str...)
			} else {
				c.Str = append(c.Str, make([]string, g.N)...)
			}
		}
		if gc.Null != nil || c.Null != nil {
			if c.Null == nil {
				c.Null = make([]bool, before)
			}
			if gc.Null != nil {
				c.Null = append(c.Null, gc.Null...)
			} else {
				c.Null = append(c.Null, make([]bool, g.N)...)
			}
		}
	}
	f.N += g.N
}

// Filter keeps the rows where keep is true.
func (f *Frame) Filter(keep []bool) *Frame {
	out := &Frame{cols: map[string]*Col{}}
	for i := range keep {
		if keep[i] {
			out.N++
		}
	}
	for _, n := range f.Names {
		c := f.cols[n]
		nc := &Col{Name: n, Type: c.Type, Num: make([]float64, 0, out.N)}
		if c.Str != nil {
			nc.Str = make([]string, 0, out.N)
		}
		if c.Null != nil {
			nc.Null = make([]bool, 0, out.N)
		}
		for i, k := range keep {
			if !k {
				continue
			}
			nc.Num = append(nc.Num, c.Num[i])
			if c.Str != nil {
				nc.Str = append(nc.Str, c.Str[i])
			}
			if c.Null != nil {
				nc.Null = append(nc.Null, c.Null[i])
			}
		}
		out.add(nc)
	}
	return out
}

// Categories returns the distinct values of c among rows (all when nil),
// numerically sorted for numbers and in order of appearance for text, and
// the category index of every row.
func (c *Col) Categories(n int) (labels []string, index []int) {
	if c.catIndex != nil && c.catN == n {
		return c.catLabels, c.catIndex
	}
	defer func() { c.catN, c.catLabels, c.catIndex = n, labels, index }()
	index = make([]int, n)
	if c.Type == pipeline.String {
		seen := map[string]int{}
		for i := 0; i < n; i++ {
			s := c.Text(i)
			k, ok := seen[s]
			if !ok {
				k = len(labels)
				seen[s] = k
				labels = append(labels, s)
			}
			index[i] = k
		}
		return labels, index
	}
	var vals []float64
	seen := map[float64]bool{}
	hasNull := false
	for i := 0; i < n; i++ {
		v := c.Num[i]
		if math.IsNaN(v) {
			hasNull = true
			continue
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	sort.Float64s(vals)
	pos := map[float64]int{}
	for k, v := range vals {
		pos[v] = k
		labels = append(labels, c.Text(firstRow(c, v, n)))
	}
	if hasNull {
		labels = append(labels, "null")
	}
	for i := 0; i < n; i++ {
		if math.IsNaN(c.Num[i]) {
			index[i] = len(vals)
		} else {
			index[i] = pos[c.Num[i]]
		}
	}
	return labels, index
}

func firstRow(c *Col, v float64, n int) int {
	for i := 0; i < n; i++ {
		if c.Num[i] == v {
			return i
		}
	}
	return 0
}

// have0 is the first column of a table, to count its rows.
func have0(path string) []string {
	cols, err := pipeline.ParquetColumns(path)
	if err != nil || len(cols) == 0 {
		return nil
	}
	return cols[:1]
}
