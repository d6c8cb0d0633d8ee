package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/report"
	"github.com/dpaudit/dpaudit/spec"
)

// figureVersion changes when the drawing code changes what a figure
// looks like, so cached figures are redrawn.
const figureVersion = 2

// FigureInfo is the figure node's figure.json: which files it drew and
// what it left out.
type FigureInfo struct {
	Name  string   `json:"name"`
	Title string   `json:"title,omitempty"`
	Files []string `json:"files"`
	Notes []string `json:"notes,omitempty"`
}

// FigureInfoFile is written by every figure node beside its files.
const FigureInfoFile = "figure.json"

// figureParams identify a figure: its spec, and which point each trials
// input belongs to. The input tables' content enters through the input
// node keys, so a changed label redraws only the figure.
type figureParams struct {
	Figure spec.Figure `json:"figure"`
	Points []string    `json:"points,omitempty"` // point id of inputs[1:]
}

// figureNodes adds one node per figure of the report block: the summary
// node is always its first input, followed by every trial shard when the
// figure reads the trials table.
func figureNodes(name string, points []spec.Point, summary *pipeline.Node, trials map[string][]*pipeline.Node, g *pipeline.Graph) []*pipeline.Node {
	r := points[0].Exp.Report
	if r == nil {
		return nil
	}
	var out []*pipeline.Node
	for _, fig := range r.Figures {
		c := fig.Common()
		if c == nil {
			continue
		}
		p := figureParams{Figure: fig}
		inputs := []*pipeline.Node{summary}
		if c.Table == "trials" {
			for _, pt := range points {
				for _, n := range trials[pt.ID] {
					inputs = append(inputs, n)
					p.Points = append(p.Points, pt.ID)
				}
			}
		}
		out = append(out, g.Add(&pipeline.Node{
			Kind: "figure", Version: figureVersion, Params: p, Inputs: inputs,
			Label: fmt.Sprintf("%s (%s)", c.Name, fig.Kind),
			Slot:  name + "/figure/" + c.Name,
			Run: func(ctx context.Context, w *pipeline.Work) error {
				info, err := runFigure(p, w.Inputs, w.Dir)
				if err != nil {
					return err
				}
				for _, n := range info.Notes {
					w.Warnf("figure %s: %s", info.Name, n)
				}
				return nil
			},
		}))
	}
	return out
}

func runFigure(p figureParams, inputs []string, dir string) (*FigureInfo, error) {
	sum, err := pipeline.ReadParquet(filepath.Join(inputs[0], SummaryFile))
	if err != nil {
		return nil, err
	}
	var parts []report.TrialPart
	for k, in := range inputs[1:] {
		parts = append(parts, report.TrialPart{PointID: p.Points[k], Path: filepath.Join(in, TrialsFile)})
	}
	info, files, err := DrawFigure(&p.Figure, sum, parts)
	if err != nil {
		return nil, err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o666); err != nil {
			return nil, err
		}
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	return info, os.WriteFile(filepath.Join(dir, FigureInfoFile), append(b, '\n'), 0o666)
}

// DrawFigure draws one figure from tables: the files by name
// (<figure>.<format>) and its figure.json.
func DrawFigure(f *spec.Figure, summary *pipeline.Table, trials []report.TrialPart) (*FigureInfo, map[string][]byte, error) {
	c := f.Common()
	fr, err := report.Load(f, summary, trials)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %s: %w", c.Name, err)
	}
	res, err := report.Draw(f, fr)
	if err != nil {
		return nil, nil, err
	}
	info := &FigureInfo{Name: c.Name, Title: c.Title, Notes: res.Notes}
	files := map[string][]byte{}
	for _, format := range c.Formats {
		name := c.Name + "." + format
		files[name] = res.Files[format]
		info.Files = append(info.Files, name)
	}
	return info, files, nil
}

// reportColumns are the columns the compiled spec writes: the summary's
// (in order) and the trials tables' (union over the audited points).
func reportColumns(points []spec.Point, cols []spec.Column, stageCols []string) report.Available {
	var a report.Available
	seen := map[string]bool{}
	add := func(list *[]string, names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				*list = append(*list, n)
			}
		}
	}
	add(&a.Summary, reservedColumns...)
	for _, c := range cols {
		add(&a.Summary, c.Name)
	}
	add(&a.Summary, stageCols...)
	seen = map[string]bool{}
	for _, pt := range points {
		add(&a.Trials, TrialColumns(pt)...)
	}
	return a
}

// TrialColumns are the columns of a point's trials tables, in the order
// the trial shards write them (empty when the point has no audit).
func TrialColumns(pt spec.Point) []string {
	exp := pt.Exp
	if exp.Audit == nil {
		return nil
	}
	if exp.Model != nil && exp.Model.Ideal != nil {
		return []string{"trial", "world", "projection", "watermark", "llr"}
	}
	out := []string{"trial", "world"}
	if exp.Distinguisher != nil {
		if d, err := distinguisherFor(exp.Distinguisher); err == nil {
			out = append(out, d.ScoreNames()...)
		}
	}
	return append(out, "canary_steps", "target_steps", "empty_batches", "mean_batch_size")
}
