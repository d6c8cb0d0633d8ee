package identify

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

const identSpec = `name: id
seed: 4
dataset: {source: digits, classes: [0, 1], train_size: 20, test_size: 30}
model: {arch: logreg}
dpsgd: {noise_multiplier: 2, sampling_rate: 1, steps: 5, delta: 0.05, clip_norm: 1, learning_rate: 0.05}
identifiability: {adjacency: bounded, repetitions: 24, shard_size: 10}
sweep: {grid: {dpsgd.noise_multiplier: [2, 4]}}
`

// A point is one craft node (the choice of D′, which the noise does not
// change, so the two points share it), shards of repetitions (published
// as the point's trials) and an estimate over the craft and the shards.
func TestCompile(t *testing.T) {
	c := stagestest.Compile(t, identSpec, Game)
	if k := stagestest.Kinds(c); k["identify_craft"] != 1 || k["identify_trials"] != 6 || k["identify_estimate"] != 2 {
		t.Fatalf("kinds %v, want 1 shared craft, 3 shards per point, 2 estimates", k)
	}
	for _, est := range stagestest.Nodes(c, "identify_estimate") {
		if len(est.Inputs) != 4 || est.Inputs[0].Kind != "identify_craft" {
			t.Errorf("%s: inputs %d, want the craft then 3 shards", est.Label, len(est.Inputs))
		}
	}
	if len(c.Trials) != 2 {
		t.Errorf("%d points publish trials, want 2", len(c.Trials))
	}
	for _, want := range []string{"identify_delta_prime_lo", "identify_violation"} {
		if !strings.Contains(strings.Join(c.Columns.Summary, ","), want) {
			t.Errorf("no column %s", want)
		}
	}
}

// Bad input is a PathError at the key to fix.
func TestCompileBadInput(t *testing.T) {
	for _, c := range []struct{ from, to, path string }{
		{"adjacency: bounded,", "adjacency: bounded, distance: ssim,", "identifiability.distance"},
		{"train_size: 20", "train_size: 1", "identifiability.adjacency"},
	} {
		_, err := stagestest.CompileErr(t, strings.Replace(identSpec, c.from, c.to, 1), Game)
		var pe *stages.PathError
		if !errors.As(err, &pe) || pe.Path != c.path {
			t.Errorf("%s → %s: %v, want a PathError at %s", c.from, c.to, err, c.path)
		}
	}
}

// The violation reader reads identify_violation rows only.
func TestViolations(t *testing.T) {
	sum := stagestest.Summary(t, map[string][]any{
		"identify_violation": {false, true}, "identify_delta_prime_lo": {0.001, 0.3}, "identify_delta": {0.01, 0.01},
		"identify_rho_beta": {0.9, 0.9}, "identify_exceed": {int64(0), int64(70)}, "identify_repetitions": {int64(200), int64(200)},
		"identify_delta_prime": {0.0, 0.35},
	})
	vs, err := Game.Violations(sum)
	if err != nil || len(vs) != 1 || vs[0].PointIndex != 1 || vs[0].Value != 0.3 || vs[0].Limit != 0.01 ||
		!strings.Contains(vs[0].Message, "exceeded ρ_β = 0.9 in 70 of 200 repetitions") || vs[0].Alarm.Evidence != "Repetitions" {
		t.Fatalf("violations %+v, %v", vs, err)
	}
}
