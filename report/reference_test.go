package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/dpaudit/dpaudit/spec"
)

// Two column references, each filled by only one series group (a bound of
// one noise kind): both are named in the legend, with dash patterns that
// tell them apart. The second was once left out of the legend because the
// first group had no point of it.
func TestColumnReferencesEachNamed(t *testing.T) {
	nan := math.NaN()
	f := &Frame{N: 4, cols: map[string]*Col{}}
	f.add(&Col{Name: "x", Num: []float64{1, 2, 1, 2}})
	f.add(&Col{Name: "dp", Num: []float64{0.1, 0.05, nan, nan}})
	f.add(&Col{Name: "mdp", Num: []float64{nan, nan, 0.3, 0.2}})
	c := &spec.FigureCommon{X: "x", Reference: []spec.Reference{
		{Kind: "column", Column: "dp", Label: "Thm 4.1 (DP)"},
		{Kind: "column", Column: "mdp", Label: "Thm E.4 (metric DP)"},
	}}
	d := &drawing{c: c, dropped: map[string]int{}}
	pl := plot.New()
	if err := d.references(pl, f, [][]int{{0, 1}, {2, 3}}); err != nil {
		t.Fatal(err)
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 1, 2, 0, 1
	cv := vgsvg.New(10*vg.Centimeter, 8*vg.Centimeter)
	pl.Draw(draw.New(cv))
	var svg bytes.Buffer
	if _, err := cv.WriteTo(&svg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Thm 4.1 (DP)", "Thm E.4 (metric DP)"} {
		if !strings.Contains(svg.String(), name) {
			t.Errorf("the legend does not name %q", name)
		}
	}
	if slices.Equal(refStyleAt(0).Dashes, refStyleAt(1).Dashes) {
		t.Errorf("two references dashed alike (%v): the legend cannot tell them apart", refStyleAt(0).Dashes)
	}
}

// A log axis from 0.1 to 4.9 is labelled below 1 as well (gonum's log
// ticks left out the decade below 1), and no tick lies outside the range.
func TestLogTicksLabelEveryDecadeInRange(t *testing.T) {
	for _, r := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.1, 4.9, []string{"0.1", "0.2", "0.5", "1", "2"}},
		{1e-6, 1, []string{"1e-06", "1e-05", "0.0001", "0.001", "0.01", "0.1", "1"}},
		{2, 8, []string{"2", "5"}},
	} {
		var got []string
		for _, tk := range logTicks.Ticks(r.lo, r.hi) {
			if tk.Value < r.lo*(1-1e-9) || tk.Value > r.hi*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g outside the range", r.lo, r.hi, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, r.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", r.lo, r.hi, got, r.want)
		}
	}
}
