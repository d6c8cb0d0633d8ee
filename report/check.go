package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/internal/textdist"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Problem is a figure error at a spec path (report.figures[i].y[0]).
type Problem struct {
	Path string
	Msg  string
}

func (p Problem) Error() string { return p.Msg }

// Available are the columns a spec will produce.
type Available struct {
	Summary []string // the summary table's columns
	Trials  []string // the trials tables' own columns (empty: no trials)
}

// columnsFor is what a figure over table may name: the summary, or the
// trials columns with the point's summary columns joined.
func (a Available) columnsFor(table string) []string {
	if table == "trials" {
		seen := map[string]bool{}
		var out []string
		for _, c := range append(append([]string(nil), a.Trials...), a.Summary...) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		return out
	}
	return a.Summary
}

// ref is one column a figure names, with its spec path.
type ref struct {
	path, col string
}

// Check validates the report block against the columns the spec will
// produce: every column named exists in the figure's table, names are
// unique, intervals match their series, and ranges fit the scales.
func Check(r *spec.Report, avail Available) []Problem {
	if r == nil {
		return nil
	}
	var out []Problem
	names := map[string]int{}
	for i := range r.Figures {
		f := &r.Figures[i]
		base := fmt.Sprintf("report.figures[%d]", i)
		c := f.Common()
		if c == nil {
			continue
		}
		if j, dup := names[c.Name]; dup {
			out = append(out, Problem{base + ".name", fmt.Sprintf("figure name %q is already used by report.figures[%d]", c.Name, j)})
		}
		names[c.Name] = i
		out = append(out, checkFigure(f, base, avail)...)
	}
	return out
}

// figureCheck gathers one figure's problems and the columns it names.
type figureCheck struct {
	base string // the figure's spec path, report.figures[i]
	refs []ref
	out  []Problem
}

func (fc *figureCheck) bad(key, format string, args ...any) {
	fc.out = append(fc.out, Problem{fc.base + "." + key, fmt.Sprintf(format, args...)})
}

func (fc *figureCheck) ref(key, col string) {
	fc.refs = append(fc.refs, ref{fc.base + "." + key, col})
}

// checkFigure checks one figure: its keys against its kind, its ranges
// against its scales, and every column it names against its table.
func checkFigure(f *spec.Figure, base string, avail Available) []Problem {
	c := f.Common()
	fc := &figureCheck{base: base}
	if f.Tradeoff != nil {
		// Its curve and points come from the claim columns and the trials,
		// which the caller checks per point (it knows the points' audits);
		// its where and label name summary columns.
		sum := *c
		sum.Table = "summary"
		if f.Tradeoff.Label != "" {
			fc.ref("label", f.Tradeoff.Label)
		}
		fc.columns(&sum, avail)
		return fc.out
	}
	if c.Table == "trials" && len(avail.Trials) == 0 {
		fc.bad("table", "this spec writes no trials table (only audits do); use table: summary")
		return fc.out
	}
	fc.ref("x", c.X)
	if c.Facet != "" {
		fc.ref("facet", c.Facet)
	}
	fc.kind(f)
	fc.references(f)
	fc.ranges(c)
	fc.columns(c, avail)
	return fc.out
}

// series checks the y columns of a figure and their intervals.
func (fc *figureCheck) series(y, lo, hi, labels []string, color string, needInterval bool) {
	for k, col := range y {
		fc.ref(fmt.Sprintf("y[%d]", k), col)
	}
	if len(labels) > 0 && len(labels) != len(y) {
		fc.bad("labels", "has %d label(s), y has %d: give one per y column (\"\" for the default)", len(labels), len(y))
	}
	for _, e := range []struct {
		key  string
		list []string
	}{{"y_lo", lo}, {"y_hi", hi}} {
		if len(e.list) > 0 && len(e.list) != len(y) {
			fc.bad(e.key, "has %d column(s), y has %d: give one per y column", len(e.list), len(y))
		}
		for k, col := range e.list {
			fc.ref(fmt.Sprintf("%s[%d]", e.key, k), col)
		}
	}
	if (len(lo) == 0) != (len(hi) == 0) {
		fc.bad("y_lo", "give both y_lo and y_hi, or neither")
	}
	if needInterval && (len(lo) == 0 || len(hi) == 0) {
		fc.bad("kind", "a band needs y_lo and y_hi (the interval's ends)")
	}
	if color != "" {
		fc.ref("color", color)
	}
}

