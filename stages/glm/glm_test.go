package glm

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

const glmSpec = `name: g
seed: 1
dataset: {source: digits, classes: [0, 1]}
model: {arch: output_perturbation, bias: true, lambda: 1.0e-2, noise: gaussian, sigma: 1.0e-3}
reconstruction: {attack: glm, releases: 5, targets: subset, target_count: 10}
sweep: {grid: {model.sigma: [1.0e-3, 1.0e-2]}}
`

// Output perturbation is a glm_fit node (θ* and the dFIL), shared by the
// points of a sweep over the noise, and one glm_recon node per point,
// which writes the row and the per-target table.
func TestCompileSharesTheFit(t *testing.T) {
	c := stagestest.Compile(t, glmSpec, Game)
	if k := stagestest.Kinds(c); k["glm_fit"] != 1 || k["glm_recon"] != 2 {
		t.Fatalf("kinds %v, want one shared glm_fit and 2 glm_recon", k)
	}
	for _, n := range stagestest.Nodes(c, "glm_recon") {
		if len(n.Inputs) != 1 || n.Inputs[0].Kind != "glm_fit" {
			t.Errorf("%s: inputs %v", n.Label, n.Inputs)
		}
	}
	if len(c.Trials) != 2 || !strings.Contains(strings.Join(c.Columns.Summary, ","), "glm_mse_bound_violation") {
		t.Errorf("trials %v, columns %v", c.Trials, c.Columns.Summary)
	}
}

// PNSGD releases need no fit; a step size its analysis does not cover is
// a PathError at model.learning_rate.
func TestCompilePNSGD(t *testing.T) {
	pn := strings.Replace(glmSpec, "{arch: output_perturbation, bias: true, lambda: 1.0e-2, noise: gaussian, sigma: 1.0e-3}",
		"{arch: pnsgd, bias: true, lambda: 1.0e-2, learning_rate: 1, radius: 10, epsilon: 1, delta: 1.0e-5, norm_bound: 1, normalize: l2_ball}", 1)
	pn = strings.Replace(pn, "sweep: {grid: {model.sigma: [1.0e-3, 1.0e-2]}}\n", "", 1)
	if k := stagestest.Kinds(stagestest.Compile(t, pn, Game)); k["glm_fit"] != 0 || k["glm_recon"] != 1 {
		t.Errorf("pnsgd kinds %v, want one glm_recon", k)
	}
	_, err := stagestest.CompileErr(t, strings.Replace(pn, "learning_rate: 1,", "learning_rate: 100,", 1), Game)
	var pe *stages.PathError
	if !errors.As(err, &pe) || pe.Path != "model.learning_rate" {
		t.Errorf("η = 100: %v, want a PathError at model.learning_rate", err)
	}
}
