package spec

// Report lists figures drawn from the results. Figures read the tables
// only (package report): they never recompute a result, so changing a
// figure redraws it without touching the cached work.
type Report struct {
	Figures []Figure `yaml:"figures" doc:"Figures drawn into results/<name>/figures/<figure name>.{png,svg} and shown in report.html."`
}

// Figure is one plot, selected by kind. The columns it names are checked
// against the columns the spec produces before anything runs.
type Figure struct {
	Kind      string          `yaml:"kind" discriminator:"true" doc:"Figure kind."`
	Line      *FigureXY       `kind:"line" doc:"Lines through the points of each y column (per color value), sorted by x; y_lo/y_hi add error bars."`
	Scatter   *FigureXY       `kind:"scatter" doc:"Points; y_lo/y_hi add error bars. Over a trials table, more than 5,000 points per series are thinned to an evenly spaced subsample."`
	Band      *FigureXY       `kind:"band" doc:"An interval: the area between y_lo and y_hi (required) with the line of y."`
	Bar       *FigureBar      `kind:"bar" doc:"Bars per x value (categories in table order), grouped by y column or color; y_lo/y_hi add error bars."`
	Histogram *FigureHist     `kind:"histogram" doc:"Histogram of the x column (binned, so any number of rows), one outline per color value."`
	Heatmap   *FigureHeatmap  `kind:"heatmap" doc:"z over a grid of x and y values (one cell per distinct (x, y))."`
	Tradeoff  *FigureTradeoff `json:",omitempty" kind:"tradeoff" doc:"The claimed accountant's trade-off curve (ROC: TPR against FPR on log axes, or β against α) with the membership audit's empirical operating points from its trials, each in a joint Clopper–Pearson box; a box entirely beyond the curve is drawn as a violation. One panel per audited point."`
}

// FigureCommon holds the keys every figure kind has.
type FigureCommon struct {
	Name      string      `yaml:"name" required:"true" check:"name" doc:"File name of the figure (without extension); unique in the spec."`
	Title     string      `yaml:"title" doc:"Title above the plot."`
	Table     string      `yaml:"table" default:"summary" enum:"summary|trials" doc:"The table plotted: summary (one row per point; trials columns are not there) or trials (one row per trial of every audited point, with the point's summary columns joined)."`
	Where     string      `yaml:"where" doc:"Keep only the rows where this expression (expr-lang, over the table's columns) is true, e.g. \"prior_size == 10\"."`
	X         string      `yaml:"x" required:"true" doc:"Column on the x axis."`
	XLabel    string      `yaml:"x_label" doc:"x axis label with units (default: the column name)."`
	YLabel    string      `yaml:"y_label" doc:"y axis label with units (default: the y column names)."`
	XScale    string      `yaml:"x_scale" default:"linear" enum:"linear|log" doc:"x axis scale; log drops non-positive values and says how many."`
	YScale    string      `yaml:"y_scale" default:"linear" enum:"linear|log" doc:"y axis scale; log drops non-positive values and says how many."`
	XRange    []float64   `yaml:"x_range" doc:"[low, high] of the x axis (default: from the data)."`
	YRange    []float64   `yaml:"y_range" doc:"[low, high] of the y axis (default: from the data)."`
	Facet     string      `yaml:"facet" doc:"Column whose values make separate panels (small multiples) with shared axes."`
	MaxPanels int         `yaml:"max_panels" default:"36" check:">=1" doc:"Largest number of facet panels accepted."`
	Reference []Reference `yaml:"reference" doc:"Reference lines drawn over the data (dashed)."`
	Legend    string      `yaml:"legend" default:"outside" enum:"outside|top_right|top_left|bottom_right|bottom_left|none" doc:"Where the legend sits: outside = right of the plot area, never over the data (one legend for all facets); or inside the plot at a corner (the first panel's, with facets)."`
	Formats   []string    `yaml:"formats" default:"[png, svg]" enum:"png|svg|pdf" check:"nonempty" doc:"Files written; report.html inlines the SVG."`
	Width     float64     `yaml:"width" default:"16" check:">=4,<=100" doc:"Width of the figure in cm (with facets, of one panel row of up to two panels)."`
	Height    float64     `yaml:"height" default:"10" check:">=3,<=100" doc:"Height in cm (with facets, of one panel row)."`
}

