package spec

import "fmt"

// validateCorrelated checks cyclic sampling and matrix-factorization noise:
// the strategy's shape against the run's steps, and that the dpsgd block's
// own participation schema covers its sampler (an audit's claim may
// under-count on purpose; the dpsgd block states the run's guarantee).
func validateCorrelated(exp *Experiment, root *Node, pos func(string) Pos, e *errs) {
	d := exp.DPSGD
	if d == nil {
		return
	}
	bad := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	steps, stepsOK := number(root, "dpsgd.steps")
	groups, groupsOK := number(root, "dpsgd.groups")
	cyclic := d.Sampling == "cyclic"
	switch {
	case cyclic && groupsOK && groups < 1:
		bad("dpsgd.groups", "cyclic sampling needs groups ≥ 1 (the number of groups the records cycle through)")
	case cyclic && groupsOK && stepsOK && groups > steps:
		bad("dpsgd.groups", "%s groups is more than the %s steps (some groups would never train)", fmtNum(groups), fmtNum(steps))
	case !cyclic && groupsOK && groups > 0 && !placeholder(root, "dpsgd.sampling"):
		bad("dpsgd.groups", "groups are for sampling: cyclic, got sampling %s", d.Sampling)
	}
	if w := exp.Distinguisher; w != nil && w.Watermark != nil && w.Watermark.Form == "decorrelated" && !placeholder(root, "distinguisher.form") {
		a := exp.Audit
		if d.Correlated == nil || a == nil || a.Estimator != "one_run" || a.Canaries == "input" || (exp.Model != nil && exp.Model.Ideal != nil) {
			bad("distinguisher.form", "the decorrelated score is for the one-run game's Dirac gradient canaries in a model trained with matrix-factorization noise (dpsgd.correlated)")
		}
	}
	if r := exp.Report; r != nil && (d.Correlated != nil || cyclic) {
		for i, f := range r.Figures {
			if f.Tradeoff != nil {
				path := indexPath("report.figures", i) + ".kind"
				e.add(pos(path), path, "the trade-off figure draws DP-SGD's curves from the summary; it does not draw a matrix mechanism's (cyclic sampling, dpsgd.correlated)")
			}
		}
	}
	if d.Correlated != nil {
		validateStrategy(d.Correlated, "dpsgd.correlated", root, pos, e)
		validateOwnParticipation(d, root, pos, e)
		if d.Adjacency == "replace_one" {
			bad("dpsgd.adjacency", "matrix-factorization noise is accounted under add_remove adjacency only (the sensitivity of C under replacement is not implemented)")
		}
	}
	if a := exp.Audit; a != nil && a.Claim != nil {
		if c := a.Claim.Correlated; c != nil {
			validateStrategy(c, "audit.claim.correlated", root, pos, e)
			if c.Participation == "min_sep" && c.MinSep < 1 && !placeholder(root, "audit.claim.correlated.min_sep") {
				bad("audit.claim.correlated.min_sep", "min_sep participation needs min_sep ≥ 1")
			}
			if d.Correlated == nil {
				bad("audit.claim.correlated", "a claim of matrix-factorization noise needs dpsgd.correlated: the audit's adversary and trainer must know the strategy that was trained")
			}
		}
		if d.Correlated != nil && (a.Claim.Adjacency == "replace_one" || a.Claim.Adjacency == "replace_one_sigma_half" || a.Claim.Adjacency == "replace") {
			bad("audit.claim.adjacency", "matrix-factorization noise is accounted under add_remove adjacency only")
		}
	}
}

