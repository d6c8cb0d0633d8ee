package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// xy draws a line, scatter or band figure: one series per y column and
// colour group, with intervals where y_lo and y_hi are given.
func (d *drawing) xy(pl *plot.Plot, fr *Frame, s *spec.FigureXY, kind string) error {
	c := d.c
	pl.Y.Label.Text = firstNonEmpty(c.YLabel, humanList(s.Y))
	labels, groups := d.groups(fr, s.Color)
	d.dropped = map[string]int{}
	nSeries := 0
	for k, yname := range s.Y {
		var lo, hi *Col
		if len(s.YLo) > 0 && s.YLo[k] != "" && s.YHi[k] != "" {
			lo, hi = fr.Col(s.YLo[k]), fr.Col(s.YHi[k])
		}
		for g, rows := range groups {
			pts := d.seriesPoints(fr.Col(c.X), fr.Col(yname), lo, hi, rows)
			idx := nSeries
			if s.Color != "" {
				idx = g + k*len(labels)
			}
			nSeries++
			if len(pts) == 0 {
				continue
			}
			name := seriesName(seriesLabel(s.Labels, k, yname), s.Color, labels[g], len(s.Y))
			if kind == "scatter" && len(pts) > MaxScatterPoints {
				pts = d.thin(pts, name)
			}
			if kind != "scatter" {
				sort.SliceStable(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
			}
			thumbs, err := addSeries(pl, pts, kind, idx, s.Markers)
			if err != nil {
				return err
			}
			if lo != nil && kind != "band" {
				pl.Add(&errBars{pts: pts, color: seriesColor(idx)})
			}
			if name != "" && (len(s.Y) > 1 || s.Color != "" || len(c.Reference) > 0) {
				pl.Legend.Add(name, thumbs...)
			}
		}
	}
	if err := d.references(pl, fr, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

// seriesPoints are the rows' points of one series (x, y and, with lo and
// hi, its interval), without those a log axis cannot show (counted in
// d.dropped).
func (d *drawing) seriesPoints(xc, yc, lo, hi *Col, rows []int) []point {
	xlog, ylog := d.c.XScale == "log", d.c.YScale == "log"
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
	return pts
}

// thin keeps every k-th of a scatter's points so that at most
// MaxScatterPoints are drawn, and notes it.
func (d *drawing) thin(pts []point, name string) []point {
	step := (len(pts) + MaxScatterPoints - 1) / MaxScatterPoints
	thin := pts[:0:0]
	for i := 0; i < len(pts); i += step {
		thin = append(thin, pts[i])
	}
	d.note("%s: %d points thinned to every %d-th (%d drawn)", name, len(pts), step, len(thin))
	return thin
}

// addSeries draws one series of a line, scatter or band figure in the
// colour and glyph of series idx and returns its legend thumbnails.
func addSeries(pl *plot.Plot, pts []point, kind string, idx int, markers bool) ([]plot.Thumbnailer, error) {
	col := seriesColor(idx)
	xys := make(plotter.XYs, len(pts))
	for i, p := range pts {
		xys[i] = plotter.XY{X: p.x, Y: p.y}
	}
	var thumbs []plot.Thumbnailer
	if kind == "band" {
		if poly := bandPolygon(pts); len(poly) > 2 {
			pg, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, err
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
			return nil, err
		}
		ln.Color, ln.Width = col, vg.Points(1.5)
		pl.Add(ln)
		thumbs = append(thumbs, ln)
	}
	if kind == "scatter" || markers {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
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
	return thumbs, nil
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

// seriesName is the legend entry of series y (already in words) in the
// colour group where column color has value label.
func seriesName(y, color, label string, ny int) string {
	switch {
	case color == "":
		return y
	case ny > 1:
		return fmt.Sprintf("%s, %s = %s", y, Human(color), label)
	}
	return fmt.Sprintf("%s = %s", Human(color), label)
}

// humanList is the default y label: the columns in words.
func humanList(cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = Human(c)
	}
	return strings.Join(out, ", ")
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