// FigureXY is a line, scatter or band plot of one or more y columns.
type FigureXY struct {
	FigureCommon `yaml:",inline"`
	Y            []string `yaml:"y" required:"true" check:"nonempty" doc:"Columns on the y axis, one series each."`
	YLo          []string `yaml:"y_lo" doc:"Lower ends of the intervals, one per y column (error bars; the band's lower edge); \"\" for a column without one."`
	YHi          []string `yaml:"y_hi" doc:"Upper ends of the intervals, one per y column."`
	Labels       []string `yaml:"labels" doc:"Legend labels, one per y column (\"\" or left out: the column's name in words, e.g. epsilon_lb → ε lower bound)."`
	Color        string   `yaml:"color" doc:"Column whose values make separate series (colour and legend)."`
	Markers      bool     `yaml:"markers" default:"true" doc:"Mark the points of lines and bands."`
}

// FigureBar is a bar chart.
type FigureBar struct {
	FigureCommon `yaml:",inline"`
	Y            []string `yaml:"y" required:"true" check:"nonempty" doc:"Bar heights, one bar per column and x value."`
	YLo          []string `yaml:"y_lo" doc:"Lower ends of error bars, one per y column (\"\" for none)."`
	YHi          []string `yaml:"y_hi" doc:"Upper ends of error bars, one per y column."`
	Labels       []string `yaml:"labels" doc:"Legend labels, one per y column (\"\" or left out: the column's name in words)."`
	Color        string   `yaml:"color" doc:"Column whose values make grouped bars (one y column only)."`
}

// FigureHist is a histogram.
type FigureHist struct {
	FigureCommon `yaml:",inline"`
	Bins         int    `yaml:"bins" default:"50" check:">=1,<=10000" doc:"Number of equal-width bins (on the log scale with x_scale: log)."`
	Color        string `yaml:"color" doc:"Column whose values make separate histograms over the same bins (e.g. world)."`
	Density      bool   `yaml:"density" default:"false" doc:"Normalise each histogram to unit area."`
}

// FigureHeatmap is z over an (x, y) grid.
type FigureHeatmap struct {
	FigureCommon `yaml:",inline"`
	Y            string `yaml:"y" required:"true" doc:"Column on the y axis."`
	Z            string `yaml:"z" required:"true" doc:"Column giving each cell's colour."`
	ZScale       string `yaml:"z_scale" default:"linear" enum:"linear|log" doc:"Colour scale of z."`
}

// Reference is a dashed reference line.
type Reference struct {
	Kind   string  `yaml:"kind" required:"true" enum:"identity|hline|vline|column" doc:"identity: y = x; hline: y = value; vline: x = value; column: the line of another column over x (e.g. a bound)."`
	Value  float64 `yaml:"value" doc:"The constant of hline and vline."`
	Column string  `yaml:"column" doc:"The column drawn by kind column."`
	Label  string  `yaml:"label" doc:"Legend entry (default: a description of the line)."`
}

// Common returns the keys every kind has, whichever branch is set.
func (f *Figure) Common() *FigureCommon {
	switch {
	case f.Line != nil:
		return &f.Line.FigureCommon
	case f.Scatter != nil:
		return &f.Scatter.FigureCommon
	case f.Band != nil:
		return &f.Band.FigureCommon
	case f.Bar != nil:
		return &f.Bar.FigureCommon
	case f.Histogram != nil:
		return &f.Histogram.FigureCommon
	case f.Heatmap != nil:
		return &f.Heatmap.FigureCommon
	case f.Tradeoff != nil:
		return f.Tradeoff.common()
	}
	return nil
}
