package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// MaxScatterPoints is the most points a scatter draws per series; more
// are thinned to an evenly spaced subsample (every k-th row, in table
// order), which keeps a figure of 10⁶ trials fast and its SVG small.
const MaxScatterPoints = 5000

func init() {
	// Liberation Sans has Arial's metrics, so SVG text laid out with it
	// fits when a browser substitutes Arial or Helvetica.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// palette10 is matplotlib's tab10: distinct, and familiar from papers.
var palette10 = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255},
	{0xbc, 0xbd, 0x22, 255}, {0x17, 0xbe, 0xcf, 255},
}

func seriesColor(i int) color.NRGBA { return palette10[i%len(palette10)] }

func withAlpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}}

// Result is a drawn figure: one file per format and notes on what was
// left out (points dropped by a log axis, thinning).
type Result struct {
	Files map[string][]byte // by format: png, svg, pdf
	Notes []string
}

// Draw renders a figure from a frame (already read from the tables).
func Draw(f *spec.Figure, fr *Frame) (*Result, error) {
	c := f.Common()
	if c == nil {
		return nil, fmt.Errorf("figure has no kind")
	}
	d := &drawing{fig: f, c: c}
	if c.Where != "" && fr.whereDone != c.Where {
		keep, err := WhereMask(c.Where, fr)
		if err != nil {
			return nil, err
		}
		fr = fr.Filter(keep)
		if fr.N == 0 {
			return nil, fmt.Errorf("figure %s: no row is left after where %q", c.Name, c.Where)
		}
	}
	// Numeric axes need numbers: a text column goes on a bar chart's x.
	numeric := []string{c.X}
	switch {
	case f.Line != nil, f.Scatter != nil, f.Band != nil:
		xy := f.Line
		if xy == nil {
			xy = f.Scatter
		}
		if xy == nil {
			xy = f.Band
		}
		numeric = append(append(append(numeric, xy.Y...), xy.YLo...), xy.YHi...)
	case f.Bar != nil:
		numeric = append(append(append([]string(nil), f.Bar.Y...), f.Bar.YLo...), f.Bar.YHi...)
	case f.Heatmap != nil:
		numeric = []string{f.Heatmap.Z}
	}
	for _, n := range numeric {
		if col := fr.Col(n); col != nil && col.Type == pipeline.String {
			return nil, fmt.Errorf("figure %s: column %s holds text, not numbers (put text on the x axis of a bar chart, or use it as color or facet)", c.Name, n)
		}
	}
	// Facets: one panel per distinct value, shared axes.
	type panel struct {
		title string
		fr    *Frame
	}
	panels := []panel{{"", fr}}
	if c.Facet != "" {
		fc := fr.Col(c.Facet)
		if fc == nil {
			return nil, fmt.Errorf("figure %s: no column %q", c.Name, c.Facet)
		}
		labels, idx := fc.Categories(fr.N)
		if len(labels) > c.MaxPanels {
			return nil, fmt.Errorf("figure %s: facet %s has %d values, more than max_panels = %d panels; filter with where or raise max_panels", c.Name, c.Facet, len(labels), c.MaxPanels)
		}
		panels = panels[:0]
		for k, l := range labels {
			keep := make([]bool, fr.N)
			for i, j := range idx {
				keep[i] = j == k
			}
			panels = append(panels, panel{c.Facet + " = " + l, fr.Filter(keep)})
		}
	}
	// Series colours must mean the same in every panel: categories come
	// from the whole frame.
	d.colorLabels = nil
	if col := colorOf(f); col != "" {
		cc := fr.Col(col)
		if cc == nil {
			return nil, fmt.Errorf("figure %s: no column %q", c.Name, col)
		}
		d.colorLabels, _ = cc.Categories(fr.N)
	}
	var plots []*plot.Plot
	var titles []string // drawn by render: gonum's titles leave a gap
	for k, p := range panels {
		pl := plot.New()
		if err := d.build(pl, p.fr, k == 0); err != nil {
			return nil, fmt.Errorf("figure %s: %w", c.Name, err)
		}
		titles = append(titles, p.title)
		plots = append(plots, pl)
	}
	d.shareAxes(plots)
	for _, pl := range plots {
		d.finishAxes(pl)
	}
	if f.Heatmap != nil && len(plots) > 0 {
		d.heatCbar = d.colorbarPlot()
	}
	res := &Result{Files: map[string][]byte{}, Notes: d.notes}
	cols := 1
	if len(plots) > 1 {
		cols = min(len(plots), int(math.Ceil(math.Sqrt(float64(len(plots))))))
	}
	rows := (len(plots) + cols - 1) / cols
	w := vg.Length(c.Width) * vg.Centimeter
	h := vg.Length(c.Height) * vg.Centimeter
	if len(plots) > 1 {
		w = w * vg.Length(max(cols, 2)) / 2
		h = h * vg.Length(rows) * 0.75
	}
	for _, format := range c.Formats {
		b, err := d.render(format, plots, titles, cols, rows, w, h)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %s: %w", c.Name, format, err)
		}
		res.Files[format] = b
	}
	return res, nil
}

