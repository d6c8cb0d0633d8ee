package membership

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// An audit point becomes: one craft node (the crafter's worlds, shared by
// every distinguisher and trial count), trial shards of a fixed number of
// trials each, and one estimate node over all shards. Trial i's randomness
// is rng.New(seed, "trial", pointKey, i) — it depends on the spec seed, the
// game's configuration and i only, never on the shard or the worker, so
// results are identical for any shard size and any -j. The ideal mechanism
// has no craft node: its trials simulate the scalar observation stream.
const (
	craftVersion    = 1
	trialsVersion   = 2 // 2: the repeat column
	estimateVersion = 5 // 2: claim vs trained, estimate families, p-values, repeats; 3: best accountant, PLD rounding bounds; 4: one-run f-DP and order statistics; 5: audit_training_runs, headline_*, audit_cpu_seconds

	craftFile = "crafted.json"

	defaultShard      = 64
	defaultIdealShard = 1 << 16
)

// auditGame is everything a trial depends on besides the crafted worlds.
type auditGame struct {
	Data          stages.DataParams  `json:"data"`
	Arch          learn.Arch         `json:"arch"`
	DPSGD         stages.TrainDPSGD  `json:"dpsgd"` // what training really does (σ_actual)
	Claimed       float64            `json:"claimed_noise_multiplier"`
	Crafter       spec.Crafter       `json:"crafter"`
	Distinguisher spec.Distinguisher `json:"distinguisher"`
	Threat        string             `json:"threat_model"`
	RandomInit    bool               `json:"random_init"`
	Seed          int64              `json:"seed"`
}

// craftParams is what the crafter depends on: the adversary knows the
// configuration as claimed.
type craftParams struct {
	Data    stages.DataParams `json:"data"`
	Arch    learn.Arch        `json:"arch"`
	DPSGD   stages.TrainDPSGD `json:"dpsgd"`
	Crafter spec.Crafter      `json:"crafter"`
	Seed    uint64            `json:"seed"`
	Init    uint64            `json:"init_seed"`
	// WorstCase pre-trains θ_0 on Data's held-out records (absent: the
	// key of a craft without it is unchanged).
	WorstCase *spec.WorstCaseInit `json:"worst_case_init,omitempty"`
}

type shardParams struct {
	Key    string    `json:"point_key"`
	Game   auditGame `json:"game"`
	First  int       `json:"first"`
	Count  int       `json:"count"`
	Repeat int       `json:"repeat,omitempty"` // 0 keeps the key of an audit without repeats
}

type idealShardParams struct {
	Key         string  `json:"point_key"`
	Seed        int64   `json:"seed"`
	Sampling    float64 `json:"sampling_rate"`
	Steps       int     `json:"steps"`
	Sigma       float64 `json:"noise_multiplier"`
	SigmaD      float64 `json:"distinguisher_noise_multiplier"`
	RandomWorld bool    `json:"random_worlds"`     // one-run audits: each canary in with probability ½
	Shuffle     bool    `json:"shuffle,omitempty"` // shuffled batches (attack.IdealMechanism.Shuffle)
	First       int     `json:"first"`
	Count       int     `json:"count"`
	Repeat      int     `json:"repeat,omitempty"`
}

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

