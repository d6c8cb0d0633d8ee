package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A long x label on a narrow facet panel once squeezed the data area to
// nothing (gonum pads the data so the label fits centred under it): the
// label is now wrapped to the panel, and the data keep most of its width.
func TestLongLabelsKeepTheDataArea(t *testing.T) {
	pl := plot.New()
	pl.Add(plotter.NewGrid())
	pl.X.Label.Text = "CPU seconds of the training and crafting nodes (measured with getrusage, shared equally)"
	pl.X.Label.TextStyle.Font.Size = vg.Points(11)
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, 1, 0, 1
	w, h := 6*vg.Centimeter, 5*vg.Centimeter
	c := draw.New(vgimg.New(w, h))
	d := &drawing{}
	d.drawPlot(pl, c)
	if !strings.Contains(pl.X.Label.Text, "\n") {
		t.Fatalf("label not wrapped: %q", pl.X.Label.Text)
	}
	da := pl.DataCanvas(c)
	if got := da.Max.X - da.Min.X; got < 0.6*w {
		t.Errorf("data area %.1f pt wide on a %.1f pt panel", got.Points(), w.Points())
	}
	for _, line := range strings.Split(pl.X.Label.Text, "\n") {
		if lw := pl.X.Label.TextStyle.Width(line); lw > 0.9*w {
			t.Errorf("line %q is %.1f pt, wider than the panel allows", line, lw.Points())
		}
	}
	// Drawing again (the next format) wraps the original text the same way.
	first := pl.X.Label.Text
	d.drawPlot(pl, c)
	if pl.X.Label.Text != first {
		t.Errorf("re-wrapped label differs: %q vs %q", pl.X.Label.Text, first)
	}
}

func TestWrapLabelShortTextUnchanged(t *testing.T) {
	sty := plot.New().X.Label.TextStyle
	if got := wrapLabel("ε / accountant ε", sty, 10*vg.Centimeter); got != "ε / accountant ε" {
		t.Errorf("short label changed: %q", got)
	}
	if got := wrapLabel("a_single_very_long_word_that_cannot_break", sty, vg.Centimeter); got != "a_single_very_long_word_that_cannot_break" {
		t.Errorf("unbreakable word changed: %q", got)
	}
}
