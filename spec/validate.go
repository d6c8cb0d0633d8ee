package spec

import "math"

// validate checks rules that involve more than one field. Single-field
// rules (types, ranges, enums, required keys) come from the struct tags.
// It runs on the template (before sweep expansion, where swept values and
// expressions are placeholders, so rules reading them are skipped) and on
// every point, so that most problems are reported together with the
// single-field ones.
func validate(exp *Experiment, root *Node, e *errs) {
	pos := func(path string) Pos {
		p, err := parsePath(path)
		if err != nil {
			return Pos{}
		}
		for len(p) > 0 {
			if n := getPath(root, p); n != nil {
				return n.Pos
			}
			p = p[:len(p)-1]
		}
		return root.Pos
	}
	for i, b := range exp.Bound {
		if b.Accountant != nil && exp.DPSGD == nil {
			e.add(pos(indexPath("bound", i)), indexPath("bound", i)+".kind", "the accountant needs a dpsgd block (noise_multiplier, sampling_rate, steps, delta)")
		}
	}
	// σ > 0, except σ = 0 with C = ∞: non-private training (ε = ∞).
	if sigma, ok := number(root, "dpsgd.noise_multiplier"); ok {
		switch {
		case sigma < 0 || math.IsNaN(sigma):
			e.add(pos("dpsgd.noise_multiplier"), "dpsgd.noise_multiplier", "must be > 0, got %s", fmtNum(sigma))
		case sigma == 0:
			if c, ok := number(root, "dpsgd.clip_norm"); !ok || !math.IsInf(c, 1) {
				e.add(pos("dpsgd.noise_multiplier"), "dpsgd.noise_multiplier", "must be > 0, got 0 (for non-private training, set noise_multiplier: 0 with clip_norm: .inf)")
			}
		}
	}
	if exp.Train != nil {
		for _, need := range []struct {
			ok   bool
			name string
		}{{exp.DPSGD != nil, "dpsgd"}, {exp.Dataset != nil, "dataset"}, {exp.Model != nil, "model"}} {
			if !need.ok {
				e.add(pos("train"), "train", "training needs a %s block", need.name)
			}
		}
	}
	if exp.Audit != nil && exp.DPSGD == nil {
		e.add(pos("audit"), "audit", "an audit needs a dpsgd block")
	}
}

func indexPath(key string, i int) string {
	return specPath{{Key: key}, {Index: i}}.String()
}

// number reads a numeric scalar of the tree; false when it is absent, a
// placeholder or not a number (those are reported elsewhere).
func number(root *Node, path string) (float64, bool) {
	p, err := parsePath(path)
	if err != nil {
		return 0, false
	}
	n := getPath(root, p)
	if n == nil || n.Kind != ScalarNode || n.Expr != "" {
		return 0, false
	}
	switch x := n.Value.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
