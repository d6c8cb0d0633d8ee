package train

import (
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages/stagestest"
)

const trainSpec = `name: t
seed: 3
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 20, clip_norm: 1, clip: soft, learning_rate: 0.1}
train:
  runs: 3
sweep: {grid: {dpsgd.delta: [1.0e-5, 1.0e-6]}}
`

// A point trains train.runs runs and aggregates them into its row; the
// runs depend on the training configuration only, so two points that
// differ in δ (which only the accountant reads) share them.
func TestCompileSharesRunsAcrossDelta(t *testing.T) {
	c := stagestest.Compile(t, trainSpec, Game)
	if k := stagestest.Kinds(c); k["train_run"] != 3 || k["train"] != 2 || k["summary"] != 1 {
		t.Fatalf("kinds %v, want 3 shared train_run, 2 train", k)
	}
	for _, agg := range stagestest.Nodes(c, "train") {
		if len(agg.Inputs) != 3 {
			t.Errorf("%s has %d inputs, want the 3 runs", agg.Label, len(agg.Inputs))
		}
	}
	if !slices.Contains(c.Columns.Summary, "test_accuracy_lo") || slices.Contains(c.Columns.Summary, "fil_dfil_max") || len(c.Trials) != 0 {
		t.Errorf("columns %v, trials %v", c.Columns.Summary, c.Trials)
	}
}

// train.fil adds the FIL columns and changes the runs (they accumulate
// the dFIL).
func TestCompileFIL(t *testing.T) {
	plain := stagestest.Nodes(stagestest.Compile(t, trainSpec, Game), "train_run")[0].Key()
	c := stagestest.Compile(t, strings.Replace(trainSpec, "  runs: 3\n", "  runs: 3\n  fil: {coordinates: 4}\n", 1), Game)
	if !slices.Contains(c.Columns.Summary, "fil_dfil_max") {
		t.Errorf("no FIL columns: %v", c.Columns.Summary)
	}
	if stagestest.Nodes(c, "train_run")[0].Key() == plain {
		t.Error("a run with FIL accounting has the key of one without")
	}
}