// WhereMask evaluates a where expression (expr-lang over the columns) on
// every row.
func WhereMask(src string, fr *Frame) ([]bool, error) {
	pred, err := compileWhere(src, fr)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, fr.N)
	for i := range keep {
		if keep[i], err = pred(i); err != nil {
			return nil, err
		}
	}
	return keep, nil
}

func colorOf(f *spec.Figure) string {
	switch {
	case f.Line != nil:
		return f.Line.Color
	case f.Scatter != nil:
		return f.Scatter.Color
	case f.Band != nil:
		return f.Band.Color
	case f.Bar != nil:
		return f.Bar.Color
	case f.Histogram != nil:
		return f.Histogram.Color
	}
	return ""
}

// drawing holds the state of one figure while its panels are built.
type drawing struct {
	fig         *spec.Figure
	c           *spec.FigureCommon
	colorLabels []string
	notes       []string
	noted       map[string]bool
	heat        *heatState
	heatCbar    *plot.Plot
	dropped     map[string]int // points a log axis could not show, by axis
	ylabels     map[*plot.Plot]string
}

func (d *drawing) takeYLabel(pl *plot.Plot) {
	if d.ylabels == nil {
		d.ylabels = map[*plot.Plot]string{}
	}
	d.ylabels[pl] = pl.Y.Label.Text
	pl.Y.Label.Text = ""
}

// drawPlot draws pl into c with its y label in a strip on the left.
func (d *drawing) drawPlot(pl *plot.Plot, c draw.Canvas) {
	if l := d.ylabels[pl]; l != "" {
		sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(11)), XAlign: draw.XCenter, YAlign: draw.YCenter,
			Rotation: math.Pi / 2, Handler: plot.DefaultTextHandler}
		// A label longer than the panel is tall would run over the
		// neighbouring panels: wrap it, and make room for every line.
		l = wrapLabel(l, sty, 0.95*(c.Max.Y-c.Min.Y))
		lines := vg.Length(strings.Count(l, "\n") + 1)
		lineH := sty.Font.Size * 1.2
		c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(6) + (lines-1)*lineH/2, Y: (c.Min.Y + c.Max.Y) / 2}, l)
		c.Min.X += vg.Points(19) + (lines-1)*lineH
	}
	// gonum pads the data area so that the x label fits centred under it:
	// a label wider than the panel squeezes the data to nothing (seen with
	// faceted figures). Wrap it to the panel's width instead.
	if pl.X.Label.Text != "" {
		pl.X.Label.Text = wrapLabel(strings.ReplaceAll(pl.X.Label.Text, "\n", " "), pl.X.Label.TextStyle, 0.9*(c.Max.X-c.Min.X))
	}
	pl.Draw(c)
}

