package spec

// validateGLM checks the GLM learners (model output_perturbation and
// pnsgd) and the GLM reconstruction attack: which of the alternative keys
// are given, and whether the attack has a learner it can invert. Keys are
// looked up in the tree, where swept or derived keys are placeholders.
func validateGLM(exp *Experiment, root *Node, pos func(string) Pos, e *errs) {
	has := func(path string) bool {
		p, err := parsePath(path)
		return err == nil && getPath(root, p) != nil
	}
	report := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	// A swept or derived key is a placeholder in the template: rules
	// that read its value wait for the points.
	placeholder := func(path string) bool {
		p, err := parsePath(path)
		if err != nil {
			return false
		}
		n := getPath(root, p)
		return n != nil && n.Kind == ScalarNode && n.Expr != ""
	}
	if m := exp.Model; m != nil {
		switch {
		case m.OutputPerturbation != nil && placeholder("model.noise"):
		case m.OutputPerturbation != nil:
			if m.OutputPerturbation.Noise == "gaussian" || m.OutputPerturbation.Noise == "" {
				if !has("model.sigma") {
					report("model.sigma", "missing: noise gaussian needs sigma (the absolute noise standard deviation)")
				}
				if has("model.epsilon") {
					report("model.epsilon", "epsilon goes with noise laplace or laplace_mdp; the Gaussian's privacy follows from sigma (rdp_formula)")
				}
			} else {
				if !has("model.epsilon") {
					report("model.epsilon", "missing: noise %s needs epsilon", m.OutputPerturbation.Noise)
				}
				if has("model.sigma") {
					report("model.sigma", "sigma goes with noise gaussian; the %s scale follows from epsilon, lambda and norm_bound", m.OutputPerturbation.Noise)
				}
			}
		case m.PNSGD != nil:
			switch e1, e2 := has("model.epsilon"), has("model.noise_std"); {
			case e1 && e2:
				report("model.noise_std", "give epsilon or noise_std, not both")
			case !e1 && !e2:
				report("model.epsilon", "missing: pnsgd needs epsilon (σ calibrated) or noise_std")
			}
		}
	}
	if exp.Train != nil && exp.Train.FIL != nil {
		validateFIL(exp, pos, e)
	}
	r := exp.Reconstruction
	if r == nil || r.GLM == nil {
		return
	}
	g := r.GLM
	if exp.Dataset == nil {
		report("reconstruction", "the GLM attack needs a dataset block")
	}
	m := exp.Model
	switch {
	case m == nil:
		report("reconstruction.attack", "the GLM attack needs a model block: arch output_perturbation or pnsgd")
	case m.OutputPerturbation == nil && m.PNSGD == nil:
		report("model.arch", "the GLM attack inverts the optimality condition of L2-regularised logistic regression; model %q is not such a GLM (use arch output_perturbation or pnsgd)", m.Arch)
	case m.OutputPerturbation != nil && !m.OutputPerturbation.Bias, m.PNSGD != nil && !m.PNSGD.Bias:
		if rel, ok := number(root, "reconstruction.releases"); has("model.bias") && !(ok && rel == 0) {
			report("model.bias", "the GLM attack needs bias: true (the bias coordinate normalises the reconstruction)")
		}
	}
	if m != nil && m.PNSGD != nil && g.Targets == "top_dfil" && !placeholder("reconstruction.targets") {
		report("reconstruction.targets", "top_dfil needs the dFIL, which is computed for output_perturbation only; use all or subset")
	}
	if rel, ok := number(root, "reconstruction.releases"); g.Interval && ok && rel == 1 {
		report("reconstruction.releases", "an interval needs at least 2 releases per target, got 1 (or set interval: false)")
	}
	if exp.Train != nil || exp.Audit != nil {
		if m != nil && (m.OutputPerturbation != nil || m.PNSGD != nil) {
			report("model.arch", "%s is trained by the reconstruction block only; train and audit need a DP-SGD model (logreg, mlp, cnn, layers)", m.Arch)
		}
	}
}

// validateFIL refuses FIL accounting through a layer without a smooth
// input-Jacobian of the per-example gradient, naming it and the fix.
func validateFIL(exp *Experiment, pos func(string) Pos, e *errs) {
	report := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	if d := exp.DPSGD; d != nil && d.Clip != "soft" {
		report("dpsgd.clip", "FIL accounting needs a smooth clip: hard clipping min(1, C/‖g‖) has no derivative where ‖g‖ = C; use clip: soft (Guo et al.'s GELU soft clip)")
	}
	m := exp.Model
	switch {
	case m == nil:
	case m.MLP != nil && m.MLP.Activation != "tanh":
		report("model.activation", "FIL accounting needs a smooth activation: %s has a kink (ReLU) or a jump in its second derivative (ELU) at 0; use activation: tanh", m.MLP.Activation)
	case m.Layers != nil:
		for i, l := range m.Layers.Layers {
			path := indexPath("model.layers", i) + ".kind"
			switch l.Kind {
			case "relu", "elu":
				report(path, "FIL accounting needs smooth activations: %s has a kink (ReLU) or a jump in its second derivative (ELU) at 0; use tanh or sigmoid", l.Kind)
			case "maxpool":
				report(path, "FIL accounting needs a smooth gradient: max pooling has none where a window's maximum ties; use avgpool")
			}
		}
	case m.LogReg == nil && m.MLP == nil && m.CNN == nil:
		report("model.arch", "FIL accounting is for DP-SGD models (logreg, mlp, cnn, layers), got %s", m.Arch)
	}
}
