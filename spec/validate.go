package spec

import (
	"math"
	"strings"
)

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
		validateBound(exp, b, indexPath("bound", i), root, pos, e)
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
	if a := exp.Audit; a != nil {
		validateAudit(exp, a, root, pos, e)
	}
	validateCorrelated(exp, root, pos, e)
	if r := exp.Reconstruction; r != nil {
		validateReconstruction(exp, r, root, pos, e)
	}

	validateGLM(exp, root, pos, e)
	validateBoundSampling(exp, pos, e)

	if exp.Dataset != nil && exp.Dataset.File != nil {
		validateDatasetFile(exp.Dataset.File, root, pos, e)
	}

	if exp.Identifiability != nil {
		validateIdentifiability(exp, root, pos, e)
	}
	validateExternal(exp, root, pos, e)
}

// validateAudit checks that an audit has what its game needs. Whether the
// crafter and distinguisher fit the threat model is checked by the stage
// (package attack knows the access levels).
//
// On the template a swept or derived estimator, crafter or distinguisher
// is a placeholder: the rules that depend on it wait for the points, so a
// sweep may switch between the audit families (one spec comparing the
// classic game, one-run and per-step audits: examples/audit/tightness.yaml).
func validateAudit(exp *Experiment, a *Audit, root *Node, pos func(string) Pos, e *errs) {
	if a.Source != nil {
		validateScoreSource(exp, a, root, pos, e)
		return
	}
	for _, key := range []string{"threat_model", "trials"} {
		if !present(root, "audit."+key) {
			e.add(pos("audit"), "audit."+key, "missing (required)")
		}
	}
	if placeholder(root, "audit.estimator") {
		if exp.DPSGD == nil {
			e.add(pos("audit"), "audit", "an audit needs a dpsgd block")
		}
		return
	}
	if exp.DPSGD == nil {
		e.add(pos("audit"), "audit", "an audit needs a dpsgd block")
	}
	if a.BonferroniGrid != nil && len(a.BonferroniGrid) < 2 {
		e.add(pos("audit.bonferroni_grid"), "audit.bonferroni_grid", "needs at least 2 thresholds, got %d (one threshold fixed in advance is threshold: split's job; a scan needs a grid)", len(a.BonferroniGrid))
	}
	validateClaim(exp, a, pos, e)
	validateOneRun(a, pos, e)
	if a.Canaries == "input" && a.Estimator != "one_run" {
		e.add(pos("audit.canaries"), "audit.canaries", "input canaries (many canary records in one run) are for estimator one_run, got %s", a.Estimator)
	}
	validateHeadline(a, root, pos, e)

	validateSequential(a, pos, e)
	if a.Runs > 1 && a.Estimator != "per_step" {
		e.add(pos("audit.runs"), "audit.runs", "pooled training runs are for estimator per_step; use audit.repeats to repeat an audit")
	}
	switch {
	case exp.Model == nil:
		e.add(pos("audit"), "audit", "an audit needs a model block ({arch: ideal} simulates the ideal mechanism)")
	case exp.Model.Ideal != nil:
		validateIdealAudit(exp, a, pos, e)
	case a.Estimator == "per_step":
		validatePerStepAudit(exp, a, pos, e)
	case a.Estimator == "one_run" && a.Canaries == "input":
		validateInputCanaries(exp, a, pos, e)
	case a.Estimator == "one_run":
		validateGradientCanaries(exp, a, pos, e)
	default:
		validateClassicGame(exp, root, pos, e)
	}
}

