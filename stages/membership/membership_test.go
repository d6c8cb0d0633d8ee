package membership

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

var games = []*stages.Game{Classic, LastIterate, OneRun, PerStep, Sequential}

const idealSpec = `name: m
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 4}
audit: {threat_model: gradient, trials: 1000, shard_size: 400%s}
`

const perStepSpec = `name: ps
seed: 1
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, clip_norm: 1, learning_rate: 0.1}
audit: {threat_model: gradient, estimator: per_step, trials: 20, runs: 2}
`

// Exactly one membership game applies to an audit block; it compiles the
// shards (and looks), one estimate over them, and publishes the shards as
// the point's trials.
func TestOneGamePerAudit(t *testing.T) {
	ideal := func(extra string) string { return strings.Replace(idealSpec, "%s", extra, 1) }
	for _, c := range []struct {
		body, game string
		kinds      map[string]int
	}{
		{ideal(""), variantClassic, map[string]int{"trials": 3, "estimate": 1}},
		{ideal(", repeats: 2"), variantClassic, map[string]int{"trials": 6, "estimate": 1}},
		{ideal(", estimator: one_run"), variantOneRun, map[string]int{"trials": 3, "estimate": 1}},
		{perStepSpec, variantPerStep, map[string]int{"perstep_train": 2, "estimate": 1}},
		{ideal(", stop: sequential, sequential: {first_look: 100}"), variantSequential, map[string]int{"trials": 5, "look": 5, "estimate": 1}},
	} {
		exp := stagestest.Points(t, c.body)[0].Exp
		var applies []string
		for _, g := range games {
			if g.AppliesTo(exp) {
				applies = append(applies, g.Name)
			}
		}
		if len(applies) != 1 || applies[0] != c.game {
			t.Errorf("%s: games %v apply, want %s", c.game, applies, c.game)
		}
		comp := stagestest.Compile(t, c.body, games...)
		k := stagestest.Kinds(comp)
		delete(k, "summary")
		if !maps.Equal(k, c.kinds) {
			t.Errorf("%s: kinds %v, want %v", c.game, k, c.kinds)
		}
		for _, shards := range comp.Trials {
			if len(shards) != k["trials"]+k["perstep_train"] {
				t.Errorf("%s: %d shards published, want %d", c.game, len(shards), k["trials"]+k["perstep_train"])
			}
		}
	}
}

// Repeat 0 keeps the trials of an audit without repeats, so adding
// repeats reuses them.
func TestRepeatZeroKeepsItsKeys(t *testing.T) {
	keys := func(extra string) map[string]bool {
		out := map[string]bool{}
		for _, n := range stagestest.Nodes(stagestest.Compile(t, strings.Replace(idealSpec, "%s", extra, 1), games...), "trials") {
			out[n.Key()] = true
		}
		return out
	}
	one, three := keys(""), keys(", repeats: 3")
	for k := range one {
		if !three[k] {
			t.Fatal("a shard of the audit without repeats is not among the repeated audit's")
		}
	}
	if len(three) != 3*len(one) {
		t.Errorf("%d shards with 3 repeats, want %d", len(three), 3*len(one))
	}
}

// A worst-case θ_0 needs a trained model: on the ideal mechanism it is a
// PathError at audit.worst_case_init.
func TestWorstCaseInitNeedsAModel(t *testing.T) {
	body := strings.Replace(idealSpec, "%s", ", worst_case_init: {held_out: 10}", 1)
	_, err := stagestest.CompileErr(t, body, games...)
	var pe *stages.PathError
	if !errors.As(err, &pe) || pe.Path != "audit.worst_case_init" {
		t.Errorf("%v, want a PathError at audit.worst_case_init", err)
	}
}

// Each game reads the violation rows it wrote (by the row's estimate
// family), with the claim and what was trained.
func TestViolationsByGame(t *testing.T) {
	sum := stagestest.Summary(t, map[string][]any{
		"violation":             {true, true, false},
		"estimate_family":       {"eps_delta_cp", "one_run", "eps_delta_cp"},
		"epsilon_lb":            {3.0, 2.0, 0.1},
		"epsilon_accountant":    {1.0, 1.0, 1.0},
		"epsilon_lb_confidence": {0.95, 0.95, 0.95},
		"threshold_method":      {"split", "one_run", "split"},
		"claim_config":          {"σ=6", "σ=6", "σ=6"},
		"trained_config":        {"σ=0.6", "σ=0.6", "σ=6"},
		"violation_familywise":  {"holm over 3 point(s)", "holm over 3 point(s)", "holm over 3 point(s)"},
	})
	for _, c := range []struct {
		g     *stages.Game
		point int64
	}{{Classic, 0}, {OneRun, 1}} {
		vs, err := c.g.Violations(sum)
		if err != nil || len(vs) != 1 || vs[0].PointIndex != c.point || vs[0].Claimed != "σ=6" || vs[0].Trained != "σ=0.6" ||
			!strings.Contains(vs[0].Message, "empirical ε lower bound") || len(vs[0].Notes) != 1 {
			t.Errorf("%s: %+v, %v", c.g.Name, vs, err)
		}
	}
	if vs, _ := PerStep.Violations(sum); len(vs) != 0 {
		t.Errorf("per-step reads other games' rows: %+v", vs)
	}
}
