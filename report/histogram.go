package report

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// histogram draws a histogram figure: one outlined bar series per colour
// group, over bins shared by every group.
func (d *drawing) histogram(pl *plot.Plot, fr *Frame, h *spec.FigureHist) error {
	c := d.c
	d.dropped = map[string]int{}
	xc := fr.Col(c.X)
	labels, groups := d.groups(fr, h.Color)
	bins, err := d.binsOf(fr, xc)
	if err != nil {
		return err
	}
	bins.n = h.Bins
	if h.Density {
		pl.Y.Label.Text = firstNonEmpty(c.YLabel, "density")
	} else {
		pl.Y.Label.Text = firstNonEmpty(c.YLabel, "count")
	}
	outside := 0
	for g, rows := range groups {
		counts, n, out := bins.count(xc, rows)
		outside += out
		col := seriesColor(g)
		rs := &rects{outline: draw.LineStyle{Color: col, Width: vg.Points(1)}}
		for b, cnt := range counts {
			if cnt == 0 {
				continue
			}
			x0, x1 := bins.edge(b), bins.edge(b+1)
			y := cnt
			if h.Density && n > 0 {
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
	if err := d.references(pl, fr, groups); err != nil {
		return err
	}
	d.noteDropped()
	return nil
}

// histBins are a histogram's n equal bins on [lo, hi] of the axis
// (log10 of the values on a log axis): tr maps a value onto the axis,
// inv back.
type histBins struct {
	lo, hi  float64
	n       int
	log     bool
	tr, inv func(float64) float64
}

// binsOf spans the bins over every group's values (or the x_range, when
// given).
func (d *drawing) binsOf(fr *Frame, xc *Col) (histBins, error) {
	c := d.c
	xlog := c.XScale == "log"
	bs := histBins{lo: math.Inf(1), hi: math.Inf(-1), log: xlog, tr: func(x float64) float64 { return x }}
	bs.inv = bs.tr
	if xlog {
		bs.tr, bs.inv = math.Log10, func(x float64) float64 { return math.Pow(10, x) }
	}
	for i := 0; i < fr.N; i++ {
		x := xc.Num[i]
		if d.usable(x, xlog, "x") {
			bs.lo, bs.hi = math.Min(bs.lo, bs.tr(x)), math.Max(bs.hi, bs.tr(x))
		}
	}
	if len(c.XRange) == 2 {
		bs.lo, bs.hi = bs.tr(c.XRange[0]), bs.tr(c.XRange[1])
	}
	if math.IsInf(bs.lo, 0) {
		return bs, fmt.Errorf("histogram: no finite value in %s", c.X)
	}
	if bs.hi == bs.lo {
		bs.lo, bs.hi = bs.lo-0.5, bs.hi+0.5
	}
	return bs, nil
}

func (bs histBins) width() float64 { return (bs.hi - bs.lo) / float64(bs.n) }

// edge is the value at the lower edge of bin b.
func (bs histBins) edge(b int) float64 { return bs.inv(bs.lo + float64(b)*bs.width()) }

// count bins the rows' values: the counts, how many were counted, and how
// many fell outside the bins (the top edge belongs to the last bin).
func (bs histBins) count(xc *Col, rows []int) (counts []float64, n, outside int) {
	counts = make([]float64, bs.n)
	width := bs.width()
	for _, i := range rows {
		x := xc.Num[i]
		if math.IsNaN(x) || math.IsInf(x, 0) || bs.log && x <= 0 {
			continue
		}
		b := int(math.Floor((bs.tr(x) - bs.lo) / width))
		if b == bs.n && bs.tr(x) == bs.hi {
			b = bs.n - 1
		}
		if b < 0 || b >= bs.n {
			outside++
			continue
		}
		counts[b]++
		n++
	}
	return counts, n, outside
}
