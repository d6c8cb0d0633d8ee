package membership

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// estimateParams is what the estimate depends on besides the trials.
type estimateParams struct {
	Key           string    `json:"point_key"`
	Estimator     string    `json:"estimator"`
	Method        string    `json:"threshold"`
	SplitFraction float64   `json:"split_fraction"`
	Splits        int       `json:"splits"`
	Grid          []float64 `json:"bonferroni_grid,omitempty"`
	Confidence    float64   `json:"confidence"`
	Delta         float64   `json:"delta"`
	Score         string    `json:"score"`
	LowerWorld1   bool      `json:"lower_means_world1"`
	Seed          int64     `json:"seed"`
	Trials        int       `json:"trials"`
	// Claim is what is audited (its ε is epsilon_accountant), Trained
	// what ran.
	Claim   mechanismConfig `json:"claim"`
	Trained mechanismConfig `json:"trained"`
	// Familywise is the correction the summary applies across points.
	Familywise string `json:"familywise"`
	// RepeatKeys are the trial keys of the repeats (RepeatKeys[0] = Key);
	// the inputs are the repeats' shards, repeat by repeat, Shards each.
	RepeatKeys []string `json:"repeat_keys,omitempty"`
	Shards     int      `json:"shards"`
	// OneRun: the guesses of the one-run estimators (estimator one_run).
	OneRun *spec.OneRun `json:"one_run,omitempty"`
	// Canaries: what a one-run audit's canaries are (column
	// one_run_canaries; empty for the ideal mechanism).
	Canaries string `json:"canaries,omitempty"`
	// Samples: the rows per repeat when they are not Trials; -1: as many
	// as the shards hold (per_step: set by the canaries' inclusion draws).
	Samples int `json:"samples,omitempty"`
	// Runs: per_step training runs pooled per repeat (the shards).
	Runs int `json:"runs,omitempty"`
	// TrainingRuns: DP-SGD trainings behind the estimate, all repeats (0
	// for the ideal mechanism, whose trials are simulated).
	TrainingRuns int `json:"training_runs,omitempty"`
	// Headline: the estimate family copied into the headline_* columns.
	Headline string `json:"headline,omitempty"`
	// MeasureCPU: add the measured audit_cpu_seconds.
	MeasureCPU bool `json:"measure_cpu,omitempty"`

	// Sequential: audit.stop sequential (audit_sequential.go).
	Sequential *seqParams `json:"sequential,omitempty"`
	// WorstCase: the last-iterate audit's θ_0 (audit.worst_case_init);
	// the craft node of repeat 0 is then the estimate's last input.
	WorstCase *worstCaseDiag `json:"worst_case_init,omitempty"`
}

// canaryResidual reads the canary_residual of a trial shard (nil when the
// game has no gradient canary).
func canaryResidual(dir string) (any, error) {
	t, err := pipeline.ReadParquet(filepath.Join(dir, stages.TrialsFile))
	if err != nil {
		return nil, err
	}
	c := t.Col("canary_residual")
	if c == nil || len(c.Values) == 0 || c.Values[0] == nil {
		return nil, nil
	}
	return c.Float(0), nil
}

// readTrials concatenates the shards' score column and world bits, in
// trial order (the split threshold depends on that order); total < 0 takes
// every row, shard by shard (per_step: the rows depend on the draws).
func readTrials(dirs []string, score string, total int) ([]float64, []bool, error) {
	scores := make([]float64, 0, max(total, 0))
	worlds := make([]bool, 0, max(total, 0))
	for _, d := range dirs {
		t, err := pipeline.ReadParquet(filepath.Join(d, stages.TrialsFile))
		if err != nil {
			return nil, nil, err
		}
		sc, wc, tc := t.Col(score), t.Col("world"), t.Col("trial")
		if sc == nil || wc == nil || tc == nil {
			return nil, nil, fmt.Errorf("%s: trial table has no %q column", d, score)
		}
		for i := range sc.Values {
			if total >= 0 && tc.Values[i].(int64) != int64(len(scores)) {
				return nil, nil, fmt.Errorf("%s: trial %v out of order (want %d)", d, tc.Values[i], len(scores))
			}
			scores = append(scores, sc.Float(i))
			worlds = append(worlds, wc.Values[i].(int64) == 1)
		}
	}
	if total >= 0 && len(scores) != total {
		return nil, nil, fmt.Errorf("found %d trials, want %d", len(scores), total)
	}
	return scores, worlds, nil
}