// wrapLabel breaks s at spaces so that no line is wider than width in
// style sty (a single word wider than width keeps its own line).
func wrapLabel(s string, sty text.Style, width vg.Length) string {
	if width <= 0 || sty.Handler == nil || sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case sty.Width(line+" "+w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func (d *drawing) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if d.noted == nil {
		d.noted = map[string]bool{}
	}
	if !d.noted[s] {
		d.noted[s] = true
		d.notes = append(d.notes, s)
	}
}

func (d *drawing) build(pl *plot.Plot, fr *Frame, legend bool) error {
	c := d.c
	pl.X.Label.Text = firstNonEmpty(c.XLabel, c.X)
	pl.Title.TextStyle.Font.Size = vg.Points(12)
	pl.X.Label.TextStyle.Font.Size, pl.Y.Label.TextStyle.Font.Size = vg.Points(11), vg.Points(11)
	pl.X.Tick.Label.Font.Size, pl.Y.Tick.Label.Font.Size = vg.Points(9), vg.Points(9)
	pl.X.Tick.Marker, pl.Y.Tick.Marker = niceTicks, niceTicks
	if c.XScale == "log" {
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks
	}
	if c.YScale == "log" {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks
	}
	pl.Add(plotter.NewGrid())
	var err error
	switch f := d.fig; {
	case f.Line != nil:
		err = d.xy(pl, fr, f.Line, "line")
	case f.Scatter != nil:
		err = d.xy(pl, fr, f.Scatter, "scatter")
	case f.Band != nil:
		err = d.xy(pl, fr, f.Band, "band")
	case f.Bar != nil:
		err = d.bars(pl, fr, f.Bar)
	case f.Histogram != nil:
		err = d.histogram(pl, fr, f.Histogram)
	case f.Heatmap != nil:
		err = d.heatmap(pl, fr, f.Heatmap)
	}
	if err != nil {
		return err
	}
	// gonum centres the y label at the arithmetic middle of the range,
	// which on a log axis is near the top and pads the plot down; the
	// label is drawn by drawPlot instead.
	d.takeYLabel(pl)
	if !legend || c.Legend == "none" {
		pl.Legend = plot.NewLegend()
	}
	pl.Legend.Top = strings.HasPrefix(c.Legend, "top")
	pl.Legend.Left = strings.HasSuffix(c.Legend, "left")
	pl.Legend.XOffs, pl.Legend.YOffs = -vg.Millimeter*2, -vg.Millimeter*2
	if pl.Legend.Left {
		pl.Legend.XOffs = vg.Millimeter * 2
	}
	if !pl.Legend.Top {
		pl.Legend.YOffs = vg.Millimeter * 2
	}
	pl.Legend.TextStyle.Font.Size = vg.Points(9)
	return nil
}

// logTicks are gonum's log ticks without those outside the range, whose
// labels would otherwise take room at the ends of the axis; a range
// within one decade gets its ends labelled.
var logTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	labelled := 0
	seen := map[float64]bool{} // gonum repeats a decade as a minor tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(lo, hi) {
		if t.Value < lo*(1-1e-9) || t.Value > hi*(1+1e-9) {
			continue
		}
		key := math.Round(math.Log10(t.Value) * 1e6)
		if seen[key] {
			continue
		}
		seen[key] = true
		if t.Label != "" {
			labelled++
			t.Label = strconv.FormatFloat(t.Value, 'g', 3, 64) // 10^k is inexact
		}
		out = append(out, t)
	}
	if labelled > 8 {
		// Many decades: label every k-th, and drop the minor ticks.
		k := (labelled + 5) / 6
		thin := out[:0]
		for _, t := range out {
			if t.Label == "" {
				continue
			}
			if e := int(math.Round(math.Log10(t.Value))); e%k != 0 {
				t.Label = ""
			}
			thin = append(thin, t)
		}
		out = thin
	}
	if labelled < 2 {
		// Within a decade or two: label 1, 2 and 5 × 10^k as well.
		n := 0
		for i, t := range out {
			m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9))
			if r := math.Round(m); math.Abs(m-r) < 1e-6 && (r == 1 || r == 2 || r == 5) {
				out[i].Label = strconv.FormatFloat(t.Value, 'g', 3, 64)
				n++
			}
		}
		if n < 2 {
			for _, v := range []float64{lo, hi} {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 2, 64)})
			}
		}
	}
	return out
})

// niceTicks labels a linear axis at 1, 2, 2.5 or 5 × 10^k steps (four to
// seven labels) with unlabelled minor ticks between.
var niceTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minorPer := 10*mag, 5
	for _, m := range []struct {
		f float64
		n int
	}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}} {
		if m.f*mag >= raw*0.999 {
			step, minorPer = m.f*mag, m.n
			break
		}
	}
	minor := step / float64(minorPer)
	first := math.Ceil(lo/minor - 1e-9)
	var out []plot.Tick
	for i := 0; ; i++ {
		k := first + float64(i)
		v := k * minor
		if v > hi+minor*1e-9 || i > 1000 {
			break
		}
		t := plot.Tick{Value: v}
		if r := k / float64(minorPer); math.Abs(r-math.Round(r)) < 1e-9 {
			t.Label = strconv.FormatFloat(math.Round(r)*step, 'g', 10, 64)
		}
		out = append(out, t)
	}
	return out
})

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// point is one (x, y) with an optional interval.
type point struct{ x, y, lo, hi float64 }

// series splits the frame's rows by the color column; each group lists
// its row indices.
func (d *drawing) groups(fr *Frame, col string) ([]string, [][]int) {
	if col == "" {
		rows := make([]int, fr.N)
		for i := range rows {
			rows[i] = i
		}
		return []string{""}, [][]int{rows}
	}
	cc := fr.Col(col)
	local, idx := cc.Categories(fr.N)
	labels := d.colorLabels
	pos := map[string]int{}
	for k, l := range labels {
		pos[l] = k
	}
	toGlobal := make([]int, len(local)) // a facet panel may lack values
	for j, l := range local {
		toGlobal[j] = pos[l]
	}
	out := make([][]int, len(labels))
	for i, j := range idx {
		k := toGlobal[j]
		out[k] = append(out[k], i)
	}
	return labels, out
}

