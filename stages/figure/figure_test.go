package figure

import (
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

// shardsGame publishes two shards per point, for the figures to read.
var shardsGame = &stages.Game{
	Name:      "shards",
	AppliesTo: func(*spec.Experiment) bool { return true },
	Compile:   compileShards,
	Kinds:     []string{"shard"},
}

func compileShards(b *stages.Build) error {
	var shards []*pipeline.Node
	for k := range 2 {
		shards = append(shards, b.Add(&pipeline.Node{Kind: "shard", Params: []any{b.Point.ID, k}}))
	}
	b.Publish(b.Point.ID, shards)
	return nil
}

const figSpec = `name: f
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
report:
  figures:
    - {kind: line, name: s, x: point_index, y: [point_index]}
    - {kind: histogram, name: t, table: trials, x: trial}
sweep: {grid: {dpsgd.steps: [10, 20]}}
`

// A figure reads the summary, and for table: trials every published
// shard, point by point; it keys on its own package's code.
func TestAdd(t *testing.T) {
	points := stagestest.Points(t, figSpec)
	c, err := stages.Compile([]*stages.Game{shardsGame}, "f", points, nil, stages.Env{})
	if err != nil {
		t.Fatal(err)
	}
	Add(c, "f", points, stages.Env{Code: func(pkg string) string { return pkg + "@1" }})
	if len(c.Figures) != 2 {
		t.Fatalf("%d figures", len(c.Figures))
	}
	s, tr := c.Figures[0], c.Figures[1]
	if len(s.Inputs) != 1 || s.Inputs[0] != c.Summary || s.Code != "stages/figure@1" {
		t.Errorf("summary figure: %d inputs, code %q", len(s.Inputs), s.Code)
	}
	if len(tr.Inputs) != 5 || tr.Inputs[0] != c.Summary || tr.Inputs[1] != c.Trials[points[0].ID][0] || tr.Inputs[4] != c.Trials[points[1].ID][1] {
		t.Errorf("trials figure inputs %d, want the summary then 4 shards point by point", len(tr.Inputs))
	}
}
