package report

import (
	"fmt"
	"image/color"
	"math"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
		// Both ends are clamped to the axis range before they are
		// transformed: a bar's base of 0 on a log axis (or any end far
		// outside the range) maps to an infinite or astronomically distant
		// pixel, which the rasteriser walks scanline by scanline instead
		// of clipping; the visible part of the bar is the same.
		// A bar without a value is not drawn; one without a base (NaN)
		// rises from the bottom of the axis. NaN coordinates would hang
		// the rasteriser.
		if math.IsNaN(r.y1) {
			continue
		}
		y0 := r.y0
		if math.IsNaN(y0) {
			y0 = pl.Y.Min
		}
		y0, y1 := clampTo(y0, pl.Y.Min, pl.Y.Max), clampTo(r.y1, pl.Y.Min, pl.Y.Max)
		pts := []vg.Point{{X: trX(r.x0), Y: trY(y0)}, {X: trX(r.x1), Y: trY(y0)}, {X: trX(r.x1), Y: trY(y1)}, {X: trX(r.x0), Y: trY(y1)}}
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

// bars draws a bar figure: grouped bars per x category, one per y column
// and colour group, with intervals where given.
func (d *drawing) bars(pl *plot.Plot, fr *Frame, b *spec.FigureBar) error {
	c := d.c
	pl.Y.Label.Text = firstNonEmpty(c.YLabel, humanList(b.Y))
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
	s, smallest := 0, math.Inf(1)
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
				smallest = math.Min(smallest, y)
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
			if name := seriesName(seriesLabel(b.Labels, k, yname), b.Color, labels[g], len(b.Y)); nSeries > 1 || len(c.Reference) > 0 {
				pl.Legend.Add(name, swatch{fill: col})
			}
			s++
		}
	}
	if ylog && !math.IsInf(smallest, 1) {
		// Bars rise from the axis minimum: put it a decade or more below
		// the smallest bar, so that bar has a height.
		pl.Y.Min = math.Min(pl.Y.Min, math.Pow(10, math.Ceil(math.Log10(smallest))-1))
	}
	pl.NominalX(cats...)
	pl.X.Min, pl.X.Max = -0.5, float64(len(cats))-0.5
	if err := d.references(pl, fr, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

// clampTo is v limited to [lo, hi].
func clampTo(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