// finite keeps the values a log axis can show, counting the rest.
func (d *drawing) usable(v float64, log bool, axis string) bool {
	if math.IsInf(v, 0) {
		d.dropped["inf"]++
		return false
	}
	if math.IsNaN(v) {
		return false
	}
	if log && v <= 0 {
		d.dropped[axis]++
		return false
	}
	return true
}

func (d *drawing) xy(pl *plot.Plot, fr *Frame, s *spec.FigureXY, kind string) error {
	c := d.c
	pl.Y.Label.Text = firstNonEmpty(c.YLabel, strings.Join(s.Y, ", "))
	labels, groups := d.groups(fr, s.Color)
	xc := fr.Col(c.X)
	xlog, ylog := c.XScale == "log", c.YScale == "log"
	d.dropped = map[string]int{}
	nSeries := 0
	for k, yname := range s.Y {
		yc := fr.Col(yname)
		var lo, hi *Col
		if len(s.YLo) > 0 && s.YLo[k] != "" && s.YHi[k] != "" {
			lo, hi = fr.Col(s.YLo[k]), fr.Col(s.YHi[k])
		}
		for g, rows := range groups {
			var pts []point
			for _, i := range rows {
				x, y := xc.Num[i], yc.Num[i]
				if !d.usable(x, xlog, "x") || !d.usable(y, ylog, "y") {
					continue
				}
				p := point{x: x, y: y, lo: math.NaN(), hi: math.NaN()}
				if lo != nil {
					p.lo, p.hi = lo.Num[i], hi.Num[i]
					if math.IsInf(p.lo, 0) || math.IsInf(p.hi, 0) {
						d.dropped["openinterval"]++
					}
					if ylog && p.lo <= 0 {
						d.dropped["interval"]++
						p.lo = math.NaN()
					}
				}
				pts = append(pts, p)
			}
			idx := len(s.Y)*0 + nSeries
			if s.Color != "" {
				idx = g + k*len(labels)
			}
			nSeries++
			if len(pts) == 0 {
				continue
			}
			if kind == "scatter" && len(pts) > MaxScatterPoints {
				step := (len(pts) + MaxScatterPoints - 1) / MaxScatterPoints
				thin := pts[:0:0]
				for i := 0; i < len(pts); i += step {
					thin = append(thin, pts[i])
				}
				d.note("%s: %d points thinned to every %d-th (%d drawn)", seriesName(yname, s.Color, labels[g], len(s.Y)), len(pts), step, len(thin))
				pts = thin
			}
			if kind != "scatter" {
				sort.SliceStable(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
			}
			col := seriesColor(idx)
			name := seriesName(yname, s.Color, labels[g], len(s.Y))
			xys := make(plotter.XYs, len(pts))
			for i, p := range pts {
				xys[i] = plotter.XY{X: p.x, Y: p.y}
			}
			var thumbs []plot.Thumbnailer
			if kind == "band" {
				poly := bandPolygon(pts)
				if len(poly) > 2 {
					pg, err := plotter.NewPolygon(poly)
					if err != nil {
						return err
					}
					pg.Color = withAlpha(col, 60)
					pg.LineStyle.Width = 0
					pl.Add(pg)
					thumbs = append(thumbs, pg)
				}
			}
			if kind != "scatter" {
				ln, err := plotter.NewLine(xys)
				if err != nil {
					return err
				}
				ln.Color, ln.Width = col, vg.Points(1.5)
				pl.Add(ln)
				thumbs = append(thumbs, ln)
			}
			if kind == "scatter" || s.Markers {
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					return err
				}
				sc.GlyphStyle.Color = col
				sc.GlyphStyle.Shape = glyphs[idx%len(glyphs)]
				sc.GlyphStyle.Radius = vg.Points(2.5)
				if kind == "scatter" && len(pts) > 2000 {
					sc.GlyphStyle.Radius = vg.Points(1)
					sc.GlyphStyle.Shape = draw.CircleGlyph{}
					sc.GlyphStyle.Color = withAlpha(col, 90)
				}
				pl.Add(sc)
				thumbs = append(thumbs, sc)
			}
			if lo != nil && kind != "band" {
				pl.Add(&errBars{pts: pts, color: col})
			}
			if name != "" && (len(s.Y) > 1 || s.Color != "" || len(c.Reference) > 0) {
				pl.Legend.Add(name, thumbs...)
			}
		}
	}
	if err := d.references(pl, fr, labels, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

func (d *drawing) noteDropped() {
	if n := d.dropped["x"]; n > 0 {
		d.note("log x axis: %d point(s) with x ≤ 0 left out", n)
	}
	if n := d.dropped["y"]; n > 0 {
		d.note("log y axis: %d point(s) with y ≤ 0 left out", n)
	}
	if n := d.dropped["inf"]; n > 0 {
		d.note("%d infinite value(s) left out", n)
	}
	if n := d.dropped["openinterval"]; n > 0 {
		d.note("%d interval(s) reaching ±∞ drawn to the edge of the plot", n)
	}
	if n := d.dropped["interval"]; n > 0 {
		d.note("log y axis: %d interval(s) with a lower end ≤ 0 drawn without it", n)
	}
}

func seriesName(y, color, label string, ny int) string {
	switch {
	case color == "":
		return y
	case ny > 1:
		return fmt.Sprintf("%s, %s = %s", y, color, label)
	}
	return fmt.Sprintf("%s = %s", color, label)
}

func bandPolygon(pts []point) plotter.XYs {
	var poly plotter.XYs
	for _, p := range pts {
		if !math.IsNaN(p.lo) && !math.IsNaN(p.hi) {
			poly = append(poly, plotter.XY{X: p.x, Y: p.hi})
		}
	}
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		if !math.IsNaN(p.lo) && !math.IsNaN(p.hi) {
			poly = append(poly, plotter.XY{X: p.x, Y: p.lo})
		}
	}
	return poly
}

var refStyle = draw.LineStyle{Color: color.Gray{60}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}

// references draws the spec's reference lines over the data.
func (d *drawing) references(pl *plot.Plot, fr *Frame, labels []string, groups [][]int) error {
	c := d.c
	for _, r := range d.c.Reference {
		st := refStyle
		switch r.Kind {
		case "identity":
			pl.Add(&refLine{kind: "identity", style: st})
			pl.Legend.Add(firstNonEmpty(r.Label, "y = x"), &refLine{style: st})
		case "hline", "vline":
			if (r.Kind == "hline" && c.YScale == "log" || r.Kind == "vline" && c.XScale == "log") && r.Value <= 0 {
				d.note("reference %s at %g is not on the log axis; left out", r.Kind, r.Value)
				continue
			}
			pl.Add(&refLine{kind: r.Kind, value: r.Value, style: st})
			axis := "y"
			if r.Kind == "vline" {
				axis = "x"
			}
			pl.Legend.Add(firstNonEmpty(r.Label, fmt.Sprintf("%s = %g", axis, r.Value)), &refLine{style: st})
		case "column":
			xc, rc := fr.Col(c.X), fr.Col(r.Column)
			for g, rows := range groups {
				var xys plotter.XYs
				for _, i := range rows {
					x, y := xc.Num[i], rc.Num[i]
					if !d.usable(x, c.XScale == "log", "x") || !d.usable(y, c.YScale == "log", "y") {
						continue
					}
					xys = append(xys, plotter.XY{X: x, Y: y})
				}
				if len(xys) == 0 {
					continue
				}
				sort.SliceStable(xys, func(a, b int) bool { return xys[a].X < xys[b].X })
				ln, err := plotter.NewLine(xys)
				if err != nil {
					return err
				}
				ln.LineStyle = st
				if len(groups) > 1 {
					ln.Color = seriesColor(g)
				}
				pl.Add(ln)
				if g == 0 {
					name := r.Label
					if name == "" {
						name = r.Column
						if len(groups) > 1 {
							name += " (dashed, per " + colorOfName(labels) + ")"
						}
					}
					pl.Legend.Add(name, &refLine{style: refStyle})
				}
			}
		}
	}
	return nil
}

func colorOfName(labels []string) string { return "series" }

// refLine is a line across the whole plot area: y = x, y = c or x = c.
// It has no data range of its own, so it never stretches the axes.
type refLine struct {
	kind  string
	value float64
	style draw.LineStyle
}

func (r *refLine) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	var pts []vg.Point
	switch r.kind {
	case "identity":
		lo, hi := math.Max(pl.X.Min, pl.Y.Min), math.Min(pl.X.Max, pl.Y.Max)
		if !(lo < hi) {
			return
		}
		pts = []vg.Point{{X: trX(lo), Y: trY(lo)}, {X: trX(hi), Y: trY(hi)}}
	case "hline":
		if r.value < pl.Y.Min || r.value > pl.Y.Max {
			return
		}
		pts = []vg.Point{{X: trX(pl.X.Min), Y: trY(r.value)}, {X: trX(pl.X.Max), Y: trY(r.value)}}
	case "vline":
		if r.value < pl.X.Min || r.value > pl.X.Max {
			return
		}
		pts = []vg.Point{{X: trX(r.value), Y: trY(pl.Y.Min)}, {X: trX(r.value), Y: trY(pl.Y.Max)}}
	default:
		return
	}
	c.StrokeLines(r.style, c.ClipLinesXY(pts)...)
}

