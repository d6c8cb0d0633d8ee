package spec

// validate checks rules that involve more than one field. Single-field
// rules (types, ranges, enums, required keys) come from the struct tags.
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
	if exp.Audit != nil && exp.DPSGD == nil {
		e.add(pos("audit"), "audit", "an audit needs a dpsgd block")
	}
}

func indexPath(key string, i int) string {
	return specPath{{Key: key}, {Index: i}}.String()
}
