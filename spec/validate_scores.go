package spec

// validateScoreSource checks an audit of a user's score table
// (audit.source): the keys that describe trials dpaudit runs do not
// apply, the claim is a number or the dpsgd block's mechanism (not
// both), and per-user aggregation names both the unit and the rule.
func validateScoreSource(exp *Experiment, a *Audit, root *Node, pos func(string) Pos, e *errs) {
	s := a.Source
	if s.Scores == "" && !placeholder(root, "audit.source.scores") {
		e.add(pos("audit.source.scores"), "audit.source.scores", "must name a score table (Parquet or CSV)")
	}
	// Defaults fill the tree, so a key counts as given when its value
	// differs from its default (giving the default changes nothing).
	for _, k := range []struct {
		key   string
		given bool
	}{
		{"threat_model", a.ThreatModel != ""}, {"trials", a.Trials != 0}, {"shard_size", a.ShardSize != 0},
		{"estimator", a.Estimator != "clopper_pearson"}, {"canaries", a.Canaries != "gradient"}, {"headline", a.Headline != ""},
		{"measure_cpu", a.MeasureCPU}, {"runs", a.Runs > 1}, {"repeats", a.Repeats > 1}, {"random_init", a.RandomInit},
		{"stop", a.Stop != "fixed"}, {"sequential", a.Sequential != nil}, {"worst_case_init", a.WorstCaseInit != nil},
		{"claimed_noise_multiplier", a.ClaimedNoiseMultiplier != 0},
	} {
		if k.given {
			e.add(pos("audit."+k.key), "audit."+k.key, "does not apply to a score table (audit.source): the scores were computed elsewhere, and the table's layout decides the estimators")
		}
	}
	if exp.Crafter != nil {
		e.add(pos("crafter"), "crafter", "does not apply to an audit of a score table (audit.source)")
	}
	if exp.Distinguisher != nil {
		e.add(pos("distinguisher"), "distinguisher", "does not apply to an audit of a score table (audit.source)")
	}
	switch {
	case s.Group != "" && s.Aggregate == "":
		e.add(pos("audit.source.group"), "audit.source.group", "group: user needs aggregate (max, min, mean or logsumexp)")
	case s.Group == "" && s.Aggregate != "":
		e.add(pos("audit.source.aggregate"), "audit.source.aggregate", "aggregate needs group: user")
	case s.Group != "" && s.Plan != "":
		e.add(pos("audit.source.group"), "audit.source.group", "does not go with a plan: a plan's canaries are the privacy units")
	}
	validateScoreClaim(exp, a, root, pos, e)
}

// validateScoreClaim checks the claim a score table is tested against:
// claim_epsilon, or the dpsgd block's DP-SGD (Poisson sampling, hard
// clipping, add/remove neighbours: what dpaudit estimate accounts), with
// audit.claim's overrides.
func validateScoreClaim(exp *Experiment, a *Audit, root *Node, pos func(string) Pos, e *errs) {
	switch {
	case exp.DPSGD != nil:
		if a.Source.ClaimEpsilon != 0 {
			e.add(pos("audit.source.claim_epsilon"), "audit.source.claim_epsilon", "give the claim as claim_epsilon or as the dpsgd block's mechanism, not both")
		}
		if a.Source.Delta != 0 {
			e.add(pos("audit.source.delta"), "audit.source.delta", "δ is dpsgd.delta when the spec has a dpsgd block")
		}
		if exp.DPSGD.NoiseMultiplier == 0 && !placeholder(root, "dpsgd.noise_multiplier") {
			e.add(pos("dpsgd.noise_multiplier"), "dpsgd.noise_multiplier", "a score table's claim needs a noise multiplier > 0")
		}
	case a.Claim != nil:
		e.add(pos("audit.claim"), "audit.claim", "a claimed mechanism needs a dpsgd block (or give audit.source.claim_epsilon)")
	}
	checks := []struct{ path, bad, why string }{
		{"dpsgd.sampling", "shuffle", "Poisson sampling"},
		{"dpsgd.clip", "soft", "hard clipping"},
		{"audit.claim.sampling", "shuffle", "Poisson sampling"},
		{"audit.claim.clip", "soft", "hard clipping"},
		{"audit.claim.adjacency", "replace", "add/remove neighbours"},
	}
	for _, c := range checks {
		if v, ok := stringAt(root, c.path); ok && v == c.bad {
			e.add(pos(c.path), c.path, "a score table is tested against DP-SGD with %s (as dpaudit estimate accounts it); %s is not supported here", c.why, c.bad)
		}
	}
}

// present reports whether the spec gives path (a value, a placeholder
// or a block).
func present(root *Node, path string) bool {
	p, err := parsePath(path)
	return err == nil && getPath(root, p) != nil
}

// stringAt is the string at path, when the spec gives one.
func stringAt(root *Node, path string) (string, bool) {
	p, err := parsePath(path)
	if err != nil {
		return "", false
	}
	n := getPath(root, p)
	if n == nil || n.Kind != ScalarNode || n.Expr != "" {
		return "", false
	}
	v, ok := n.Value.(string)
	return v, ok
}
