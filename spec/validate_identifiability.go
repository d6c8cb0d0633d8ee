package spec

import "math"

// validateIdentifiability checks what the identifiability game needs
// (Bernau et al. 2021): full-batch training of a trainable model with a
// finite hard clip, and a differing record it can name.
func validateIdentifiability(exp *Experiment, root *Node, pos func(string) Pos, e *errs) {
	id := exp.Identifiability
	for _, need := range []struct {
		ok   bool
		name string
	}{{exp.DPSGD != nil, "dpsgd"}, {exp.Dataset != nil, "dataset"}, {exp.Model != nil, "model"}} {
		if !need.ok {
			e.add(pos("identifiability"), "identifiability", "the identifiability game needs a %s block", need.name)
		}
	}
	if exp.Audit != nil {
		e.add(pos("identifiability"), "identifiability", "a spec plays one game: the membership audit and the identifiability game write different trial tables (use two specs)")
	}
	if exp.Model != nil && exp.Model.Ideal != nil {
		e.add(pos("model.arch"), "model.arch", "the identifiability adversary recomputes clipped gradients of D and D′ at every step; the ideal mechanism has none (use logreg, mlp, cnn or layers)")
	}
	if q, ok := number(root, "dpsgd.sampling_rate"); ok && q != 1 {
		e.add(pos("dpsgd.sampling_rate"), "dpsgd.sampling_rate", "the identifiability adversary A_DI is defined for full-batch training (every step's gradient is a sum over all of D, so D′'s sum is known): sampling_rate must be 1, got %s", fmtNum(q))
	}
	if c, ok := number(root, "dpsgd.clip_norm"); ok && math.IsInf(c, 1) {
		e.add(pos("dpsgd.clip_norm"), "dpsgd.clip_norm", "the identifiability game needs a finite clip norm: the global sensitivity (C or 2C) and the noise scale depend on it")
	}
	if exp.DPSGD != nil {
		if exp.DPSGD.Clip == "soft" {
			e.add(pos("dpsgd.clip"), "dpsgd.clip", "the local sensitivity of the identifiability game is computed for the hard clip; soft clipping is not supported")
		}
		for _, k := range []string{"momentum", "weight_decay"} {
			if v, ok := number(root, "dpsgd."+k); ok && v != 0 {
				e.add(pos("dpsgd."+k), "dpsgd."+k, "the identifiability game updates θ with plain SGD or Adam (identifiability.optimizer); %s is not supported, got %s", k, fmtNum(v))
			}
		}
	}
	if id.Differing == "index" {
		p, _ := parsePath("identifiability.index")
		if i, ok := number(root, "identifiability.index"); getPath(root, p) == nil || (ok && i < 0) {
			e.add(pos("identifiability.index"), "identifiability.index", "differing: index needs the record's index (≥ 0)")
		}
	}
}
