package report

import (
	"math"

	"gonum.org/v1/plot"
)

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