// kind checks what is particular to the figure's kind.
func (fc *figureCheck) kind(f *spec.Figure) {
	c := f.Common()
	switch {
	case f.Line != nil:
		fc.series(f.Line.Y, f.Line.YLo, f.Line.YHi, f.Line.Labels, f.Line.Color, false)
	case f.Scatter != nil:
		fc.series(f.Scatter.Y, f.Scatter.YLo, f.Scatter.YHi, f.Scatter.Labels, f.Scatter.Color, false)
	case f.Band != nil:
		fc.series(f.Band.Y, f.Band.YLo, f.Band.YHi, f.Band.Labels, f.Band.Color, true)
	case f.Bar != nil:
		fc.series(f.Bar.Y, f.Bar.YLo, f.Bar.YHi, f.Bar.Labels, f.Bar.Color, false)
		if f.Bar.Color != "" && len(f.Bar.Y) > 1 {
			fc.bad("color", "bars are grouped by color or by several y columns, not both")
		}
		if c.XScale == "log" {
			fc.bad("x_scale", "the x axis of a bar chart holds categories; it cannot be log")
		}
	case f.Histogram != nil:
		if f.Histogram.Color != "" {
			fc.ref("color", f.Histogram.Color)
		}
	case f.Heatmap != nil:
		fc.ref("y", f.Heatmap.Y)
		fc.ref("z", f.Heatmap.Z)
		if c.XScale == "log" || c.YScale == "log" {
			fc.bad("x_scale", "heatmap axes hold one cell per distinct value (equally spaced); use z_scale for a log colour scale")
		}
	}
}

// references checks the reference lines against their kinds and the
// figure's.
func (fc *figureCheck) references(f *spec.Figure) {
	for k, r := range f.Common().Reference {
		p := fmt.Sprintf("reference[%d]", k)
		switch r.Kind {
		case "column":
			if r.Column == "" {
				fc.bad(p+".column", "missing: a reference of kind column names the column to draw")
			} else {
				fc.ref(p+".column", r.Column)
			}
		default:
			if r.Column != "" {
				fc.bad(p+".column", "only a reference of kind column takes a column")
			}
			if r.Kind == "identity" && r.Value != 0 {
				fc.bad(p+".value", "identity (y = x) takes no value")
			}
		}
		switch {
		case f.Heatmap != nil:
			fc.bad(p+".kind", "a heatmap takes no reference lines")
		case f.Bar != nil && r.Kind != "hline":
			fc.bad(p+".kind", "a bar chart takes only hline references (its x axis holds categories)")
		}
	}
}

// ranges checks x_range and y_range against their scales.
func (fc *figureCheck) ranges(c *spec.FigureCommon) {
	for _, rg := range []struct {
		key   string
		vals  []float64
		scale string
	}{{"x_range", c.XRange, c.XScale}, {"y_range", c.YRange, c.YScale}} {
		if len(rg.vals) == 0 {
			continue
		}
		if len(rg.vals) != 2 || !(rg.vals[0] < rg.vals[1]) {
			fc.bad(rg.key, "must be [low, high] with low < high")
		} else if rg.scale == "log" && rg.vals[0] <= 0 {
			fc.bad(rg.key, "the axis is log: the range must be positive, got low = %g", rg.vals[0])
		}
	}
}

