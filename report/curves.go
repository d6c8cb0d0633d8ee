package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CurvePanel is one panel of lines and boxes the caller computed: report
// knows no privacy, so a tradeoff figure (stages/figure) hands it the
// claim's curve and the audit's operating points as plain numbers.
type CurvePanel struct {
	Title string
	Lines []CurveLine
	Boxes []Box
}

// CurveLine is a polyline with a legend entry.
type CurveLine struct {
	Label  string
	X, Y   []float64
	Dashed bool
}

// Box is a point (X, Y) in the rectangle [XLo, XHi] × [YLo, YHi];
// Flagged boxes are drawn in red under their own legend entry.
type Box struct {
	X, Y, XLo, XHi, YLo, YHi float64
	Flagged                  bool
}

// CurveAxes says how the panels are drawn: axis labels, log scales (both
// axes), the boxes' legend entries.
type CurveAxes struct {
	XLabel, YLabel         string
	Log                    bool
	BoxLabel, FlagLabel    string
	XMin, XMax, YMin, YMax float64 // the axes' ranges (shared by every panel)
}

var (
	boxColor  = color.NRGBA{0x1f, 0x77, 0xb4, 255}
	flagColor = color.NRGBA{0xd6, 0x27, 0x28, 255}
)

// DrawCurves renders curve panels with the figure's common keys (name,
// title, legend, formats, size).
func DrawCurves(c *spec.FigureCommon, panels []CurvePanel, ax CurveAxes) (*Result, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("figure %s: nothing to draw", c.Name)
	}
	d := &drawing{fig: &spec.Figure{}, c: c, dropped: map[string]int{}}
	var plots []*plot.Plot
	var titles []string
	for k, p := range panels {
		pl := plot.New()
		d.curvePanel(pl, p, ax, k == 0)
		plots = append(plots, pl)
		titles = append(titles, p.Title)
	}
	return d.files(plots, titles)
}

func (d *drawing) curvePanel(pl *plot.Plot, p CurvePanel, ax CurveAxes, legend bool) {
	pl.X.Label.Text, pl.Y.Label.Text = ax.XLabel, ax.YLabel
	pl.X.Label.TextStyle.Font.Size, pl.Y.Label.TextStyle.Font.Size = vg.Points(11), vg.Points(11)
	pl.X.Tick.Label.Font.Size, pl.Y.Tick.Label.Font.Size = vg.Points(9), vg.Points(9)
	pl.X.Tick.Marker, pl.Y.Tick.Marker = niceTicks, niceTicks
	if ax.Log {
		pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = logTicks, logTicks
	}
	pl.Add(plotter.NewGrid())
	for k, l := range p.Lines {
		var xys plotter.XYs
		for i := range l.X {
			if !ax.Log || (l.X[i] > 0 && l.Y[i] > 0) {
				xys = append(xys, plotter.XY{X: l.X[i], Y: l.Y[i]})
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		// The first line (the claim) black, the last (a reference) grey,
		// the others in the palette from its second colour (the boxes
		// have the first).
		line.Color, line.Width = seriesColor(k), vg.Points(1.6)
		switch {
		case k == 0:
			line.Color = color.Black
		case k == len(p.Lines)-1 && len(p.Lines) > 1:
			line.Color, line.Width = color.Gray{150}, vg.Points(1)
		}
		if l.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pl.Add(line)
		if legend && l.Label != "" {
			pl.Legend.Add(l.Label, line)
		}
	}
	bp := &boxesPlot{boxes: p.Boxes}
	pl.Add(bp)
	if legend {
		pl.Legend.Add(ax.BoxLabel, legendBox{boxColor})
		for _, b := range p.Boxes {
			if b.Flagged {
				pl.Legend.Add(ax.FlagLabel, legendBox{flagColor})
				break
			}
		}
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = ax.XMin, ax.XMax, ax.YMin, ax.YMax
	d.takeYLabel(pl)
	if !legend || d.c.Legend == "none" {
		pl.Legend = plot.NewLegend()
	}
	pl.Legend.Top = strings.HasPrefix(d.c.Legend, "top")
	pl.Legend.Left = strings.HasSuffix(d.c.Legend, "left")
	pl.Legend.XOffs, pl.Legend.YOffs = -vg.Millimeter*2, vg.Millimeter*2
	if pl.Legend.Left {
		pl.Legend.XOffs = vg.Millimeter * 2
	}
	if pl.Legend.Top {
		pl.Legend.YOffs = -vg.Millimeter * 2
	}
	pl.Legend.TextStyle.Font.Size = vg.Points(9)
}

// boxesPlot draws each box as a translucent rectangle with its point,
// clipped to the axes (a log axis cannot show a lower end of 0).
type boxesPlot struct{ boxes []Box }

func (b *boxesPlot) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	clamp := func(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }
	for _, bx := range b.boxes {
		col := boxColor
		if bx.Flagged {
			col = flagColor
		}
		x0, x1 := trX(clamp(bx.XLo, pl.X.Min, pl.X.Max)), trX(clamp(bx.XHi, pl.X.Min, pl.X.Max))
		y0, y1 := trY(clamp(bx.YLo, pl.Y.Min, pl.Y.Max)), trY(clamp(bx.YHi, pl.Y.Min, pl.Y.Max))
		rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}}
		c.FillPolygon(withAlpha(col, 50), rect)
		c.StrokeLines(draw.LineStyle{Color: col, Width: vg.Points(0.8)}, rect)
		if bx.X >= pl.X.Min && bx.X <= pl.X.Max && bx.Y >= pl.Y.Min && bx.Y <= pl.Y.Max {
			c.DrawGlyph(draw.GlyphStyle{Color: col, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}, vg.Point{X: trX(bx.X), Y: trY(bx.Y)})
		}
	}
}

// legendBox is a legend thumbnail: a filled square.
type legendBox struct{ color color.NRGBA }

func (l legendBox) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min}
	c.FillPolygon(withAlpha(l.color, 80), pts)
	c.StrokeLines(draw.LineStyle{Color: l.color, Width: vg.Points(0.8)}, pts)
}
