package report

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// references draws the spec's reference lines over the data.
func (d *drawing) references(pl *plot.Plot, fr *Frame, groups [][]int) error {
	c := d.c
	for k, r := range d.c.Reference {
		st := refStyleAt(k)
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
			if err := d.columnReference(pl, fr, r.Column, r.Label, st, groups); err != nil {
				return err
			}
		}
	}
	return nil
}

// columnReference draws a reference column as one dashed line per series
// group (in the group's colour when there are several) and gives it one
// legend entry, from the first group that has a point to draw: a column
// that only some groups fill (a bound of one noise kind) is still named.
func (d *drawing) columnReference(pl *plot.Plot, fr *Frame, column, label string, st draw.LineStyle, groups [][]int) error {
	c := d.c
	xc, rc := fr.Col(c.X), fr.Col(column)
	named := false
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
		if !named {
			named = true
			name := label
			if name == "" {
				name = Human(column)
				if len(groups) > 1 {
					name += " (dashed, per series)"
				}
			}
			pl.Legend.Add(name, &refLine{style: st})
		}
	}
	return nil
}

// refStyleAt is the k-th reference line's style: the same grey, each with
// its own dash pattern, so that two references stay apart in the legend.
func refStyleAt(k int) draw.LineStyle {
	st := refStyle
	dashes := [][]vg.Length{
		{vg.Points(5), vg.Points(3)},
		{vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(8), vg.Points(3), vg.Points(1.5), vg.Points(3)},
		{vg.Points(10), vg.Points(5)},
	}
	st.Dashes = dashes[k%len(dashes)]
	return st
}

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
