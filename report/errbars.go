package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
