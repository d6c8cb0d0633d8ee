package membership

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Last-iterate black-box audits with worst-case initial parameters
// (Annamalai & De Cristofaro, NeurIPS 2024; their code,
// github.com/spalabucr/bb-audit-dpsgd, was read for the settings). The
// game is the ordinary api_access game — a crafted target record added in
// world 1, every trial training DP-SGD from one fixed θ_0, the final
// model's loss on the target as the only observation — with θ_0 crafted:
// pre-trained without privacy on records held out of the training pool
// (audit.worst_case_init). The craft node does the pre-training once and
// stores θ_0 in attack.Crafted.Init, so every trial (and shard) starts
// from the same parameters.

// worstCaseCrafters are the crafters whose output does not depend on θ_0,
// so pre-training after crafting changes nothing they decided. The others
// (shadow models, reference runs, labels from θ_0) would have to see the
// pre-trained θ_0 and are refused.
var worstCaseCrafters = map[string]bool{
	"constant_input": true, "noise_input": true, "mislabeled_record": true, "random_record": true,
}

// checkWorstCaseInit refuses worst_case_init where no trial game trains
// from a θ_0 (every audit branch calls it, so it is never ignored).
func checkWorstCaseInit(exp *spec.Experiment) error {
	a := exp.Audit
	if a.WorstCaseInit == nil {
		return nil
	}
	switch {
	case exp.Model.Ideal != nil:
		return &stages.PathError{Path: "audit.worst_case_init", Err: fmt.Errorf("the ideal mechanism has no parameters to initialise; use a trained model")}
	case a.Stop == "sequential":
		return &stages.PathError{Path: "audit.worst_case_init", Err: fmt.Errorf("with stop: sequential is not implemented yet; use stop: fixed")}
	case a.Estimator != "clopper_pearson":
		return &stages.PathError{Path: "audit.worst_case_init", Err: fmt.Errorf("with estimator %s is not implemented yet (the last-iterate audit is the trial game of estimator clopper_pearson)", a.Estimator)}
	}
	return nil
}

// worstCaseData checks the spec's worst_case_init against the point and
// returns the craft's data parameters with the held-out records asked for.
// Bad input is a stages.PathError (a positioned spec error, exit 2).
func worstCaseData(exp *spec.Experiment, data stages.DataParams, dataDir string) (stages.DataParams, error) {
	a := exp.Audit
	wc := a.WorstCaseInit
	switch {
	case a.RandomInit:
		return data, &stages.PathError{Path: "audit.random_init", Err: fmt.Errorf("a fresh θ_0 per trial contradicts worst_case_init, which fixes the pre-trained θ_0")}
	case !worstCaseCrafters[exp.Crafter.Kind]:
		return data, &stages.PathError{Path: "crafter.kind", Err: fmt.Errorf("%s with worst_case_init is not implemented yet (the crafter would have to see the pre-trained θ_0); use constant_input, noise_input, mislabeled_record or random_record", exp.Crafter.Kind)}
	case wc.HeldOut < 1:
		return data, &stages.PathError{Path: "audit.worst_case_init.held_out", Err: fmt.Errorf("must be ≥ 1: the worst-case θ_0 is pre-trained on held-out records, got %d", wc.HeldOut)}
	}
	data.Options.HeldOut = wc.HeldOut
	if _, err := stages.LoadSplit(data, dataDir); err != nil {
		if datasets.IsBadInput(err) {
			return data, &stages.PathError{Path: "audit.worst_case_init.held_out", Err: err}
		}
		return data, &stages.PathError{Path: "dataset", Err: err}
	}
	return data, nil
}

