package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// heatState is the colour scale shared by every panel of a heatmap.
type heatState struct {
	zmin, zmax float64
	log        bool
	label      string
}

func (h *heatState) norm(z float64) float64 {
	if h.log {
		z, lo, hi := math.Log10(z), math.Log10(h.zmin), math.Log10(h.zmax)
		if hi == lo {
			return 0.5
		}
		return (z - lo) / (hi - lo)
	}
	if h.zmax == h.zmin {
		return 0.5
	}
	return (z - h.zmin) / (h.zmax - h.zmin)
}

// viridis anchors (matplotlib), interpolated linearly.
var viridis = [][3]float64{
	{0.267, 0.005, 0.329}, {0.283, 0.141, 0.458}, {0.254, 0.265, 0.530}, {0.207, 0.372, 0.553},
	{0.164, 0.471, 0.558}, {0.128, 0.567, 0.551}, {0.135, 0.659, 0.518}, {0.267, 0.749, 0.441},
	{0.478, 0.821, 0.318}, {0.741, 0.873, 0.150}, {0.993, 0.906, 0.144},
}

func colormap(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	x := t * float64(len(viridis)-1)
	i := int(math.Floor(x))
	if i >= len(viridis)-1 {
		i = len(viridis) - 2
	}
	f := x - float64(i)
	var rgb [3]uint8
	for k := 0; k < 3; k++ {
		rgb[k] = uint8(math.Round(255 * (viridis[i][k]*(1-f) + viridis[i+1][k]*f)))
	}
	return color.NRGBA{rgb[0], rgb[1], rgb[2], 255}
}

func (d *drawing) heatmap(pl *plot.Plot, fr *Frame, h *spec.FigureHeatmap) error {
	c := d.c
	pl.Y.Label.Text = firstNonEmpty(c.YLabel, Human(h.Y))
	xc, yc, zc := fr.Col(c.X), fr.Col(h.Y), fr.Col(h.Z)
	xl, xi := xc.Categories(fr.N)
	yl, yi := yc.Categories(fr.N)
	if d.heat == nil {
		d.heat = &heatState{zmin: math.Inf(1), zmax: math.Inf(-1), log: h.ZScale == "log", label: Human(h.Z)}
	}
	hs := d.heat
	type cell struct{ x, y int }
	vals := map[cell]float64{}
	var order []cell // the frame's row order: drawn in it, so the bytes are the same every time
	dropped := 0
	for i := 0; i < fr.N; i++ {
		z := zc.Num[i]
		if math.IsNaN(z) || math.IsInf(z, 0) || hs.log && z <= 0 {
			dropped++
			continue
		}
		k := cell{xi[i], yi[i]}
		if _, dup := vals[k]; dup {
			return fmt.Errorf("heatmap: (%s, %s) = (%s, %s) has several rows; filter with where or facet", c.X, h.Y, xl[xi[i]], yl[yi[i]])
		}
		vals[k] = z
		order = append(order, k)
		hs.zmin, hs.zmax = math.Min(hs.zmin, z), math.Max(hs.zmax, z)
	}
	if dropped > 0 {
		if hs.log {
			d.note("%d cell(s) with %s ≤ 0 or missing left blank (log colour scale)", dropped, h.Z)
		} else {
			d.note("%d cell(s) with missing %s left blank", dropped, h.Z)
		}
	}
	pl.Add(&heatCells{vals: func(yield func(x, y int, z float64)) {
		for _, k := range order {
			yield(k.x, k.y, vals[k])
		}
	}, hs: hs, nx: len(xl), ny: len(yl), labels: len(vals) <= 150})
	pl.X.Tick.Marker = categoryTicks(xl)
	pl.Y.Tick.Marker = categoryTicks(yl)
	pl.X.Min, pl.X.Max = -0.5, float64(len(xl))-0.5
	pl.Y.Min, pl.Y.Max = -0.5, float64(len(yl))-0.5
	for _, ax := range []*plot.Axis{&pl.X, &pl.Y} {
		ax.LineStyle.Width = 0
		ax.Tick.LineStyle.Width = 0
		ax.Padding = 0
	}
	return nil
}

// categoryTicks labels integer positions with category names, thinned to
// at most 12 labels.
func categoryTicks(labels []string) plot.Ticker {
	step := max(1, (len(labels)+11)/12)
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ts []plot.Tick
		for i, l := range labels {
			if i%step == 0 {
				ts = append(ts, plot.Tick{Value: float64(i), Label: l})
			}
		}
		return ts
	})
}

// heatCells draws one rectangle per (x, y) category cell.
type heatCells struct {
	vals   func(yield func(x, y int, z float64))
	hs     *heatState
	nx, ny int
	labels bool
}

func (h *heatCells) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	sty := text.Style{Font: font.From(plot.DefaultFont, 7), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	h.vals(func(x, y int, z float64) {
		t := h.hs.norm(z)
		col := colormap(t)
		x0, x1 := trX(float64(x)-0.5), trX(float64(x)+0.5)
		y0, y1 := trY(float64(y)-0.5), trY(float64(y)+0.5)
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if h.labels {
			sty.Color = color.White
			if t > 0.6 {
				sty.Color = color.Black
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, strconv.FormatFloat(z, 'g', 3, 64))
		}
	})
}

func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(h.nx) - 0.5, -0.5, float64(h.ny) - 0.5
}

// colorbarPlot is the z scale beside a heatmap.
func (d *drawing) colorbarPlot() *plot.Plot {
	hs := d.heat
	p := plot.New()
	p.HideX()
	p.Y.Label.Text = hs.label
	if hs.log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks
	}
	lo, hi := hs.zmin, hs.zmax
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
		if hs.log {
			lo, hi = hs.zmin/2, hs.zmax*2
		}
	}
	const n = 64
	rs := &rects{}
	for k := 0; k < n; k++ {
		var a, b float64
		if hs.log {
			la, lb := math.Log10(lo), math.Log10(hi)
			a, b = math.Pow(10, la+(lb-la)*float64(k)/n), math.Pow(10, la+(lb-la)*float64(k+1)/n)
		} else {
			a, b = lo+(hi-lo)*float64(k)/n, lo+(hi-lo)*float64(k+1)/n
		}
		top := b
		if k < n-1 { // overlap the next slice: no hairline seams
			top = b + (b-a)/2
		}
		rs.r = append(rs.r, rect{x0: 0, x1: 1, y0: a, y1: top, fill: colormap((float64(k) + 0.5) / n)})
	}
	p.Add(rs)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, lo, hi
	d.takeYLabel(p)
	return p
}