// Thumbnail draws the legend entry.
func (r *refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
}

// hline values must be inside the y range so that the line shows.
func (r *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	switch r.kind {
	case "hline":
		return math.Inf(1), math.Inf(-1), r.value, r.value
	case "vline":
		return r.value, r.value, math.Inf(1), math.Inf(-1)
	}
	return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
}

// errBars draws vertical intervals with caps in data coordinates.
type errBars struct {
	pts   []point
	color color.Color
	dx    float64 // horizontal offset in data units (grouped bars)
}

func (e *errBars) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	st := draw.LineStyle{Color: e.color, Width: vg.Points(1)}
	cap := vg.Points(3)
	for _, p := range e.pts {
		if math.IsNaN(p.lo) && math.IsNaN(p.hi) {
			continue
		}
		lo, hi := p.lo, p.hi
		if math.IsNaN(lo) {
			lo = p.y
		}
		if math.IsNaN(hi) {
			hi = p.y
		}
		lo, hi = math.Max(lo, pl.Y.Min), math.Min(hi, pl.Y.Max) // ±∞: to the edge
		x := trX(p.x + e.dx)
		y0, y1 := trY(lo), trY(hi)
		c.StrokeLines(st, c.ClipLinesXY([]vg.Point{{X: x, Y: y0}, {X: x, Y: y1}})...)
		for _, y := range []vg.Length{y0, y1} {
			c.StrokeLines(st, c.ClipLinesXY([]vg.Point{{X: x - cap, Y: y}, {X: x + cap, Y: y}})...)
		}
	}
}

