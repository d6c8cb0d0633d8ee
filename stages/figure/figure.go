// Package figure makes the figure nodes of a spec's report block: each
// draws one figure (package report) from the summary and, for a figure of
// the trials table, every published trial shard. It sits beside the games,
// so that a change to the drawing code keys only the figure nodes.
package figure

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/report"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Kind is the figure nodes' kind.
const Kind = "figure"

// figureVersion changes when the drawing code changes what a figure
// looks like, so cached figures are redrawn.
const figureVersion = 2

// Info is the figure node's figure.json: which files it drew and
// what it left out.
type Info struct {
	Name  string   `json:"name"`
	Title string   `json:"title,omitempty"`
	Files []string `json:"files"`
	Notes []string `json:"notes,omitempty"`
}

// InfoFile is written by every figure node beside its files.
const InfoFile = "figure.json"

// figureParams identify a figure: its spec, and which point each trials
// input belongs to. The input tables' content enters through the input
// node keys, so a changed label redraws only the figure.
type figureParams struct {
	Figure spec.Figure `json:"figure"`
	Points []string    `json:"points,omitempty"` // point id of inputs[1:]
}

// Add adds one node per figure of the report block to c's graph and
// lists them in c.Figures: the summary node is always a figure's first
// input, followed by every trial shard when the figure reads the trials
// table.
func Add(c *stages.Compiled, name string, points []spec.Point, env stages.Env) {
	r := points[0].Exp.Report
	if r == nil {
		return
	}
	code := ""
	if env.Code != nil {
		code = env.Code(stages.PackageOf(Add))
	}
	for _, fig := range r.Figures {
		fc := fig.Common()
		if fc == nil {
			continue
		}
		p := figureParams{Figure: fig}
		inputs := []*pipeline.Node{c.Summary}
		if fc.Table == "trials" {
			for _, pt := range points {
				for _, n := range c.Trials[pt.ID] {
					inputs = append(inputs, n)
					p.Points = append(p.Points, pt.ID)
				}
			}
		}
		c.Figures = append(c.Figures, c.Graph.Add(&pipeline.Node{
			Kind: Kind, Version: figureVersion, Params: p, Inputs: inputs, Code: code,
			Label: fmt.Sprintf("%s (%s)", fc.Name, fig.Kind),
			Slot:  name + "/figure/" + fc.Name,
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
}

func runFigure(p figureParams, inputs []string, dir string) (*Info, error) {
	sum, err := pipeline.ReadParquet(filepath.Join(inputs[0], stages.SummaryFile))
	if err != nil {
		return nil, err
	}
	var parts []report.TrialPart
	for k, in := range inputs[1:] {
		parts = append(parts, report.TrialPart{PointID: p.Points[k], Path: filepath.Join(in, stages.TrialsFile)})
	}
	info, files, err := Draw(&p.Figure, sum, parts)
	if err != nil {
		return nil, err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o666); err != nil {
			return nil, err
		}
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	return info, os.WriteFile(filepath.Join(dir, InfoFile), append(b, '\n'), 0o666)
}

// Draw draws one figure from tables: the files by name
// (<figure>.<format>) and its figure.json.
func Draw(f *spec.Figure, summary *pipeline.Table, trials []report.TrialPart) (*Info, map[string][]byte, error) {
	if f.Tradeoff != nil {
		return drawTradeoff(f, summary, trials)
	}
	c := f.Common()
	fr, err := report.Load(f, summary, trials)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %s: %w", c.Name, err)
	}
	res, err := report.Draw(f, fr)
	if err != nil {
		return nil, nil, err
	}
	info := &Info{Name: c.Name, Title: c.Title, Notes: res.Notes}
	files := map[string][]byte{}
	for _, format := range c.Formats {
		name := c.Name + "." + format
		files[name] = res.Files[format]
		info.Files = append(info.Files, name)
	}
	return info, files, nil
}