// validateIdealAudit: the ideal mechanism is the malicious-dataset game
// on privatised gradients, with nothing trained.
func validateIdealAudit(exp *Experiment, a *Audit, pos func(string) Pos, e *errs) {
	if exp.Crafter != nil && exp.Crafter.Malicious == nil {
		e.add(pos("crafter.kind"), "crafter.kind", "the ideal mechanism is the malicious-dataset game: use crafter malicious_dataset or leave the crafter out")
	}
	if exp.Distinguisher != nil && exp.Distinguisher.Watermark == nil {
		e.add(pos("distinguisher.kind"), "distinguisher.kind", "the ideal mechanism releases privatised gradients only: use distinguisher watermark or leave it out")
	}
	if a.ThreatModel != "" && a.ThreatModel != "gradient" && a.ThreatModel != "malicious_dataset" {
		e.add(pos("audit.threat_model"), "audit.threat_model", "the ideal mechanism needs gradient access (gradient or malicious_dataset), got %s", a.ThreatModel)
	}
	if a.Estimator == "per_step" {
		e.add(pos("audit.estimator"), "audit.estimator", "the per-step audit trains a model with Dirac gradient canaries: it needs a trained model (model.arch other than ideal)")
	}
	if a.Canaries == "input" {
		e.add(pos("audit.canaries"), "audit.canaries", "input canaries are records in a training set: they need a trained model (model.arch other than ideal)")
	}
}

// validatePerStepAudit: every step's privatised update on the canary's
// parameter is an observation, and only white-box gradient access
// releases them.
func validatePerStepAudit(exp *Experiment, a *Audit, pos func(string) Pos, e *errs) {
	if a.ThreatModel != "" && a.ThreatModel != "gradient" {
		e.add(pos("audit.threat_model"), "audit.threat_model", "the per-step audit reads every step's privatised update, which threat model %s does not release: it needs threat_model gradient", a.ThreatModel)
	}
	if exp.Crafter != nil {
		e.add(pos("crafter"), "crafter", "the per-step audit inserts its own Dirac gradient canaries (audit.trials of them): remove the crafter block")
	}
	if exp.Distinguisher != nil {
		e.add(pos("distinguisher"), "distinguisher", "the per-step audit thresholds each step's canary projection: remove the distinguisher block")
	}
	if exp.Dataset == nil {
		e.add(pos("audit"), "audit", "an audit of a trained model needs a dataset block")
	}
	if a.Trials < 2 {
		e.add(pos("audit.trials"), "audit.trials", "the per-step audit needs at least 2 canaries (one inserted, one not), got %d", a.Trials)
	}
}

// validateGradientCanaries: one training run with Dirac gradient canaries,
// scored from the privatised updates, needs white-box gradient access and
// no crafter or distinguisher of the classic game.
func validateGradientCanaries(exp *Experiment, a *Audit, pos func(string) Pos, e *errs) {
	if a.ThreatModel != "" && a.ThreatModel != "gradient" {
		e.add(pos("audit.threat_model"), "audit.threat_model", "the one-run audit of a trained model with gradient canaries reads every privatised update: it needs threat_model gradient, got %s (audit.canaries: input audits canary records from the final model)", a.ThreatModel)
	}
	if exp.Crafter != nil {
		e.add(pos("crafter"), "crafter", "the one-run audit of a trained model inserts its own Dirac gradient canaries (audit.trials of them): remove the crafter block, or set audit.canaries: input for canary records")
	}
	if d := exp.Distinguisher; d != nil && (d.Watermark == nil || d.Watermark.Form == "watermark") {
		e.add(pos("distinguisher"), "distinguisher", "the one-run audit of a trained model with gradient canaries scores each canary by its log-likelihood ratio, or by its projection (distinguisher {kind: watermark, form: llr|projection}): remove the distinguisher block, or set audit.canaries: input for canary records")
	}
	if exp.Dataset == nil {
		e.add(pos("audit"), "audit", "an audit of a trained model needs a dataset block")
	}
}

// validateClassicGame: the classic game trains a model on a data set and
// needs the crafter and distinguisher its trials use (or placeholders a
// sweep fills in).
func validateClassicGame(exp *Experiment, root *Node, pos func(string) Pos, e *errs) {
	for _, need := range []struct {
		ok   bool
		name string
	}{{exp.Dataset != nil, "dataset"}, {exp.Crafter != nil || placeholder(root, "crafter"), "crafter"},
		{exp.Distinguisher != nil || placeholder(root, "distinguisher"), "distinguisher"}} {
		if !need.ok {
			e.add(pos("audit"), "audit", "an audit of a trained model needs a %s block", need.name)
		}
	}
}