// worstCaseInit pre-trains θ_0 (from the crafter's InitSeed) on the split's
// held-out records and stores it in the crafted result, with notes on how
// well it fits and how the target looks at it.
func worstCaseInit(c *attack.Crafted, p craftParams, split *datasets.Split) error {
	h, wc := split.HeldOut, p.WorstCase
	if h == nil || h.N != wc.HeldOut {
		return fmt.Errorf("worst-case init: the split holds no %d held-out records", wc.HeldOut)
	}
	m, err := learn.NewModel(p.Arch, split.Train.Shape, split.Train.Classes, c.InitSeed)
	if err != nil {
		return err
	}
	// Its own stream: the pre-training depends on the spec seed and the
	// craft's configuration only.
	if _, err := learn.Pretrain(m, h.X, h.Y, wc.Epochs, wc.BatchSize, wc.LearningRate, rng.New(p.Seed, "worst_case_init")); err != nil {
		return fmt.Errorf("worst-case init: %w", err)
	}
	c.Init = m.Params()
	tr := split.Train
	lossH, err := m.Loss(h.X, h.Y)
	if err != nil {
		return err
	}
	lossT, err := m.Loss(tr.X, tr.Y)
	if err != nil {
		return err
	}
	acc, err := m.Accuracy(tr.X, tr.Y)
	if err != nil {
		return err
	}
	c.Notes = append(c.Notes, fmt.Sprintf("worst-case θ_0: %d epochs of SGD (batch %d, lr %g) on %d held-out records; loss %.4g on them, %.4g on the training set (accuracy %.4f)",
		wc.Epochs, wc.BatchSize, wc.LearningRate, h.N, lossH, lossT, acc))
	if t := c.Target; t != nil {
		lt, err := m.Loss(t.X, []int32{t.Y})
		if err != nil {
			return err
		}
		c.Notes = append(c.Notes, fmt.Sprintf("target's loss at θ_0: %.4g (label %d)", lt, t.Y))
	}
	return nil
}

// worstCaseDiag is what the estimate needs to describe the worst-case θ_0
// in the summary: the pre-training settings, and the data and model to
// evaluate θ_0 on (read from the craft node).
type worstCaseDiag struct {
	Init spec.WorstCaseInit `json:"init"`
	Data stages.DataParams  `json:"data"`
	Arch learn.Arch         `json:"arch"`
}

// worstCaseColumns are the summary columns of an audit with
// worst_case_init: the median, min and max over repeats of the paper's
// estimate (epsilon_gdp_estimate_lo), then θ_0's description.
var worstCaseColumns = []string{"epsilon_gdp_estimate_lo_median", "epsilon_gdp_estimate_lo_min", "epsilon_gdp_estimate_lo_max",
	"initial_model", "init_held_out", "init_train_loss", "init_target_loss", "init_target_label"}

// outputs evaluates the crafted θ_0 of craftDir: the training records' mean
// loss (small: the records barely move θ) and the target's (large: its
// clipped gradient stays at full norm).
func (d *worstCaseDiag) outputs(craftDir, dataDir string) ([]stages.Output, error) {
	b, err := os.ReadFile(filepath.Join(craftDir, craftFile))
	if err != nil {
		return nil, err
	}
	c := new(attack.Crafted)
	if err := c.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	if c.Init == nil || c.Target == nil {
		return nil, fmt.Errorf("worst-case init: the craft holds no θ_0 or no target")
	}
	split, err := stages.LoadSplit(d.Data, dataDir)
	if err != nil {
		return nil, err
	}
	tr := split.Train
	m, err := learn.NewModel(d.Arch, tr.Shape, tr.Classes, c.InitSeed)
	if err != nil {
		return nil, err
	}
	if err := m.SetParams(c.Init); err != nil {
		return nil, err
	}
	lossTrain, err := m.Loss(tr.X, tr.Y)
	if err != nil {
		return nil, err
	}
	lossTarget, err := m.Loss(c.Target.X, []int32{c.Target.Y})
	if err != nil {
		return nil, err
	}
	w := d.Init
	return []stages.Output{
		stages.Str("initial_model", fmt.Sprintf("worst_case: pre-trained on %d held-out records (%d epochs, batch %d, lr %g), fixed for every trial", w.HeldOut, w.Epochs, w.BatchSize, w.LearningRate)),
		stages.Int("init_held_out", int64(w.HeldOut)),
		stages.F64("init_train_loss", lossTrain),
		stages.F64("init_target_loss", lossTarget),
		stages.Int("init_target_label", int64(c.Target.Y)),
	}, nil
}