// repeatEstimate is one repeat's estimate: the outputs specific to the
// estimator, its ε lower bound and the p-value of the claim (NaN when the
// estimate is not valid).
type repeatEstimate struct {
	outs      []stages.Output
	family    string
	valid     bool
	epsLB     float64
	conf      float64
	method    string
	pValue    float64
	violation bool
	// extra: further bounds whose median over repeats is reported
	// (column name → value), in column order.
	extra []stages.Output
}

func estimateRepeat(p estimateParams, key string, scores []float64, worlds []bool, epsAcc float64) (repeatEstimate, error) {
	if p.Estimator == "one_run" {
		return oneRunEstimate(p, scores, worlds, epsAcc)
	}
	if p.Estimator == "per_step" {
		return perStepEstimate(p, scores, worlds, epsAcc)
	}
	o := audit.DefaultOptions()
	o.Delta, o.Confidence, o.SplitFraction, o.Grid = p.Delta, p.Confidence, p.SplitFraction, p.Grid
	o.Splits = p.Splits
	o.Method = map[string]audit.Method{"split": audit.Split, "posthoc": audit.PostHoc, "bonferroni": audit.Bonferroni}[p.Method]
	o.Seed = rng.Seed(uint64(p.Seed), "audit", key)
	o.LowerMeansWorld1 = p.LowerWorld1
	r, err := audit.Estimate(scores, worlds, o)
	if err != nil {
		return repeatEstimate{}, err
	}
	var extra []stages.Output
	if p.WorstCase != nil {
		// The last-iterate paper's number: its seed spread over repeats.
		extra = []stages.Output{stages.F64("epsilon_gdp_estimate_lo", r.GDP.EpsilonLower)}
	}
	return repeatEstimate{
		extra: extra,
		outs: []stages.Output{
			stages.F64("epsilon_point", r.EpsilonPoint),
			stages.F64("threshold", r.Threshold),
			stages.F64("fpr", r.FPR),
			stages.F64("fnr", r.FNR),
			stages.F64("fpr_upper", r.FPRUpper),
			stages.F64("fnr_upper", r.FNRUpper),
			stages.F64("attack_accuracy", r.Accuracy),
			stages.F64("max_accuracy", r.MaxAccuracy),
			stages.F64("auc", r.AUC),
			stages.F64("tpr_at_fpr_0_1pct", r.TPRAtFPR1e3),
			stages.F64("tpr_at_fpr_1pct", r.TPRAtFPR1e2),
			stages.F64("gdp_mu", r.GDP.Mu),
			stages.F64("gdp_mu_lo", r.GDP.MuLower),
			stages.F64("gdp_mu_hi", r.GDP.MuUpper),
			stages.F64("epsilon_gdp_estimate", r.GDP.Epsilon),
			stages.F64("epsilon_gdp_estimate_lo", r.GDP.EpsilonLower),
			stages.F64("epsilon_gdp_estimate_hi", r.GDP.EpsilonUpper),
			// The seed of the split (and of a Bonferroni grid's held-out
			// share): with it, dpaudit estimate --split-seed recomputes
			// the row from the trials table alone.
			stages.Str("split_seed", strconv.FormatUint(o.Seed, 10)),
		},
		family: r.Family, valid: r.Valid, epsLB: r.EpsilonLB, conf: r.Confidence, method: r.Method,
		pValue: r.PValue(epsAcc), violation: r.ViolatesClaim(epsAcc),
	}, nil
}