// noShuffleAccountant is why a shuffled sampler has no accountant.
const noShuffleAccountant = "no tight upper bound on the privacy of shuffled batches is known, and accounting them as Poisson sampling is not valid (Chua et al., ICML 2024)"

// validateClaim checks that the audit's claim can be accounted. No
// accountant covers shuffled batches, so a claim of them — given, or
// inherited from dpsgd.sampling — is refused: the user either claims
// another sampler explicitly (auditing shuffled training against the
// Poisson analysis, as implementations do) or audits against a lower
// bound. Which accountant covers which other sampler and adjacency is
// package privacy's to say; the stage checks it before any trial runs.
func validateClaim(exp *Experiment, a *Audit, pos func(string) Pos, e *errs) {
	c := a.Claim
	if c != nil && c.NoiseMultiplier > 0 && a.ClaimedNoiseMultiplier > 0 {
		e.add(pos("audit.claimed_noise_multiplier"), "audit.claimed_noise_multiplier", "give claim.noise_multiplier or the deprecated claimed_noise_multiplier, not both")
	}
	sampling, path := "", "audit.claim.sampling"
	if c != nil {
		sampling = c.Sampling
	}
	if sampling == "" && exp.DPSGD != nil {
		sampling, path = exp.DPSGD.Sampling, "dpsgd.sampling"
	}
	if sampling == "shuffle" {
		e.add(pos(path), path, "the claim (shuffled batches) cannot be accounted: %s. To audit shuffled training against the Poisson analysis, set audit.claim.sampling: poisson; epsilon_shuffle_lb (the ideal mechanism) is a lower bound on its ε", noShuffleAccountant)
	}
}

// validateBoundSampling refuses an accountant bound of shuffled training:
// there is no valid accountant to run.
func validateBoundSampling(exp *Experiment, pos func(string) Pos, e *errs) {
	if exp.DPSGD == nil || exp.DPSGD.Sampling != "shuffle" {
		return
	}
	for i, b := range exp.Bound {
		if b.Accountant != nil {
			path := indexPath("bound", i)
			e.add(pos(path), path, "dpsgd.sampling shuffle cannot be accounted: %s", noShuffleAccountant)
		}
	}
}

func indexPath(key string, i int) string {
	return specPath{{Key: key}, {Index: i}}.String()
}

