package recon

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/rero"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

const reconSpec = `name: r
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 3, sampling_rate: 1, steps: 100}
reconstruction: {attack: prior_aware, prior_size: 10, trials: 5000, shard_size: 2000}
`

// The ideal game is trial shards, the implicit exact ReRo bound of the
// claimed σ (its columns join the row) and an estimate over both; the
// shards are published as the point's trials.
func TestCompileIdeal(t *testing.T) {
	c := stagestest.Compile(t, reconSpec, Game)
	if k := stagestest.Kinds(c); k["trials"] != 3 || k["rero"] != 1 || k["estimate"] != 1 {
		t.Fatalf("kinds %v, want 3 shards, 1 rero, 1 estimate", k)
	}
	est := stagestest.Nodes(c, "estimate")[0]
	if n := len(est.Inputs); n != 4 || est.Inputs[3].Kind != "rero" {
		t.Errorf("estimate inputs: %d, want the 3 shards then the bound", n)
	}
	if r := stagestest.Nodes(c, "rero")[0]; !strings.HasSuffix(r.Slot, "/rero/0/reconstruction") {
		t.Errorf("implicit bound's slot %q", r.Slot)
	}
	cols := strings.Join(c.Columns.Summary, ",")
	for _, want := range append(slices.Clone(rero.Columns), "reconstruction_success_lo", "rero_violation") {
		if !strings.Contains(cols, want) {
			t.Errorf("no column %s", want)
		}
	}
	for id := range c.Trials {
		if strings.Contains(id, "/") {
			t.Errorf("trials published under %q without a membership audit", id)
		}
	}
}

// With a membership audit in the same point, the reconstruction rows are
// published one level down; a spec's own rero entry is the bound (no
// implicit one, no repeated columns), and must be for the prior's κ.
func TestCompileWithAuditAndReroEntry(t *testing.T) {
	body := reconSpec + "audit: {threat_model: gradient, trials: 100}\nbound: [{kind: rero, prior_size: 10}]\n"
	c := stagestest.Compile(t, body, Game)
	for id := range c.Trials {
		if !strings.HasSuffix(id, "/reconstruction") {
			t.Errorf("trials published under %q, want <id>/reconstruction", id)
		}
	}
	if r := stagestest.Nodes(c, "rero")[0]; r.Slot != "r/rero/0/0" || strings.Contains(strings.Join(c.Columns.Summary, ","), "rero_gamma") {
		t.Errorf("bound %q, columns %v: want the spec's entry, its columns not repeated", r.Slot, c.Columns.Summary)
	}
	_, err := stagestest.CompileErr(t, strings.Replace(body, "kind: rero, prior_size: 10", "kind: rero, prior_size: 5", 1), Game)
	var pe *stages.PathError
	if !errors.As(err, &pe) || pe.Path != "bound[0].prior_size" {
		t.Errorf("a bound for another prior: %v, want a PathError at bound[0].prior_size", err)
	}
}

// The violation reader reads rero_violation rows only.
func TestViolations(t *testing.T) {
	sum := stagestest.Summary(t, map[string][]any{
		"rero_violation": {true, false}, "reconstruction_success_lo": {0.4, 0.1}, "rero_gamma_hi": {0.3, 0.3},
		"reconstruction_success": {0.42, 0.12}, "reconstruction_confidence": {0.95, 0.95}, "recon_prior_size": {int64(10), int64(10)},
	})
	vs, err := Game.Violations(sum)
	if err != nil || len(vs) != 1 || vs[0].PointIndex != 0 || vs[0].Column != "rero_violation" || !strings.Contains(vs[0].Message, "> rero bound 0.3 (|π| = 10)") {
		t.Fatalf("violations %+v, %v", vs, err)
	}
}
