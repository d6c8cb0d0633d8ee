package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
	if err := checkNumeric(f, fr); err != nil {
		return nil, err
	}
	panels, err := panelsOf(c, fr)
	if err != nil {
		return nil, err
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
	if c.Legend == "outside" && len(plots) > 0 {
		// One legend beside the plot area (render draws it in a strip on
		// the right): it never covers data, and with facets it is not the
		// first panel's alone.
		l := plots[0].Legend
		d.outside = &l
		plots[0].Legend = plot.NewLegend()
	}
	for _, pl := range plots {
		d.finishAxes(pl)
	}
	if f.Heatmap != nil && len(plots) > 0 {
		d.heatCbar = d.colorbarPlot()
	}
	return d.files(plots, titles)
}

// checkNumeric refuses a text column where a figure needs numbers (a text
// column goes on a bar chart's x).
func checkNumeric(f *spec.Figure, fr *Frame) error {
	c := f.Common()
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
			return fmt.Errorf("figure %s: column %s holds text, not numbers (put text on the x axis of a bar chart, or use it as color or facet)", c.Name, n)
		}
	}
	return nil
}

// panel is one facet of a figure: its title and rows.
type panel struct {
	title string
	fr    *Frame
}

// panelsOf splits the frame into one panel per distinct value of the facet
// column (one panel without a facet); the panels share their axes.
func panelsOf(c *spec.FigureCommon, fr *Frame) ([]panel, error) {
	if c.Facet == "" {
		return []panel{{"", fr}}, nil
	}
	fc := fr.Col(c.Facet)
	if fc == nil {
		return nil, fmt.Errorf("figure %s: no column %q", c.Name, c.Facet)
	}
	labels, idx := fc.Categories(fr.N)
	if len(labels) > c.MaxPanels {
		return nil, fmt.Errorf("figure %s: facet %s has %d values, more than max_panels = %d panels; filter with where or raise max_panels", c.Name, c.Facet, len(labels), c.MaxPanels)
	}
	var panels []panel
	for k, l := range labels {
		keep := make([]bool, fr.N)
		for i, j := range idx {
			keep[i] = j == k
		}
		panels = append(panels, panel{c.Facet + " = " + l, fr.Filter(keep)})
	}
	return panels, nil
}

// files renders the panels in every format of the figure, on a grid of
// near-square shape for several panels.
func (d *drawing) files(plots []*plot.Plot, titles []string) (*Result, error) {
	c := d.c
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
	outside     *plot.Legend // legend: outside, drawn right of the panels
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
	pl.X.Label.Text = firstNonEmpty(c.XLabel, Human(c.X))
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

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