// columns checks that every column the figure names, in its keys and in
// its where expression, is in its table, with a suggestion when not.
func (fc *figureCheck) columns(c *spec.FigureCommon, avail Available) {
	avl := avail.columnsFor(c.Table)
	have := map[string]bool{}
	for _, a := range avl {
		have[a] = true
	}
	if c.Where != "" {
		ids, err := whereIdents(c.Where)
		if err != nil {
			fc.bad("where", "%v", err)
		}
		for _, id := range ids {
			if !have[id] {
				fc.bad("where", "no column %q in the %s table%s (columns: %s)", id, c.Table, suggest(id, avl), strings.Join(avl, ", "))
			}
		}
	}
	for _, r := range fc.refs {
		if r.col == "" || have[r.col] {
			continue
		}
		hint := ""
		if c.Table == "summary" && contains(avail.Trials, r.col) {
			hint = "; it is a trials column: set table: trials"
		}
		fc.out = append(fc.out, Problem{r.path, fmt.Sprintf("no column %q in the %s table%s%s (columns: %s)", r.col, c.Table, suggest(r.col, avl), hint, strings.Join(avl, ", "))})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// whereIdents compiles a where expression and returns the names it reads.
func whereIdents(src string) ([]string, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("cannot parse %q: %s", src, firstLine(err.Error()))
	}
	v := &identVisitor{seen: map[string]bool{}}
	ast.Walk(&tree.Node, v)
	sort.Strings(v.names)
	return v.names, nil
}

type identVisitor struct {
	names []string
	seen  map[string]bool
}

func (v *identVisitor) Visit(n *ast.Node) {
	if id, ok := (*n).(*ast.IdentifierNode); ok && !v.seen[id.Value] && !builtinName(id.Value) {
		v.seen[id.Value] = true
		v.names = append(v.names, id.Value)
	}
}

// builtinName reports the names expr-lang defines itself.
func builtinName(s string) bool {
	switch s {
	case "true", "false", "nil", "$env":
		return true
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// suggest proposes the closest column name to a typo.
func suggest(s string, cands []string) string {
	best, bestD := "", 4
	for _, c := range cands {
		if d := textdist.Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// compileWhere compiles a where expression over a frame's columns.
func compileWhere(src string, f *Frame) (func(row int) (bool, error), error) {
	env := map[string]any{}
	ids, err := whereIdents(src)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		c := f.Col(id)
		if c == nil {
			return nil, fmt.Errorf("where: no column %q", id)
		}
		switch c.Type { // a typed sample value, so comparisons type-check
		case pipeline.String:
			env[id] = ""
		case pipeline.Bool:
			env[id] = false
		case pipeline.Int64:
			env[id] = 0
		default:
			env[id] = 0.0
		}
	}
	prog, err := expr.Compile(src, expr.Env(env), expr.AsBool())
	if err != nil {
		return nil, fmt.Errorf("where %q: %s", src, firstLine(err.Error()))
	}
	cols := make([]*Col, len(ids))
	for k, id := range ids {
		cols[k] = f.Col(id)
	}
	return func(row int) (bool, error) {
		for k, id := range ids {
			env[id] = cols[k].Value(row)
		}
		out, err := expr.Run(prog, env)
		if err != nil {
			return false, fmt.Errorf("where %q on row %d: %s", src, row, firstLine(err.Error()))
		}
		b, _ := out.(bool)
		return b, nil
	}, nil
}

// Columns lists every column a figure reads (for reading only those).
func Columns(f *spec.Figure) []string {
	c := f.Common()
	if c == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(cols ...string) {
		for _, s := range cols {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	add(c.X, c.Facet)
	switch {
	case f.Line != nil:
		add(f.Line.Y...)
		add(f.Line.YLo...)
		add(f.Line.YHi...)
		add(f.Line.Color)
	case f.Scatter != nil:
		add(f.Scatter.Y...)
		add(f.Scatter.YLo...)
		add(f.Scatter.YHi...)
		add(f.Scatter.Color)
	case f.Band != nil:
		add(f.Band.Y...)
		add(f.Band.YLo...)
		add(f.Band.YHi...)
		add(f.Band.Color)
	case f.Bar != nil:
		add(f.Bar.Y...)
		add(f.Bar.YLo...)
		add(f.Bar.YHi...)
		add(f.Bar.Color)
	case f.Histogram != nil:
		add(f.Histogram.Color)
	case f.Heatmap != nil:
		add(f.Heatmap.Y, f.Heatmap.Z)
	}
	for _, r := range c.Reference {
		add(r.Column)
	}
	if c.Where != "" {
		ids, _ := whereIdents(c.Where)
		add(ids...)
	}
	return out
}
