package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

// testTable is a small sweep: σ × prior size, with a bound and an interval.
func testTable(t testing.TB) *pipeline.Table {
	tb := &pipeline.Table{}
	var sigma, prior, y, lo, hi, bound, name []any
	for _, p := range []int64{10, 100} {
		for _, s := range []float64{0.5, 1, 1.5, 2, 3} {
			sigma = append(sigma, s)
			prior = append(prior, p)
			v := math.Exp(-s) / float64(p) * 10
			y = append(y, v)
			lo = append(lo, v*0.8)
			hi = append(hi, v*1.2)
			bound = append(bound, v*1.5)
			name = append(name, "adv-"+strings.Repeat("x", int(p/10)))
		}
	}
	for _, c := range []struct {
		n   string
		typ pipeline.ColType
		v   []any
	}{{"noise_multiplier", pipeline.Float64, sigma}, {"prior_size", pipeline.Int64, prior}, {"success", pipeline.Float64, y},
		{"success_lo", pipeline.Float64, lo}, {"success_hi", pipeline.Float64, hi}, {"bound", pipeline.Float64, bound}, {"label", pipeline.String, name}} {
		if err := tb.Add(c.n, c.typ, c.v); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

func parseFigure(t testing.TB, yaml string) *spec.Figure {
	t.Helper()
	s, err := spec.Parse("t.yaml", []byte("name: t\nreport:\n  figures:\n"+yaml), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s
	pts, _, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return &pts[0].Exp.Report.Figures[0]
}

func drawTo(t testing.TB, f *spec.Figure, fr *Frame) *Result {
	t.Helper()
	res, err := Draw(f, fr)
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("DPAUDIT_FIGURE_DEBUG"); dir != "" {
		for format, b := range res.Files {
			os.WriteFile(filepath.Join(dir, f.Common().Name+"."+format), b, 0o644)
		}
	}
	return res
}

func TestDrawKinds(t *testing.T) {
	tb := testTable(t)
	fr, err := FromTable(tb, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`    - {kind: line, name: line, x: noise_multiplier, y: [success], color: prior_size, reference: [{kind: column, column: bound}, {kind: hline, value: 0.5}]}`,
		`    - {kind: line, name: facet, title: "Facets", x: noise_multiplier, y: [success, bound], facet: prior_size, y_scale: log}`,
		`    - {kind: band, name: band, x: noise_multiplier, y: [success], y_lo: [success_lo], y_hi: [success_hi], color: prior_size}`,
		`    - {kind: scatter, name: scatter, x: success, y: [bound], reference: [{kind: identity}], x_scale: log, y_scale: log}`,
		`    - {kind: bar, name: bar, x: label, y: [success], y_lo: [success_lo], y_hi: [success_hi], where: "noise_multiplier == 1", reference: [{kind: hline, value: 0.2}]}`,
		// Bars on a log axis rise from the axis minimum (a NaN base that
		// once reached the rasteriser and hung it).
		`    - {kind: bar, name: barlog, x: label, y: [success, bound], y_scale: log, where: "noise_multiplier == 1"}`,
		`    - {kind: histogram, name: hist, x: success, bins: 5, color: prior_size}`,
		`    - {kind: heatmap, name: heat, x: noise_multiplier, y: prior_size, z: success, z_scale: log}`,
	} {
		f := parseFigure(t, src)
		res := drawTo(t, f, fr)
		img, err := png.Decode(bytes.NewReader(res.Files["png"]))
		if err != nil {
			t.Fatalf("%s: %v", f.Common().Name, err)
		}
		if img.Bounds().Dx() < 500 {
			t.Errorf("%s: png is %v", f.Common().Name, img.Bounds())
		}
		if !bytes.Contains(res.Files["svg"], []byte("<svg")) {
			t.Errorf("%s: not an svg", f.Common().Name)
		}
		// A figure is drawn from tables alone: the same tables, the same
		// bytes (a heatmap once drew its cells in map order).
		for range 3 {
			again := drawTo(t, f, fr)
			for format, b := range res.Files {
				if !bytes.Equal(again.Files[format], b) {
					t.Errorf("%s: two drawings of one frame differ (%s)", f.Common().Name, format)
				}
			}
		}
	}
}

// Bad input: too many facet panels is an error; a log axis over
// non-positive values leaves them out and says how many.
func TestDrawBadInput(t *testing.T) {
	fr, err := FromTable(testTable(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := parseFigure(t, `    - {kind: line, name: many, x: prior_size, y: [success], facet: noise_multiplier, max_panels: 3}`)
	if _, err := Draw(f, fr); err == nil || !strings.Contains(err.Error(), "5 values, more than max_panels = 3") {
		t.Errorf("facet over max_panels: %v", err)
	}
	// Shift success so that 4 of the 10 rows are ≤ 0.
	c := fr.Col("success")
	for i := 0; i < 4; i++ {
		c.Num[i] = -c.Num[i]
	}
	f = parseFigure(t, `    - {kind: scatter, name: logdrop, x: noise_multiplier, y: [success], y_scale: log}`)
	res := drawTo(t, f, fr)
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "4 point(s) with y ≤ 0 left out") {
		t.Errorf("notes %q", res.Notes)
	}
	f = parseFigure(t, `    - {kind: line, name: text, x: label, y: [success]}`)
	if _, err := Draw(f, fr); err == nil || !strings.Contains(err.Error(), "column label holds text") {
		t.Errorf("text on a numeric axis: %v", err)
	}
	f = parseFigure(t, `    - {kind: line, name: none, x: noise_multiplier, y: [success], where: "prior_size > 1000"}`)
	if _, err := Draw(f, fr); err == nil || !strings.Contains(err.Error(), "no row is left") {
		t.Errorf("empty where: %v", err)
	}
}

// Check reports every problem of a figure at its path.
func TestCheckProblems(t *testing.T) {
	s, err := spec.Parse("t.yaml", []byte(`name: t
report:
  figures:
    - {kind: band, name: a, x: sigma, y: [success, bound], y_lo: [success_lo], where: "prior > 2"}
    - {kind: histogram, name: a, x: llr}
    - {kind: bar, name: b, x: label, y: [success], x_scale: log, reference: [{kind: identity}]}
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pts, _, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	probs := Check(pts[0].Exp.Report, Available{Summary: []string{"point_index", "noise_multiplier", "prior_size", "success", "success_lo", "bound", "label"}, Trials: []string{"llr"}})
	var got []string
	for _, p := range probs {
		got = append(got, p.Path+": "+p.Msg)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`report.figures[0].x: no column "sigma"`,
		`report.figures[0].y_lo: has 1 column(s), y has 2`,
		`report.figures[0].y_lo: give both y_lo and y_hi`,
		`report.figures[0].kind: a band needs y_lo and y_hi`,
		`report.figures[0].where: no column "prior" in the summary table (columns: point_index,`,
		`report.figures[1].name: figure name "a" is already used`,
		`report.figures[1].x: no column "llr" in the summary table; it is a trials column: set table: trials`,
		`report.figures[2].x_scale: the x axis of a bar chart holds categories`,
		`report.figures[2].reference[0].kind: a bar chart takes only hline references`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
}