func runEstimate(p estimateParams, dirs []string) ([]stages.Output, error) {
	epsAcc, err := claimEpsilon(p.Claim, p.Delta)
	if err != nil {
		return nil, err
	}
	reps, err := repeatEstimates(p, dirs, epsAcc)
	if err != nil {
		return nil, err
	}
	first := reps[0]
	// One violation test over all repeats: Bonferroni over the R
	// independent audits (for R = 1 the repeat's own test).
	pv, violation := math.NaN(), false
	if first.valid {
		ps := make([]float64, len(reps))
		for r, re := range reps {
			ps[r] = re.pValue
		}
		pv = audit.BonferroniPValue(ps)
		violation = first.violation
		if len(reps) > 1 {
			violation = audit.Below(pv, 1-p.Confidence, audit.ClaimTolerance)
		}
	}
	outs := append(headOutputs(p, reps), first.outs...)
	outs = append(outs, extraSpread(reps)...)
	tail, err := claimColumns(p, epsAcc, pv, violation, dirs[0])
	if err != nil {
		return nil, err
	}
	return withHeadline(p, append(outs, tail...))
}

// repeatEstimates reads every repeat's trials (p.Shards shards each, in
// order) and estimates each repeat on its own.
func repeatEstimates(p estimateParams, dirs []string, epsAcc float64) ([]repeatEstimate, error) {
	keys := p.RepeatKeys
	if len(keys) == 0 {
		keys = []string{p.Key}
	}
	if len(dirs) != len(keys)*p.Shards {
		return nil, fmt.Errorf("estimate: %d trial shards for %d repeats of %d shards", len(dirs), len(keys), p.Shards)
	}
	var reps []repeatEstimate
	for r, key := range keys {
		rows := p.Trials
		if p.Samples != 0 {
			rows = p.Samples
		}
		scores, worlds, err := readTrials(dirs[r*p.Shards:(r+1)*p.Shards], p.Score, rows)
		if err != nil {
			return nil, err
		}
		re, err := estimateRepeat(p, key, scores, worlds, epsAcc)
		if err != nil {
			return nil, fmt.Errorf("repeat %d: %w", r, err)
		}
		reps = append(reps, re)
	}
	return reps, nil
}

// headOutputs are the first columns of an audit's row: repeat 0's
// estimate, and the spread of ε_lb over the repeats.
func headOutputs(p estimateParams, reps []repeatEstimate) []stages.Output {
	first := reps[0]
	lbs := make([]float64, len(reps))
	for r, re := range reps {
		lbs[r] = re.epsLB
	}
	list, _ := json.Marshal(lbs)
	sorted := slices.Sorted(slices.Values(lbs))
	return []stages.Output{
		stages.Int("audit_trials", int64(p.Trials)),
		stages.Str("audit_score", p.Score),
		stages.Str("threshold_method", first.method),
		stages.F64("epsilon_lb", first.epsLB),
		stages.Str("estimate_family", first.family),
		stages.Bool("estimate_valid", first.valid),
		stages.F64("epsilon_lb_confidence", first.conf),
		stages.Int("audit_repeats", int64(len(reps))),
		stages.F64("epsilon_lb_median", audit.Median(lbs)),
		stages.F64("epsilon_lb_min", sorted[0]),
		stages.F64("epsilon_lb_max", sorted[len(sorted)-1]),
		stages.Str("epsilon_lb_repeats", string(list)),
	}
}

// extraSpread is the median, min and max over repeats of each further
// bound the estimator reports (NaN min and max when a repeat has none).
func extraSpread(reps []repeatEstimate) []stages.Output {
	var outs []stages.Output
	for i, x := range reps[0].extra {
		vals := make([]float64, len(reps))
		for r, re := range reps {
			vals[r] = re.extra[i].Value.(float64)
		}
		lo, hi := math.NaN(), math.NaN()
		if !slices.ContainsFunc(vals, math.IsNaN) {
			lo, hi = slices.Min(vals), slices.Max(vals)
		}
		outs = append(outs, stages.F64(x.Name+"_median", audit.Median(vals)),
			stages.F64(x.Name+"_min", lo), stages.F64(x.Name+"_max", hi))
	}
	return outs
}