// validateStrategy checks one strategy block against the run's steps.
func validateStrategy(c *Correlated, at string, root *Node, pos func(string) Pos, e *errs) {
	bad := func(key, format string, args ...any) {
		path := at + key
		e.add(pos(path), path, format, args...)
	}
	steps, stepsOK := number(root, "dpsgd.steps")
	bands, bandsOK := number(root, at+".bands")
	if c.Strategy == "blt" {
		switch {
		case len(c.Coefficients) > 0 || c.Bands > 0:
			bad("", "a blt strategy is given by omega and theta, not bands or coefficients")
		case len(c.Omega) == 0 || len(c.Omega) != len(c.Theta):
			bad("", "a blt strategy needs one omega and one theta per buffer (got %d and %d)", len(c.Omega), len(c.Theta))
		}
		for j, th := range c.Theta {
			if !(th >= 0 && th < 1) {
				bad(fmt.Sprintf(".theta[%d]", j), "θ must be in [0, 1), got %s", fmtNum(th))
			}
		}
		if c.Participation == "amplified" {
			bad(".participation", "amplified participation is for banded strategies (a BLT strategy has as many bands as steps)")
		}
		return
	}
	if len(c.Omega) > 0 || len(c.Theta) > 0 {
		bad("", "omega and theta are for strategy: blt")
	}
	switch {
	case len(c.Coefficients) == 0 && bandsOK && bands < 1:
		bad(".bands", "a banded strategy needs bands ≥ 1 or its coefficients")
	case len(c.Coefficients) > 0 && bandsOK && bands > 0 && int(bands) != len(c.Coefficients):
		bad(".bands", "bands is %s but %d coefficients are given", fmtNum(bands), len(c.Coefficients))
	}
	if len(c.Coefficients) > 0 && !(c.Coefficients[0] > 0) {
		bad(".coefficients[0]", "c_0 must be > 0 (C must be invertible), got %s", fmtNum(c.Coefficients[0]))
	}
	b := max(int(bands), len(c.Coefficients))
	if stepsOK && (bandsOK || len(c.Coefficients) > 0) && float64(b) > steps {
		path := ".bands"
		if !bandsOK || bands == 0 {
			path = ".coefficients"
		}
		bad(path, "%d bands is more than the %s steps (a banded strategy has at most T bands)", b, fmtNum(steps))
	}
}

// validateOwnParticipation refuses a dpsgd.correlated participation schema
// that does not cover the sampler the run trains with.
func validateOwnParticipation(d *DPSGD, root *Node, pos func(string) Pos, e *errs) {
	c := d.Correlated
	bad := func(key, format string, args ...any) {
		path := "dpsgd.correlated." + key
		e.add(pos(path), path, format, args...)
	}
	if placeholder(root, "dpsgd.sampling") || placeholder(root, "dpsgd.correlated.participation") {
		return
	}
	cyclic := d.Sampling == "cyclic"
	groups, groupsOK := number(root, "dpsgd.groups")
	steps, stepsOK := number(root, "dpsgd.steps")
	switch c.Participation {
	case "cyclic", "amplified":
		if !cyclic {
			bad("participation", "%s participation needs sampling: cyclic (records in fixed groups); with %s sampling a record may take part in any step: use participation min_sep with min_sep 1", c.Participation, d.Sampling)
			return
		}
		if c.MinSep > 0 {
			bad("min_sep", "min_sep is for participation min_sep (cyclic participation separates a record's steps by dpsgd.groups)")
		}
	case "min_sep":
		if c.MinSep < 1 && !placeholder(root, "dpsgd.correlated.min_sep") {
			bad("min_sep", "min_sep participation needs min_sep ≥ 1")
			return
		}
		sep := 1.0
		if cyclic && groupsOK {
			sep = groups
		}
		if float64(c.MinSep) > sep && (groupsOK || !cyclic) {
			bad("min_sep", "min_sep %d is not what the %s sampler guarantees (%s): the accountant would not cover the run", c.MinSep, d.Sampling, fmtNum(sep))
		}
	}
	if c.Participation == "amplified" {
		bands, bandsOK := number(root, "dpsgd.correlated.bands")
		if b := max(int(bands), len(c.Coefficients)); groupsOK && (bandsOK || len(c.Coefficients) > 0) && float64(b) > groups {
			bad("participation", "amplified banded MF needs groups ≥ bands (got %d bands, %s groups): a record's contributions must not overlap", b, fmtNum(groups))
		}
		if c.MaxParticipations > 0 {
			bad("max_participations", "amplified participation counts ⌈T/groups⌉ participations itself")
		}
	}
	if c.MaxParticipations > 0 && stepsOK {
		trained := steps // a record may take part in every step
		if cyclic && groupsOK && groups >= 1 {
			trained = float64((int(steps) + int(groups) - 1) / int(groups))
		}
		if c.Participation == "min_sep" && c.MinSep > 1 {
			trained = min(trained, float64((int(steps)+c.MinSep-1)/c.MinSep))
		}
		if float64(c.MaxParticipations) < trained {
			bad("max_participations", "%d participations is fewer than the %s steps one record of this run may take part in: the accountant would not cover the run (to audit an under-count, put it in audit.claim.correlated)", c.MaxParticipations, fmtNum(trained))
		}
	}
}
