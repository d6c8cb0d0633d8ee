package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// wrapLabel breaks s at spaces so that no line is wider than width in
// style sty (a single word wider than width keeps its own line).
func wrapLabel(s string, sty text.Style, width vg.Length) string {
	if width <= 0 || sty.Handler == nil || sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case sty.Width(line+" "+w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// render draws the panels on one canvas of the format.
func (d *drawing) render(format string, plots []*plot.Plot, titles []string, cols, rows int, w, h vg.Length) ([]byte, error) {
	var cv vg.CanvasWriterTo
	switch format {
	case "png":
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144))}
	case "svg":
		cv = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
	case "pdf":
		cv = vgpdf.New(w, h)
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	dc := draw.New(cv)
	if format == "png" {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
	}
	if d.heatCbar != nil {
		// The colour bar takes the right 15% of the canvas.
		right := dc
		right.Min.X = dc.Max.X - (dc.Max.X-dc.Min.X)*0.15
		dc.Max.X = right.Min.X
		d.drawPlot(d.heatCbar, right)
	}
	dc = drawTitle(dc, d.c.Title, 13)
	dc = d.drawOutsideLegend(dc)
	if len(plots) == 1 {
		d.drawPlot(plots[0], dc)
	} else {
		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, cols)
			for k := 0; k < cols; k++ {
				if i := r*cols + k; i < len(plots) {
					grid[r][k] = plots[i]
				}
			}
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 2,
			PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter * 2}
		for r := range grid {
			for k, p := range grid[r] {
				if p != nil {
					d.drawPlot(p, drawTitle(tiles.At(dc, k, r), titles[r*cols+k], 11))
				}
			}
		}
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if format == "svg" {
		b = fixSVGFonts(b)
	}
	return b, nil
}

// drawOutsideLegend draws the outside legend in a strip at the right of
// c and returns the rest of c for the panels.
func (d *drawing) drawOutsideLegend(c draw.Canvas) draw.Canvas {
	l := d.outside
	if l == nil {
		return c
	}
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, -vg.Millimeter*4
	r := l.Rectangle(c)
	if r.Max.Y-r.Min.Y <= 0 { // no entries
		return c
	}
	w := r.Max.X - r.Min.X + vg.Millimeter*2
	strip := c
	strip.Min.X = c.Max.X - w
	l.Draw(strip)
	c.Max.X = strip.Min.X
	return c
}

// drawTitle writes a centred title at the top of c and returns the rest.
func drawTitle(c draw.Canvas, title string, size float64) draw.Canvas {
	if title == "" {
		c.Max.Y -= vg.Points(4)
		return c
	}
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(size)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(3)}, title)
	c.Max.Y -= vg.Points(size*1.3 + 6)
	return c
}

// fixSVGFonts adds fallbacks to the font family of an SVG drawn without
// embedded fonts, so browsers without Liberation pick a metric twin.
// Each text also gets the width it has in Liberation Sans (textLength), so
// a browser with a wider fallback font squeezes it instead of letting it
// run over the plot.
func fixSVGFonts(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:Liberation Sans,Arial,Helvetica,sans-serif;"))
	return svgText.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := svgText.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil || len(sub[3]) == 0 {
			return m
		}
		face := font.DefaultCache.Lookup(plot.DefaultFont, vg.Points(size))
		w := face.Width(html.UnescapeString(string(sub[3]))).Points()
		return []byte(fmt.Sprintf(`<text%s textLength="%.2f" lengthAdjust="spacingAndGlyphs">%s</text>`, sub[1], w, sub[3]))
	})
}

// svgText matches vgsvg's text elements: attributes (with the font size)
// and content.
var svgText = regexp.MustCompile(`(?s)<text((?:[^>]*?)font-size:([0-9.]+)px[^>]*)>([^<]*)</text>`)