// mechanismOutputs are the columns <prefix>_noise_multiplier …
// <prefix>_adjacency describing one DP-SGD configuration (the claim's or
// the trained one).
func mechanismOutputs(prefix string, m mechanismConfig) []stages.Output {
	return []stages.Output{
		stages.F64(prefix+"_noise_multiplier", m.NoiseMultiplier),
		stages.Str(prefix+"_sampling", m.Sampling),
		stages.F64(prefix+"_sampling_rate", m.SamplingRate),
		stages.Int(prefix+"_steps", int64(m.Steps)),
		stages.Str(prefix+"_clip", m.Clip),
		stages.Str(prefix+"_adjacency", m.Adjacency),
	}
}

// claimColumns are the last columns of every audit's row: the claim, what
// was trained, the violation test's p-value and verdict, and the canary
// residual of the first trial shard.
func claimColumns(p estimateParams, epsAcc, pv float64, violation bool, firstShard string) ([]stages.Output, error) {
	c, t := p.Claim, p.Trained
	shuffleLB, err := shuffleEpsilonLB(p.Trained, p.Delta)
	if err != nil {
		return nil, err
	}
	var outs []stages.Output
	outs = append(outs,
		stages.F64("epsilon_accountant", epsAcc),
		stages.F64("epsilon_shuffle_lb", shuffleLB),
		stages.Bool("shuffle_accounted_as_poisson", p.Trained.Sampling == "shuffle" && p.Claim.Sampling == "poisson"),
		stages.Str("claim_accountant", c.Accountant),
	)
	outs = append(outs, mechanismOutputs("claim", c)...)
	outs = append(outs, mechanismOutputs("trained", t)...)
	outs = append(outs,
		stages.Bool("claim_matches_training", c.sameMechanism(t)),
		stages.Str("claim_config", c.String()),
		stages.Str("trained_config", t.String()),
		stages.F64("violation_p_value", pv),
		stages.Bool("violation_uncorrected", violation),
		stages.Str("familywise", p.Familywise),
	)
	residual, err := canaryResidual(firstShard)
	if err != nil {
		return nil, err
	}
	outs = append(outs, stages.F64("canary_residual", residual))
	outs = append(outs, stages.Int("audit_training_runs", int64(p.TrainingRuns)))
	return append(outs, optionOutputs(p)...), nil
}

// optionOutputs are the estimator options that change a number and are
// not columns already, so that dpaudit estimate recomputes the row from
// the published tables alone. They are named estimate_* because a swept
// audit.split_fraction is itself a column named split_fraction. As in
// dpaudit estimate's summary, each is the option's value whether or not
// this estimator uses it (the split's options: classic and sequential
// audits); a Bonferroni grid given in the spec is a JSON list (else
// empty).
func optionOutputs(p estimateParams) []stages.Output {
	f := p.SplitFraction
	if f == 0 {
		f = audit.DefaultSplitFraction
	}
	grid := ""
	if p.Grid != nil {
		b, _ := json.Marshal(p.Grid)
		grid = string(b)
	}
	return []stages.Output{
		stages.F64("estimate_delta", p.Delta),
		stages.Bool("estimate_lower_is_member", p.LowerWorld1),
		stages.F64("estimate_split_fraction", f),
		stages.Int("estimate_splits", int64(max(p.Splits, 1))),
		stages.Str("estimate_bonferroni_grid", grid),
	}
}

// withHeadline appends the headline_* columns (audit.headline), copied
// from the estimate's whole row.
func withHeadline(p estimateParams, outs []stages.Output) ([]stages.Output, error) {
	if p.Headline == "" {
		return outs, nil
	}
	h, err := headlineOutputs(p.Headline, outs)
	if err != nil {
		return nil, err
	}
	return append(outs, h...), nil
}