// mechanismConfig is a DP-SGD configuration as an accountant sees it: the
// audit's claim, or what was trained (Accountant empty).
type mechanismConfig struct {
	Accountant      string  `json:"accountant,omitempty"`
	NoiseMultiplier float64 `json:"noise_multiplier"`
	Sampling        string  `json:"sampling"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
	Clip            string  `json:"clip"`
	Adjacency       string  `json:"adjacency"`
}

// softClipSensitivity is the soft clip's largest output norm in units of
// C (learn.ClipSoft, Guo et al. 2022 §6.2).
const softClipSensitivity = 1.11524

// accountedSigma is the noise multiplier of the sensitivity-C mechanism
// the claim is equivalent to: noise σC on a sum whose sensitivity is s·C
// is the Gaussian mechanism with noise multiplier σ/s. Replace-one
// adjacency moves the sum by up to 2C (one record out, another in); the
// soft clip's outputs reach 1.11524·C.
func (m mechanismConfig) accountedSigma() float64 {
	s := 1.0
	if m.Adjacency == "replace" {
		s *= 2
	}
	if m.Clip == "soft" {
		s *= softClipSensitivity
	}
	return m.NoiseMultiplier / s
}

// String is the configuration in one line, for violation messages.
func (m mechanismConfig) String() string {
	acc := ""
	if m.Accountant != "" {
		acc = m.Accountant + " accountant, "
	}
	return fmt.Sprintf("%sσ=%.4g, %s sampling q=%.4g, T=%d, %s clip, %s", acc, m.NoiseMultiplier, m.Sampling, m.SamplingRate, m.Steps, m.Clip, m.Adjacency)
}

func (m mechanismConfig) sameMechanism(o mechanismConfig) bool {
	m.Accountant, o.Accountant = "", ""
	return m == o
}

// claimOf resolves the audit's claim against the trained configuration:
// every absent key is the trained one.
func claimOf(a *spec.Audit, trained mechanismConfig) mechanismConfig {
	c := trained
	c.Accountant = a.Accountant
	if a.ClaimedNoiseMultiplier > 0 {
		c.NoiseMultiplier = a.ClaimedNoiseMultiplier
	}
	if cl := a.Claim; cl != nil {
		if cl.Accountant != "" {
			c.Accountant = cl.Accountant
		}
		if cl.NoiseMultiplier > 0 {
			c.NoiseMultiplier = cl.NoiseMultiplier
		}
		if cl.Sampling != "" {
			c.Sampling = cl.Sampling
		}
		if cl.SamplingRate > 0 {
			c.SamplingRate = cl.SamplingRate
		}
		if cl.Steps > 0 {
			c.Steps = cl.Steps
		}
		if cl.Clip != "" {
			c.Clip = cl.Clip
		}
		if cl.Adjacency != "" {
			c.Adjacency = cl.Adjacency
		}
	}
	return c
}

// auditGameFor checks the game of a trained model at compile time (threat
// model, data, model) and adds its craft node.
// Repeat r > 0 crafts again with seeds derived from r (the whole audit is
// repeated); repeat 0 keeps the seeds of an audit without repeats.
func auditGameFor(b *stages.Build, claimed float64, repeat int) (auditGame, *pipeline.Node, error) {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return auditGame{}, nil, err
	}
	crafter, err := crafterFor(exp.Crafter)
	if err == nil {
		err = crafter.Validate()
	}
	if err != nil {
		return auditGame{}, nil, &stages.PathError{Path: "crafter", Err: err}
	}
	dist, err := distinguisherFor(exp.Distinguisher)
	if err == nil {
		err = dist.Validate()
	}
	if err != nil {
		return auditGame{}, nil, &stages.PathError{Path: "distinguisher", Err: err}
	}
	if err := attack.CheckPair(crafter, dist, attack.ThreatModels[exp.Audit.ThreatModel]); err != nil {
		return auditGame{}, nil, &stages.PathError{Path: "audit.threat_model", Err: err}
	}
	d := exp.DPSGD
	td := stages.TrainConfig(d)
	game := auditGame{Data: data, Arch: arch, DPSGD: td, Claimed: claimed, Crafter: *exp.Crafter,
		Distinguisher: *exp.Distinguisher, Threat: exp.Audit.ThreatModel, RandomInit: exp.Audit.RandomInit, Seed: exp.Seed}
	known := td
	known.NoiseMultiplier = claimed
	cp := craftParams{Data: data, Arch: arch, DPSGD: known, Crafter: *exp.Crafter}
	if wc := exp.Audit.WorstCaseInit; wc != nil {
		if cp.Data, err = worstCaseData(exp, data, env.DataDir); err != nil {
			return auditGame{}, nil, err
		}
		w := *wc
		cp.WorstCase = &w
	}
	ck := stages.HashKey(cp)
	cp.Seed = rng.Seed(uint64(exp.Seed), "craft", stages.RepeatKey(ck, repeat))
	cp.Init = rng.Seed(uint64(exp.Seed), "init", stages.RepeatKey(ck, repeat))
	craft := b.Add(&pipeline.Node{
		Kind: "craft", Version: craftVersion, Params: cp,
		Label: fmt.Sprintf("%s on %s %s", exp.Crafter.Kind, data.Source.Name, arch.Kind),
		Slot:  fmt.Sprintf("%s/craft/%d%s", name, pt.Index, stages.RepeatSlot(repeat)),
		Run:   func(ctx context.Context, w *pipeline.Work) error { return runCraft(cp, env.DataDir, w) },
	})
	return game, craft, nil
}

func runCraft(p craftParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	c, err := crafterFor(&p.Crafter)
	if err != nil {
		return err
	}
	tr, te := split.Train, split.Test
	c = withClamp(c, &p.Crafter, tr.X)
	crafted, err := c.Craft(attack.CraftInput{
		Arch: p.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: p.DPSGD.Learn(),
		X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y, Seed: p.Seed, InitSeed: p.Init,
	})
	if err != nil {
		return err
	}
	if p.WorstCase != nil {
		if err := worstCaseInit(crafted, p, split); err != nil {
			return err
		}
	}
	b, err := crafted.MarshalBinary()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.Dir, craftFile), b, 0o644)
}

func runTrialShard(ctx context.Context, p shardParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Game.Data, dataDir)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(w.Input(0), craftFile))
	if err != nil {
		return err
	}
	crafted := new(attack.Crafted)
	if err := crafted.UnmarshalBinary(b); err != nil {
		return err
	}
	dist, err := distinguisherFor(&p.Game.Distinguisher)
	if err != nil {
		return err
	}
	tr := split.Train
	game, err := attack.NewGame(attack.GameConfig{
		Arch: p.Game.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: p.Game.DPSGD.Learn(),
		ClaimedNoiseMultiplier: p.Game.Claimed, X: tr.X, Y: tr.Y, PoolX: split.Test.X, PoolY: split.Test.Y, Crafted: crafted, Distinguisher: dist,
		Threat: attack.ThreatModels[p.Game.Threat], RandomInit: p.Game.RandomInit,
	})
	if err != nil {
		return err
	}
	names := dist.ScoreNames()
	n := p.Count
	trial, world := make([]any, n), make([]any, n)
	scores := make([][]any, len(names))
	for j := range scores {
		scores[j] = make([]any, n)
	}
	canary, target, empty, batch := make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for k := 0; k < n; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := p.First + k
		r, err := game.RunTrialIndex(uint64(p.Game.Seed), p.Key, i)
		if err != nil {
			return fmt.Errorf("trial %d: %w", i, err)
		}
		trial[k], world[k] = int64(i), int64(r.World)
		for j := range names {
			scores[j][k] = r.Scores[j]
		}
		canary[k], target[k], empty[k], batch[k] = int64(r.CanarySteps), int64(r.TargetSteps), int64(r.EmptyBatches), r.MeanBatchSize
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, repeatColumn(p.Repeat, n))
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	for j, name := range names {
		if err := t.Add(name, pipeline.Float64, scores[j]); err != nil {
			return err
		}
	}
	// The data's own clipped gradient mass on the canary's coordinates in
	// the crafter's reference run (0 when nothing but noise competes with
	// the canary; null without a gradient canary).
	residual := make([]any, n)
	if crafted.Canary != nil {
		var m float64
		for _, v := range crafted.Canary.Measure {
			m += v
		}
		for k := range residual {
			residual[k] = m
		}
	}
	t.Add("canary_residual", pipeline.Float64, residual)
	t.Add("canary_steps", pipeline.Int64, canary)
	t.Add("target_steps", pipeline.Int64, target)
	t.Add("empty_batches", pipeline.Int64, empty)
	t.Add("mean_batch_size", pipeline.Float64, batch)
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

func runIdealShard(ctx context.Context, p idealShardParams, w *pipeline.Work) error {
	worlds := attack.IdealAlternate
	if p.RandomWorld {
		worlds = attack.IdealRandom
	}
	res, err := attack.SimulateIdeal(attack.IdealRun{
		Mechanism:          attack.IdealMechanism{SamplingRate: p.Sampling, Steps: p.Steps, NoiseMultiplier: p.Sigma, Shuffle: p.Shuffle},
		DistinguisherSigma: p.SigmaD,
		Seed:               uint64(p.Seed), Path: []any{"trial", p.Key},
		First: p.First, Count: p.Count, Worlds: worlds, Workers: 1,
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(res.Index)
	cols := map[string][]any{"trial": make([]any, n), "world": make([]any, n), "projection": make([]any, n), "watermark": make([]any, n), "llr": make([]any, n)}
	for k := 0; k < n; k++ {
		cols["trial"][k] = int64(res.Index[k])
		wv := int64(0)
		if res.World[k] {
			wv = 1
		}
		cols["world"][k] = wv
		cols["projection"][k], cols["watermark"][k], cols["llr"][k] = res.Projection[k], res.Watermark[k], res.LLR[k]
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, repeatColumn(p.Repeat, n))
	t.Add("trial", pipeline.Int64, cols["trial"])
	zeros := make([]any, n)
	for k := range zeros {
		zeros[k] = 0.0
	}
	t.Add("canary_residual", pipeline.Float64, zeros) // no data gradient by construction
	t.Add("world", pipeline.Int64, cols["world"])
	for _, c := range []string{"projection", "watermark", "llr"} {
		t.Add(c, pipeline.Float64, cols[c])
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

func repeatColumn(r, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = int64(r)
	}
	return out
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

// estimateColumns are the summary columns of an audit (the summary adds
// violation and violation_familywise, see applyFamilywise).
func estimateColumns(ep estimateParams) []string {
	cols := estimatorColumns(ep.Estimator)
	cols = append(cols, "audit_training_runs")
	if ep.Headline != "" {
		cols = append(cols, headlineColumns...)
	}
	if ep.MeasureCPU {
		cols = append(cols, "audit_cpu_seconds")
	}
	return cols
}

func estimatorColumns(estimator string) []string {
	head := []string{"audit_trials", "audit_score", "threshold_method", "epsilon_lb", "estimate_family", "estimate_valid", "epsilon_lb_confidence",
		"audit_repeats", "epsilon_lb_median", "epsilon_lb_min", "epsilon_lb_max", "epsilon_lb_repeats"}
	tail := []string{"epsilon_accountant", "epsilon_shuffle_lb", "shuffle_accounted_as_poisson",
		"claim_accountant", "claim_noise_multiplier", "claim_sampling", "claim_sampling_rate", "claim_steps", "claim_clip", "claim_adjacency",
		"trained_noise_multiplier", "trained_sampling", "trained_sampling_rate", "trained_steps", "trained_clip", "trained_adjacency",
		"claim_matches_training", "claim_config", "trained_config", "violation_p_value", "violation_uncorrected", "familywise", "canary_residual"}
	if estimator == "one_run" {
		return slices.Concat(head, oneRunColumns, tail)
	}
	if estimator == "per_step" {
		return slices.Concat(head, perStepColumns, tail)
	}
	return slices.Concat(head, []string{"epsilon_point", "threshold", "fpr", "fnr", "fpr_upper", "fnr_upper", "attack_accuracy", "max_accuracy", "auc",
		"tpr_at_fpr_0_1pct", "tpr_at_fpr_1pct", "gdp_mu", "gdp_mu_lo", "gdp_mu_hi",
		"epsilon_gdp_estimate", "epsilon_gdp_estimate_lo", "epsilon_gdp_estimate_hi"}, tail)
}

// claimEpsilon is the claim's ε at δ: its accountant on the
// sensitivity-C equivalent of the claimed mechanism (+Inf without noise).
func claimEpsilon(c mechanismConfig, delta float64) (float64, error) {
	if c.NoiseMultiplier == 0 {
		return math.Inf(1), nil
	}
	acc := privacy.Accountant(c.Accountant)
	if acc == "" {
		acc = privacy.AccountantBest
	}
	return privacy.Epsilon(acc,
		privacy.SampledGaussian{NoiseMultiplier: c.accountedSigma(), SamplingRate: c.SamplingRate, Steps: c.Steps}, delta, privacy.Options{})
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
	first := reps[0]
	lbs := make([]float64, len(reps))
	for r, re := range reps {
		lbs[r] = re.epsLB
	}
	sorted := slices.Sorted(slices.Values(lbs))
	list, _ := json.Marshal(lbs)
	// One violation test over all repeats: Bonferroni over the R
	// independent audits (for R = 1 the repeat's own test).
	pv, violation := math.NaN(), false
	if first.valid {
		pv = 1.0
		for _, re := range reps {
			pv = math.Min(pv, re.pValue)
		}
		pv = math.Min(1, pv*float64(len(reps)))
		violation = first.violation
		if len(reps) > 1 {
			violation = audit.Below(pv, 1-p.Confidence, audit.ClaimTolerance)
		}
	}
	outs := []stages.Output{
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
	outs = append(outs, first.outs...)
	for i, x := range first.extra {
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
	tail, err := claimColumns(p, epsAcc, pv, violation, dirs[0])
	if err != nil {
		return nil, err
	}
	return withHeadline(p, append(outs, tail...))
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
	return outs, nil
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
