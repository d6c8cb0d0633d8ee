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
						name = Human(r.Column)
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
