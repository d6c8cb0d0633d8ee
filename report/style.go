package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxScatterPoints is the most points a scatter draws per series; more
// are thinned to an evenly spaced subsample (every k-th row, in table
// order), which keeps a figure of 10⁶ trials fast and its SVG small.
const MaxScatterPoints = 5000

func init() {
	// Liberation Sans has Arial's metrics, so SVG text laid out with it
	// fits when a browser substitutes Arial or Helvetica.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// palette10 is matplotlib's tab10: distinct, and familiar from papers.
var palette10 = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255},
	{0xbc, 0xbd, 0x22, 255}, {0x17, 0xbe, 0xcf, 255},
}

func seriesColor(i int) color.NRGBA { return palette10[i%len(palette10)] }

func withAlpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}}

var refStyle = draw.LineStyle{Color: color.Gray{60}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