func (e *errBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range e.pts {
		for _, v := range []float64{p.lo, p.hi} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
		xmin, xmax = math.Min(xmin, p.x+e.dx), math.Max(xmax, p.x+e.dx)
	}
	return
}

// rects are filled rectangles in data coordinates (bars, histogram
// bins, heatmap cells).
type rects struct {
	r       []rect
	outline draw.LineStyle
	noRange bool
}

type rect struct {
	x0, x1, y0, y1 float64
	fill           color.Color
}

func (p *rects) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	for _, r := range p.r {
		y0 := r.y0
		if _, log := pl.Y.Scale.(plot.LogScale); log && y0 <= 0 {
			y0 = pl.Y.Min
		}
		pts := []vg.Point{{X: trX(r.x0), Y: trY(y0)}, {X: trX(r.x1), Y: trY(y0)}, {X: trX(r.x1), Y: trY(r.y1)}, {X: trX(r.x0), Y: trY(r.y1)}}
		if r.fill != nil {
			c.FillPolygon(r.fill, c.ClipPolygonXY(pts))
		}
		if p.outline.Width > 0 {
			c.StrokeLines(p.outline, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

func (p *rects) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range p.r {
		xmin, xmax = math.Min(xmin, r.x0), math.Max(xmax, r.x1)
		for _, y := range []float64{r.y0, r.y1} {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			}
		}
	}
	return
}

// swatch is a legend entry for filled rectangles.
type swatch struct {
	fill color.Color
	line draw.LineStyle
}

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	if s.fill != nil {
		c.FillPolygon(s.fill, pts)
	}
	if s.line.Width > 0 {
		c.StrokeLines(s.line, append(pts, pts[0]))
	}
}

