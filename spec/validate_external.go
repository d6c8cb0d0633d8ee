package spec

import "math"

// externalCrafters make the canary records an external trainer adds to
// its training set (one for the classic game, audit.trials for one-run).
var externalCrafters = map[string]bool{"random_record": true, "mislabeled_record": true, "noise_input": true}

// validateExternal checks the trainer block and model: {arch: external}
// together: each needs the other, and the external-trainer protocol
// covers the classic membership game (black box, intermediate models or
// every step's update) and the one-run game with input canaries (black
// box or intermediate models).
func validateExternal(exp *Experiment, root *Node, pos func(string) Pos, e *errs) {
	ext := exp.Model != nil && exp.Model.External != nil
	switch {
	case exp.Trainer != nil && !ext && !placeholder(root, "model.arch"):
		e.add(pos("trainer"), "trainer", "a trainer block trains model: {arch: external}; set model.arch: external, or remove the trainer block to train with dpaudit's own trainer")
	case ext && exp.Trainer == nil:
		e.add(pos("model.arch"), "model.arch", "model external is trained by a command: add a trainer block ({command: [python3, train.py]})")
	}
	if !ext {
		return
	}
	for _, other := range []struct {
		set  bool
		name string
	}{{exp.Train != nil, "train"}, {exp.Reconstruction != nil, "reconstruction"}, {exp.Identifiability != nil, "identifiability"}} {
		if other.set {
			e.add(pos(other.name), other.name, "the external-trainer protocol covers the membership audits (an audit block), not %s", other.name)
		}
	}
	if c, ok := number(root, "dpsgd.clip_norm"); ok && math.IsInf(c, 0) {
		e.add(pos("dpsgd.clip_norm"), "dpsgd.clip_norm", "an external trainer is audited against a finite clip norm (a request is JSON, which has no infinity)")
	}
	a := exp.Audit
	if a == nil {
		e.add(pos("model.arch"), "model.arch", "an external model is audited by the membership games: add an audit block")
		return
	}
	if placeholder(root, "audit.estimator") {
		return
	}
	validateExternalAudit(exp, a, root, pos, e)
}

// externalReports is what a trainer reports under each threat model it
// serves, and the distinguisher that reads it.
var externalReports = map[string]struct{ report, dist string }{
	"api_access":          {"final_loss", "loss_threshold"},
	"intermediate_poison": {"step_loss", "intermediate_loss"},
	"gradient":            {"step_projection", "watermark"},
	"malicious_dataset":   {"step_projection", "watermark"},
}

// validateExternalAudit refuses the games the protocol does not cover yet
// and what the trainer cannot report.
func validateExternalAudit(exp *Experiment, a *Audit, root *Node, pos func(string) Pos, e *errs) {
	switch {
	case a.Stop == "sequential" && a.Estimator == "one_run":
		e.add(pos("audit.stop"), "audit.stop", "with an external trainer a sequential audit is the classic game's (estimator clopper_pearson), not one_run's")
	case a.Estimator == "per_step":
		e.add(pos("audit.estimator"), "audit.estimator", "the external-trainer protocol does not cover the per-step estimator yet (its Dirac gradient canaries sit on parameters of dpaudit's own model): audit every step's update with estimator clopper_pearson, threat_model gradient and distinguisher watermark")
	case a.Estimator == "one_run" && a.Canaries != "input":
		e.add(pos("audit.canaries"), "audit.canaries", "with an external trainer the one-run canaries are records: set audit.canaries: input (gradient canaries are not in the protocol yet)")
	case a.WorstCaseInit != nil:
		e.add(pos("audit.worst_case_init"), "audit.worst_case_init", "the external-trainer protocol does not cover a worst-case θ_0 yet")
	}
	served, ok := externalReports[a.ThreatModel]
	switch {
	case a.ThreatModel == "" || placeholder(root, "audit.threat_model"):
	case !ok:
		e.add(pos("audit.threat_model"), "audit.threat_model", "an external trainer reports the final model's losses (api_access), the losses of every intermediate model (intermediate_poison) or every step's update projected on the canary's gradient (gradient, malicious_dataset); got %s", a.ThreatModel)
	case served.report == "step_projection" && a.Estimator == "one_run":
		e.add(pos("audit.estimator"), "audit.estimator", "with an external trainer the one-run game reads losses (threat_model api_access or intermediate_poison), not projected updates (%s)", a.ThreatModel)
	}
	if d := exp.Distinguisher; ok && d != nil && d.Kind != "" && d.Kind != served.dist && !placeholder(root, "distinguisher.kind") {
		e.add(pos("distinguisher.kind"), "distinguisher.kind", "under threat_model %s an external trainer reports %s: use distinguisher %s, got %s", a.ThreatModel, served.report, served.dist, d.Kind)
	}
	if d := exp.Distinguisher; d != nil && d.Watermark != nil && d.Watermark.Observe == "intermediate_models" {
		e.add(pos("distinguisher.observe"), "distinguisher.observe", "an external trainer reports the released updates themselves: observe gradients")
	}
	if c := exp.Crafter; c != nil && c.Kind != "" && !placeholder(root, "crafter.kind") {
		switch {
		case !externalCrafters[c.Kind]:
			e.add(pos("crafter.kind"), "crafter.kind", "an external trainer adds canary records to its training set: use random_record, mislabeled_record or noise_input, got %s", c.Kind)
		case (c.RandomRecord != nil && (c.RandomRecord.Source == "train" || c.RandomRecord.PerTrial)) ||
			(c.Mislabeled != nil && c.Mislabeled.Source == "train"):
			e.add(pos("crafter"), "crafter", "an external trainer's canaries come from outside its training set, fixed for the audit: source pool, no per_trial")
		}
	}
}