// placeholder reports whether path is a swept or derived value that the
// template holds as a placeholder (an expression).
func placeholder(root *Node, path string) bool {
	p, err := parsePath(path)
	if err != nil {
		return false
	}
	n := getPath(root, p)
	return n != nil && n.Kind == ScalarNode && n.Expr != ""
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

// validateBound checks the rules of the theoretical bounds that involve
// more than one key: which of the alternative inputs are given, and
// whether the dpsgd block they fall back on exists. Keys are looked up in
// the tree, where a swept or derived key is present as a placeholder.
func validateBound(exp *Experiment, b Bound, path string, root *Node, pos func(string) Pos, e *errs) {
	has := func(key string) bool {
		p, err := parsePath(path + "." + key)
		return err == nil && getPath(root, p) != nil
	}
	report := func(key, format string, args ...any) {
		e.add(pos(path+"."+key), path+"."+key, format, args...)
	}
	noDPSGD := exp.DPSGD == nil
	switch {
	case b.Rero != nil:
		if noDPSGD {
			report("kind", "the rero bound needs a dpsgd block (noise_multiplier, sampling_rate, steps)")
		}
		switch {
		case has("prior_size") && has("kappa"):
			report("kappa", "give prior_size or kappa, not both")
		case !has("prior_size") && !has("kappa"):
			report("kind", "the rero bound needs prior_size (a uniform prior over n candidates) or kappa")
		}
		if !has("prior_size") {
			for _, c := range b.Rero.Compare {
				if c == "guo_fano" || c == "guo_fano_mc" {
					report("compare", "comparator %s needs prior_size (its Fano bound is for a uniform prior over n candidates)", c)
				}
			}
		}
	case b.MSE != nil:
		if noDPSGD && !has("epsilon") {
			report("epsilon", "missing: mse_rdp needs epsilon (the order-2 RDP ε) or a dpsgd block to account it from")
		}
	case b.Minimax != nil:
		if noDPSGD && !has("epsilon") {
			report("epsilon", "missing: minimax_mse needs epsilon or a dpsgd block to account it from")
		}
		if has("delta") && !has("epsilon") {
			report("delta", "delta goes with epsilon; with ε accounted from dpsgd, δ is dpsgd.delta")
		}
	case b.Risk != nil:
		validateRiskBound(b.Risk, noDPSGD, has, report)
	case b.Belief != nil:
		var given []string
		for _, k := range []string{"epsilon", "target_rho_beta", "target_rho_alpha"} {
			if has(k) {
				given = append(given, k)
			}
		}
		if len(given) > 1 {
			report(given[1], "give at most one of epsilon, target_rho_beta and target_rho_alpha (got %s)", strings.Join(given, " and "))
		}
		if noDPSGD && len(given) == 0 {
			report("epsilon", "missing: the belief bound needs epsilon, target_rho_beta, target_rho_alpha or a dpsgd block to account ε from")
		}
		if noDPSGD && !has("delta") {
			report("delta", "missing: the belief bound needs delta (for ρ_α) when there is no dpsgd block")
		}
	}
}

// headlines are the estimate families each estimator reports, which
// audit.headline may pick.
var headlines = map[string][]string{
	"clopper_pearson": {"eps_delta_cp", "gdp_fit"},
	"one_run":         {"one_run", "one_run_fdp", "one_run_order_stats"},
	"per_step":        {"per_step_gdp"},
}

// validateHeadline checks that the headline is an estimate the estimator
// makes.
func validateHeadline(a *Audit, root *Node, pos func(string) Pos, e *errs) {
	if a.Headline == "" || placeholder(root, "audit.headline") {
		return
	}
	ok := headlines[a.Estimator]
	for _, h := range ok {
		if h == a.Headline {
			return
		}
	}
	e.add(pos("audit.headline"), "audit.headline", "estimator %s does not make a %s estimate; it offers %s", a.Estimator, a.Headline, strings.Join(ok, ", "))
}

// validateOneRun checks that no one-run estimator guesses more canaries
// than there are (the canaries are the trials).
func validateOneRun(a *Audit, pos func(string) Pos, e *errs) {
	if a.OneRun == nil {
		return
	}
	if a.Estimator != "one_run" {
		e.add(pos("audit.one_run"), "audit.one_run", "one_run guesses need estimator: one_run")
		return
	}
	for _, g := range []struct {
		n    int
		name string
	}{{a.OneRun.SteinkeGuesses, "steinke_guesses"}, {a.OneRun.FDPGuesses, "fdp_guesses"}, {a.OneRun.OrderStatsGuesses, "order_stats_guesses"}} {
		if a.Trials > 0 && g.n > a.Trials {
			e.add(pos("audit.one_run."+g.name), "audit.one_run."+g.name, "%d guesses but only %d canaries (audit.trials)", g.n, a.Trials)
		}
	}
}

// inputCanaryCrafters are the crafters that make canary records for a
// one-run audit: each of the audit.trials canaries is its own record.
var inputCanaryCrafters = map[string]bool{"random_record": true, "mislabeled_record": true, "noise_input": true}

// validateInputCanaries checks a one-run audit with canary records
// (audit.canaries: input): a crafter that makes distinct records, the
// loss of the final or every intermediate model as the score, and a
// dataset to train on. Whether the threat model grants the crafter and
// distinguisher, and whether the data holds audit.trials records, is
// checked by the stage.
func validateInputCanaries(exp *Experiment, a *Audit, pos func(string) Pos, e *errs) {
	if exp.Dataset == nil {
		e.add(pos("audit"), "audit", "an audit of a trained model needs a dataset block")
	}
	switch c := exp.Crafter; {
	case c == nil:
		e.add(pos("audit.canaries"), "audit.canaries", "input canaries need a crafter block that makes the canary records: random_record, mislabeled_record or noise_input")
	case c.Constant != nil:
		e.add(pos("crafter.kind"), "crafter.kind", "constant_input makes one record; %d identical canaries cannot be told apart by their scores: use noise_input (a fresh random input per canary), mislabeled_record or random_record", a.Trials)
	case !inputCanaryCrafters[c.Kind]:
		e.add(pos("crafter.kind"), "crafter.kind", "input canaries are records: use crafter random_record, mislabeled_record or noise_input, got %s", c.Kind)
	case c.RandomRecord != nil && c.RandomRecord.PerTrial:
		e.add(pos("crafter.per_trial"), "crafter.per_trial", "with input canaries every canary is its own record already: remove per_trial")
	case c.Mislabeled != nil && c.Mislabeled.PerTrial:
		e.add(pos("crafter.per_trial"), "crafter.per_trial", "with input canaries every canary is its own record already: remove per_trial")
	}
	switch d := exp.Distinguisher; {
	case d == nil:
		e.add(pos("audit.canaries"), "audit.canaries", "input canaries need a distinguisher block that scores them: loss_threshold (the final model's loss on each canary) or intermediate_loss (its loss on every intermediate model)")
	case d.Loss == nil && d.Intermediate == nil:
		e.add(pos("distinguisher.kind"), "distinguisher.kind", "input canaries of a one-run audit are scored by loss_threshold (the final model's loss) or intermediate_loss (the loss on every intermediate model); %s is not implemented yet for one-run audits", d.Kind)
	}
}

// validateSequential refuses what a sequential audit cannot do validly or
// does not implement (see audit/sequential.go).
func validateSequential(a *Audit, pos func(string) Pos, e *errs) {
	if a.Stop != "sequential" {
		if a.Sequential != nil {
			e.add(pos("audit.sequential"), "audit.sequential", "sequential settings need audit.stop: sequential")
		}
		return
	}
	switch a.Threshold {
	case "posthoc":
		e.add(pos("audit.threshold"), "audit.threshold", "stop: sequential cannot use posthoc thresholds: a threshold chosen on the trials it is evaluated on gives no valid bound at any look, so stopping on it is not anytime-valid; use threshold: split (each look chooses its threshold on its first split_fraction of the trials)")
	case "bonferroni":
		e.add(pos("audit.threshold"), "audit.threshold", "stop: sequential with threshold: bonferroni is not implemented yet; use threshold: split")
	}
	if a.Splits > 1 {
		e.add(pos("audit.splits"), "audit.splits", "stop: sequential uses one split per look; splits > 1 is not implemented for sequential audits")
	}
	if a.Estimator != "clopper_pearson" {
		e.add(pos("audit.estimator"), "audit.estimator", "stop: sequential supports estimator clopper_pearson only (the %s audit is one run, not a stream of trials)", a.Estimator)
	}
	if a.Repeats > 1 {
		e.add(pos("audit.repeats"), "audit.repeats", "stop: sequential audits are not repeated (each repeat would stop at its own look); run the spec with other seeds to see the spread")
	}
	if s := a.Sequential; s != nil && s.FirstLook != 0 {
		if s.FirstLook < 20 {
			e.add(pos("audit.sequential.first_look"), "audit.sequential.first_look", "must be ≥ 20 (each look's split needs trials of both worlds on both sides), got %d", s.FirstLook)
		} else if s.FirstLook > a.Trials {
			e.add(pos("audit.sequential.first_look"), "audit.sequential.first_look", "the first look (%d trials) exceeds the budget audit.trials = %d", s.FirstLook, a.Trials)
		}
	}
	if (a.Sequential == nil || a.Sequential.FirstLook == 0) && a.Trials < 100 {
		e.add(pos("audit.trials"), "audit.trials", "the budget (%d trials) is below the default first look of 100: set audit.sequential.first_look", a.Trials)
	}
}