func (d *drawing) bars(pl *plot.Plot, fr *Frame, b *spec.FigureBar) error {
	c := d.c
	pl.Y.Label.Text = firstNonEmpty(c.YLabel, strings.Join(b.Y, ", "))
	xc := fr.Col(c.X)
	cats, catIdx := xc.Categories(fr.N)
	labels, groups := d.groups(fr, b.Color)
	nSeries := len(b.Y) * len(labels)
	width := 0.8 / float64(nSeries)
	ylog := c.YScale == "log"
	d.dropped = map[string]int{}
	base := 0.0
	if ylog {
		base = math.NaN() // the axis minimum
	}
	s := 0
	for k, yname := range b.Y {
		yc := fr.Col(yname)
		var lo, hi *Col
		if len(b.YLo) > 0 && b.YLo[k] != "" && b.YHi[k] != "" {
			lo, hi = fr.Col(b.YLo[k]), fr.Col(b.YHi[k])
		}
		for g, rows := range groups {
			col := seriesColor(s)
			dx := (float64(s) - float64(nSeries-1)/2) * width
			rs := &rects{outline: draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}}
			var pts []point
			seen := map[int]bool{}
			for _, i := range rows {
				y := yc.Num[i]
				if !d.usable(y, ylog, "y") {
					continue
				}
				ci := catIdx[i]
				if seen[ci] {
					return fmt.Errorf("bar chart: x = %s has several rows for %s; filter with where, or split them with color", cats[ci], yname)
				}
				seen[ci] = true
				x := float64(ci)
				rs.r = append(rs.r, rect{x0: x + dx - width/2, x1: x + dx + width/2, y0: base, y1: y, fill: col})
				if lo != nil {
					pts = append(pts, point{x: x + dx, y: y, lo: lo.Num[i], hi: hi.Num[i]})
					if math.IsInf(lo.Num[i], 0) || math.IsInf(hi.Num[i], 0) {
						d.dropped["openinterval"]++
					}
				}
			}
			pl.Add(rs)
			if lo != nil {
				pl.Add(&errBars{pts: pts, color: color.Black})
			}
			if name := seriesName(yname, b.Color, labels[g], len(b.Y)); nSeries > 1 || len(c.Reference) > 0 {
				pl.Legend.Add(name, swatch{fill: col})
			}
			s++
		}
	}
	pl.NominalX(cats...)
	pl.X.Min, pl.X.Max = -0.5, float64(len(cats))-0.5
	if err := d.references(pl, fr, labels, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

func (d *drawing) histogram(pl *plot.Plot, fr *Frame, h *spec.FigureHist) error {
	c := d.c
	xlog := c.XScale == "log"
	d.dropped = map[string]int{}
	xc := fr.Col(c.X)
	labels, groups := d.groups(fr, h.Color)
	// Bins span all groups (and the x_range, when given).
	lo, hi := math.Inf(1), math.Inf(-1)
	tr := func(x float64) float64 { return x }
	inv := tr
	if xlog {
		tr, inv = math.Log10, func(x float64) float64 { return math.Pow(10, x) }
	}
	for i := 0; i < fr.N; i++ {
		x := xc.Num[i]
		if d.usable(x, xlog, "x") {
			lo, hi = math.Min(lo, tr(x)), math.Max(hi, tr(x))
		}
	}
	if len(c.XRange) == 2 {
		lo, hi = tr(c.XRange[0]), tr(c.XRange[1])
	}
	if math.IsInf(lo, 0) {
		return fmt.Errorf("histogram: no finite value in %s", c.X)
	}
	if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	nb := h.Bins
	width := (hi - lo) / float64(nb)
	density := h.Density
	if density {
		pl.Y.Label.Text = firstNonEmpty(c.YLabel, "density")
	} else {
		pl.Y.Label.Text = firstNonEmpty(c.YLabel, "count")
	}
	outside := 0
	for g, rows := range groups {
		counts := make([]float64, nb)
		n := 0
		for _, i := range rows {
			x := xc.Num[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || xlog && x <= 0 {
				continue
			}
			b := int(math.Floor((tr(x) - lo) / width))
			if b == nb && tr(x) == hi {
				b = nb - 1
			}
			if b < 0 || b >= nb {
				outside++
				continue
			}
			counts[b]++
			n++
		}
		col := seriesColor(g)
		rs := &rects{outline: draw.LineStyle{Color: col, Width: vg.Points(1)}}
		for b, cnt := range counts {
			if cnt == 0 {
				continue
			}
			x0, x1 := inv(lo+float64(b)*width), inv(lo+float64(b+1)*width)
			y := cnt
			if density && n > 0 {
				y = cnt / (float64(n) * (x1 - x0))
			}
			rs.r = append(rs.r, rect{x0: x0, x1: x1, y0: 0, y1: y, fill: withAlpha(col, 70)})
		}
		pl.Add(rs)
		if h.Color != "" {
			pl.Legend.Add(seriesName("", h.Color, labels[g], 1), swatch{fill: withAlpha(col, 70), line: rs.outline})
		}
	}
	if outside > 0 {
		d.note("%d value(s) outside x_range not counted", outside)
	}
	if err := d.references(pl, fr, labels, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

// shareAxes gives every facet panel the same ranges.
func (d *drawing) shareAxes(plots []*plot.Plot) {
	if len(plots) < 2 {
		return
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range plots {
		xmin, xmax = math.Min(xmin, p.X.Min), math.Max(xmax, p.X.Max)
		ymin, ymax = math.Min(ymin, p.Y.Min), math.Max(ymax, p.Y.Max)
	}
	for _, p := range plots {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	}
}

// finishAxes applies the spec's ranges and pads a degenerate range.
func (d *drawing) finishAxes(p *plot.Plot) {
	c := d.c
	if f := d.fig; (f.Line != nil || f.Scatter != nil || f.Band != nil) && c.XScale != "log" && len(c.XRange) == 0 {
		// Room for the markers and error bars at the ends.
		pad := (p.X.Max - p.X.Min) * 0.03
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	}
	if len(c.XRange) == 2 {
		p.X.Min, p.X.Max = c.XRange[0], c.XRange[1]
	}
	if len(c.YRange) == 2 {
		p.Y.Min, p.Y.Max = c.YRange[0], c.YRange[1]
	}
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		_, log := ax.Scale.(plot.LogScale)
		if math.IsInf(ax.Min, 0) || math.IsInf(ax.Max, 0) || math.IsNaN(ax.Min) || math.IsNaN(ax.Max) {
			ax.Min, ax.Max = 0, 1
			if log {
				ax.Min, ax.Max = 0.1, 1
			}
		}
		if ax.Min == ax.Max {
			if log {
				ax.Min, ax.Max = ax.Min/2, ax.Max*2
			} else {
				pad := math.Max(math.Abs(ax.Min)*0.1, 0.5)
				ax.Min, ax.Max = ax.Min-pad, ax.Max+pad
			}
		}
		if log && ax.Min <= 0 {
			ax.Min = ax.Max / 1e3
		}
	}
}

// render draws the panels on one canvas of the format.
func (d *drawing) render(format string, plots []*plot.Plot, titles []string, cols, rows int, w, h vg.Length) ([]byte, error) {
	var cv vg.CanvasWriterTo
	switch format {
	case "png":
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144))}
	case "svg":
		cv = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
	case "pdf":
		cv = vgpdf.New(w, h)
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	dc := draw.New(cv)
	if format == "png" {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
	}
	if d.heatCbar != nil {
		// The colour bar takes the right 15% of the canvas.
		right := dc
		right.Min.X = dc.Max.X - (dc.Max.X-dc.Min.X)*0.15
		dc.Max.X = right.Min.X
		d.drawPlot(d.heatCbar, right)
	}
	dc = drawTitle(dc, d.c.Title, 13)
	if len(plots) == 1 {
		d.drawPlot(plots[0], dc)
	} else {
		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, cols)
			for k := 0; k < cols; k++ {
				if i := r*cols + k; i < len(plots) {
					grid[r][k] = plots[i]
				}
			}
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 2,
			PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter * 2}
		for r := range grid {
			for k, p := range grid[r] {
				if p != nil {
					d.drawPlot(p, drawTitle(tiles.At(dc, k, r), titles[r*cols+k], 11))
				}
			}
		}
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if format == "svg" {
		b = fixSVGFonts(b)
	}
	return b, nil
}

// drawTitle writes a centred title at the top of c and returns the rest.
func drawTitle(c draw.Canvas, title string, size float64) draw.Canvas {
	if title == "" {
		c.Max.Y -= vg.Points(4)
		return c
	}
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(size)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(3)}, title)
	c.Max.Y -= vg.Points(size*1.3 + 6)
	return c
}

// fixSVGFonts adds fallbacks to the font family of an SVG drawn without
// embedded fonts, so browsers without Liberation pick a metric twin.
// Each text also gets the width it has in Liberation Sans (textLength), so
// a browser with a wider fallback font squeezes it instead of letting it
// run over the plot.
func fixSVGFonts(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:Liberation Sans,Arial,Helvetica,sans-serif;"))
	return svgText.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := svgText.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil || len(sub[3]) == 0 {
			return m
		}
		face := font.DefaultCache.Lookup(plot.DefaultFont, vg.Points(size))
		w := face.Width(html.UnescapeString(string(sub[3]))).Points()
		return []byte(fmt.Sprintf(`<text%s textLength="%.2f" lengthAdjust="spacingAndGlyphs">%s</text>`, sub[1], w, sub[3]))
	})
}

// svgText matches vgsvg's text elements: attributes (with the font size)
// and content.
var svgText = regexp.MustCompile(`(?s)<text((?:[^>]*?)font-size:([0-9.]+)px[^>]*)>([^<]*)</text>`)
