package spec

// validateReconstruction checks the cross-field rules of the prior-aware
// reconstruction block. Numeric keys are read from the tree, so that swept and derived
// values are checked per point and skipped in the template. What needs the
// data (pool size, q·|D|) is checked by the stage.
func validateReconstruction(exp *Experiment, r *Reconstruction, root *Node, pos func(string) Pos, e *errs) {
	if v := r.Inversion; v != nil {
		validateInversion(exp, v, root, pos, e)
		return
	}
	p := r.PriorAware
	if p == nil {
		return // other attacks validate themselves
	}
	report := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	if exp.DPSGD == nil {
		report("reconstruction", "a reconstruction audit needs a dpsgd block")
	}
	if exp.Model == nil {
		report("reconstruction", "a reconstruction audit needs a model block ({arch: ideal} simulates the ideal mechanism)")
	}
	ideal := exp.Model != nil && exp.Model.Ideal != nil
	if exp.Model != nil && !ideal && exp.Dataset == nil {
		report("reconstruction", "a reconstruction audit of a trained model needs a dataset block (D₋ and the priors come from it)")
	}
	if n, ok := number(root, "reconstruction.trials"); ok && n < 100 {
		report("reconstruction.trials", "must be ≥ 100, got %s: with fewer trials the success interval is wider than ±0.1 and says little next to the bound", fmtNum(n))
	}
	switch p.ThreatModel {
	case "api_access", "final_model":
		report("reconstruction.threat_model", "the prior-aware attack needs every step's privatised gradient (gradient) or every intermediate model to invert the update from (intermediate_models); %s gives neither", p.ThreatModel)
	}
	n, hasN := number(root, "reconstruction.prior_size")
	if !hasN && getPath(root, specPath{{Key: "reconstruction"}, {Key: "prior_size"}}) == nil {
		n, hasN = 10, true // the default
	}
	if p.Geometry == "antipodal" {
		if !ideal {
			report("reconstruction.geometry", "antipodal candidates exist in the ideal mechanism only (model: {arch: ideal})")
		} else if hasN && n != 2 {
			report("reconstruction.geometry", "antipodal candidates need prior_size 2, got %s", fmtNum(n))
		}
	}
	if ideal && p.Prior == "uniform_noise" {
		report("reconstruction.prior", "the ideal mechanism has no data: its candidates are unit gradients (see geometry)")
	}
	if ideal && p.ThreatModel == "intermediate_models" {
		report("reconstruction.threat_model", "the ideal mechanism releases privatised gradients only: use threat_model gradient")
	}
}

// validateInversion checks the gradient-inversion block.
func validateInversion(exp *Experiment, v *ReconInversion, root *Node, pos func(string) Pos, e *errs) {
	report := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	if exp.DPSGD == nil {
		report("reconstruction", "a reconstruction audit needs a dpsgd block")
	}
	switch {
	case exp.Model == nil:
		report("reconstruction", "the gradient inversion needs a trained model block")
	case exp.Model.Ideal != nil:
		report("reconstruction.attack", "the gradient inversion optimises an input through the model's input gradients; the ideal mechanism has no model (use attack prior_aware)")
	case exp.Dataset == nil:
		report("reconstruction", "a reconstruction audit of a trained model needs a dataset block")
	}
	if n, ok := number(root, "reconstruction.trials"); ok && n < 100 {
		report("reconstruction.trials", "must be ≥ 100, got %s: with fewer trials the success interval is wider than ±0.1 and says little next to the bound", fmtNum(n))
	}
	if v.ThreatModel != "" && v.ThreatModel != "gradient" {
		report("reconstruction.threat_model", "the gradient inversion reads every privatised gradient sum: it needs threat model gradient, got %s", v.ThreatModel)
	}
}
