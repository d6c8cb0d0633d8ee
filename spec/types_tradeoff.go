package spec

// FigureTradeoff draws a membership audit against the curve its claim
// must stay under. It has no columns to name: the curve comes from the
// claim columns of the summary (claim_accountant, claim_noise_multiplier,
// …), the operating points from the trials of the audit's score.
type FigureTradeoff struct {
	Name       string   `yaml:"name" required:"true" check:"name" doc:"File name of the figure (without extension); unique in the spec."`
	Title      string   `yaml:"title" doc:"Title above the plot."`
	Where      string   `yaml:"where" doc:"Keep only the points where this expression (over the summary's columns) is true, e.g. \"threat_model == 'gradient'\"; every point kept must have a membership audit."`
	Label      string   `yaml:"label" doc:"Summary column whose value titles each panel (with the point's ε_lb and claimed ε), e.g. threat_model (default: \"point <index>\")."`
	Curve      string   `yaml:"curve" default:"roc" enum:"roc|tradeoff" doc:"roc: TPR against FPR, both on log axes (where low-FPR attacks show); tradeoff: β = 1 − TPR against α = FPR on linear axes (f-DP's picture)."`
	Thresholds int      `yaml:"thresholds" default:"8" check:">=1,<=40" doc:"Operating points per audited point: thresholds at which the share of trials guessed 'member' is log-spaced from 10/trials (or 0.001) to 0.5. Each box is two-sided Clopper–Pearson at 1 − (1 − c)/(2·thresholds) per rate, c the audit's confidence, so all boxes of a point hold jointly at c."`
	MaxPanels  int      `yaml:"max_panels" default:"36" check:">=1" doc:"Largest number of points (panels) accepted."`
	Legend     string   `yaml:"legend" default:"bottom_right" enum:"top_right|top_left|bottom_right|bottom_left|none" doc:"Where the legend sits inside the first panel."`
	Formats    []string `yaml:"formats" default:"[png, svg]" enum:"png|svg|pdf" check:"nonempty" doc:"Files written; report.html inlines the SVG."`
	Width      float64  `yaml:"width" default:"16" check:">=4,<=100" doc:"Width of the figure in cm (of one panel row of up to two panels)."`
	Height     float64  `yaml:"height" default:"10" check:">=3,<=100" doc:"Height in cm (of one panel row)."`
}

// common is the figure's keys in the form every figure kind shares: it
// reads the trials table (so its node takes every trial shard), with no
// column on x.
func (t *FigureTradeoff) common() *FigureCommon {
	return &FigureCommon{Name: t.Name, Title: t.Title, Table: "trials", Where: t.Where, MaxPanels: t.MaxPanels,
		Legend: t.Legend, Formats: t.Formats, Width: t.Width, Height: t.Height, XScale: "linear", YScale: "linear"}
}
