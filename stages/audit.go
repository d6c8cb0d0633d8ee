package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
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
	trialsVersion   = 1
	estimateVersion = 2 // 2: epsilon_accountant defaults to best; PLD carries rounding bounds

	// TrialsFile is a trial shard's output table.
	TrialsFile = "trials.parquet"
	craftFile  = "crafted.json"

	defaultShard      = 64
	defaultIdealShard = 1 << 16
)

// auditGame is everything a trial depends on besides the crafted worlds.
type auditGame struct {
	Data          dataParams         `json:"data"`
	Arch          learn.Arch         `json:"arch"`
	DPSGD         trainDPSGD         `json:"dpsgd"` // what training really does (σ_actual)
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
	Data    dataParams   `json:"data"`
	Arch    learn.Arch   `json:"arch"`
	DPSGD   trainDPSGD   `json:"dpsgd"`
	Crafter spec.Crafter `json:"crafter"`
	Seed    uint64       `json:"seed"`
	Init    uint64       `json:"init_seed"`
}

type shardParams struct {
	Key   string    `json:"point_key"`
	Game  auditGame `json:"game"`
	First int       `json:"first"`
	Count int       `json:"count"`
}

type idealShardParams struct {
	Key         string  `json:"point_key"`
	Seed        int64   `json:"seed"`
	Sampling    float64 `json:"sampling_rate"`
	Steps       int     `json:"steps"`
	Sigma       float64 `json:"noise_multiplier"`
	SigmaD      float64 `json:"distinguisher_noise_multiplier"`
	RandomWorld bool    `json:"random_worlds"` // one-run audits: each canary in with probability ½
	First       int     `json:"first"`
	Count       int     `json:"count"`
}

// estimateParams is what the estimate depends on besides the trials.
type estimateParams struct {
	Key           string    `json:"point_key"`
	Estimator     string    `json:"estimator"`
	Method        string    `json:"threshold"`
	SplitFraction float64   `json:"split_fraction"`
	Grid          []float64 `json:"bonferroni_grid,omitempty"`
	Confidence    float64   `json:"confidence"`
	Delta         float64   `json:"delta"`
	Score         string    `json:"score"`
	LowerWorld1   bool      `json:"lower_means_world1"`
	Seed          int64     `json:"seed"`
	Trials        int       `json:"trials"`
	// The accountant's claim: ε of the (claimed) mechanism at δ.
	Accountant string  `json:"accountant"`
	Sigma      float64 `json:"noise_multiplier"`
	Sampling   float64 `json:"sampling_rate"`
	Steps      int     `json:"steps"`
}

func hashKey(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// auditStages builds the audit of one point.
func auditStages(name string, pt spec.Point, env Env, g *pipeline.Graph) (pointStage, []*pipeline.Node, error) {
	exp, a := pt.Exp, pt.Exp.Audit
	d := exp.DPSGD
	claimed := a.ClaimedNoiseMultiplier
	if claimed == 0 {
		claimed = d.NoiseMultiplier
	}
	ep := estimateParams{
		Estimator: a.Estimator, Method: a.Threshold, SplitFraction: a.SplitFraction, Grid: a.BonferroniGrid, Confidence: a.Confidence,
		Delta: d.Delta, Seed: exp.Seed, Trials: a.Trials, Accountant: a.Accountant,
		Sigma: claimed, Sampling: d.SamplingRate, Steps: d.Steps,
	}
	var shards []*pipeline.Node
	var label string
	if exp.Model.Ideal != nil {
		sp := idealShardParams{Seed: exp.Seed, Sampling: d.SamplingRate, Steps: d.Steps, Sigma: d.NoiseMultiplier,
			SigmaD: claimed, RandomWorld: a.Estimator == "one_run"}
		form := "llr"
		if exp.Distinguisher != nil && exp.Distinguisher.Watermark != nil {
			form = exp.Distinguisher.Watermark.Form
		}
		sp.Key = hashKey(sp)
		ep.Key, ep.Score = sp.Key, form
		label = fmt.Sprintf("ideal σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := a.ShardSize
		if size == 0 {
			size = defaultIdealShard
		}
		for first, k := 0, 0; first < a.Trials; first, k = first+size, k+1 {
			p := sp
			p.First, p.Count = first, min(size, a.Trials-first)
			shards = append(shards, g.Add(&pipeline.Node{
				Kind: "trials", Version: trialsVersion, Params: p,
				Label: fmt.Sprintf("%s trials %d–%d", label, p.First, p.First+p.Count-1),
				Slot:  fmt.Sprintf("%s/trials/%d/%d", name, pt.Index, k),
				Run:   func(ctx context.Context, w *pipeline.Work) error { return runIdealShard(ctx, p, w) },
			}))
		}
	} else {
		game, craft, err := auditGameFor(name, pt, env, claimed, g)
		if err != nil {
			return pointStage{}, nil, err
		}
		dist, _ := distinguisherFor(exp.Distinguisher)
		key := hashKey(game)
		ep.Key, ep.Score, ep.LowerWorld1 = key, dist.ScoreNames()[0], dist.LowerMeansWorld1()
		label = fmt.Sprintf("%s/%s σ=%.4g q=%.4g T=%d", exp.Crafter.Kind, exp.Distinguisher.Kind, d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := a.ShardSize
		if size == 0 {
			size = defaultShard
		}
		for first, k := 0, 0; first < a.Trials; first, k = first+size, k+1 {
			p := shardParams{Key: key, Game: game, First: first, Count: min(size, a.Trials-first)}
			shards = append(shards, g.Add(&pipeline.Node{
				Kind: "trials", Version: trialsVersion, Params: p, Inputs: []*pipeline.Node{craft},
				Label: fmt.Sprintf("%s trials %d–%d", label, p.First, p.First+p.Count-1),
				Slot:  fmt.Sprintf("%s/trials/%d/%d", name, pt.Index, k),
				Run: func(ctx context.Context, w *pipeline.Work) error {
					return runTrialShard(ctx, p, env.DataDir, w)
				},
			}))
		}
	}
	est := &pipeline.Node{
		Kind: "estimate", Version: estimateVersion, Params: ep, Inputs: shards,
		Label: fmt.Sprintf("%s (%d trials, %s)", label, a.Trials, a.Threshold),
		Slot:  fmt.Sprintf("%s/estimate/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runEstimate(ep, w.Inputs)
			if err != nil {
				return err
			}
			return writeValues(w.Dir, outs)
		},
	}
	return pointStage{node: est, columns: estimateColumns(ep.Estimator)}, shards, nil
}

// auditGameFor checks the game of a trained model at compile time (threat
// model, data, model) and adds its craft node.
func auditGameFor(name string, pt spec.Point, env Env, claimed float64, g *pipeline.Graph) (auditGame, *pipeline.Node, error) {
	exp := pt.Exp
	arch, flatten, err := archFor(exp.Model)
	if err != nil {
		return auditGame{}, nil, &PathError{"model.arch", err}
	}
	data, err := datasetParams(exp.Dataset, exp.Seed, flatten)
	if err != nil {
		return auditGame{}, nil, &PathError{"dataset.source", err}
	}
	if err := checkTrainable(data, arch, env.DataDir); err != nil {
		return auditGame{}, nil, err
	}
	crafter, err := crafterFor(exp.Crafter)
	if err == nil {
		err = crafter.Validate()
	}
	if err != nil {
		return auditGame{}, nil, &PathError{"crafter", err}
	}
	dist, err := distinguisherFor(exp.Distinguisher)
	if err == nil {
		err = dist.Validate()
	}
	if err != nil {
		return auditGame{}, nil, &PathError{"distinguisher", err}
	}
	if err := attack.CheckPair(crafter, dist, attack.ThreatModels[exp.Audit.ThreatModel]); err != nil {
		return auditGame{}, nil, &PathError{"audit.threat_model", err}
	}
	d := exp.DPSGD
	td := trainConfig(d)
	game := auditGame{Data: data, Arch: arch, DPSGD: td, Claimed: claimed, Crafter: *exp.Crafter,
		Distinguisher: *exp.Distinguisher, Threat: exp.Audit.ThreatModel, RandomInit: exp.Audit.RandomInit, Seed: exp.Seed}
	known := td
	known.NoiseMultiplier = claimed
	cp := craftParams{Data: data, Arch: arch, DPSGD: known, Crafter: *exp.Crafter}
	ck := hashKey(cp)
	cp.Seed = rng.Seed(uint64(exp.Seed), "craft", ck)
	cp.Init = rng.Seed(uint64(exp.Seed), "init", ck)
	craft := g.Add(&pipeline.Node{
		Kind: "craft", Version: craftVersion, Params: cp,
		Label: fmt.Sprintf("%s on %s %s", exp.Crafter.Kind, data.Source.Name, arch.Kind),
		Slot:  fmt.Sprintf("%s/craft/%d", name, pt.Index),
		Run:   func(ctx context.Context, w *pipeline.Work) error { return runCraft(cp, env.DataDir, w) },
	})
	return game, craft, nil
}

func runCraft(p craftParams, dataDir string, w *pipeline.Work) error {
	split, err := loadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	c, err := crafterFor(&p.Crafter)
	if err != nil {
		return err
	}
	tr, te := split.Train, split.Test
	crafted, err := c.Craft(attack.CraftInput{
		Arch: p.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: p.DPSGD.learn(),
		X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y, Seed: p.Seed, InitSeed: p.Init,
	})
	if err != nil {
		return err
	}
	b, err := crafted.MarshalBinary()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.Dir, craftFile), b, 0o644)
}

func runTrialShard(ctx context.Context, p shardParams, dataDir string, w *pipeline.Work) error {
	split, err := loadSplit(p.Game.Data, dataDir)
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
		Arch: p.Game.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: p.Game.DPSGD.learn(),
		ClaimedNoiseMultiplier: p.Game.Claimed, X: tr.X, Y: tr.Y, Crafted: crafted, Distinguisher: dist,
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
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	for j, name := range names {
		if err := t.Add(name, pipeline.Float64, scores[j]); err != nil {
			return err
		}
	}
	t.Add("canary_steps", pipeline.Int64, canary)
	t.Add("target_steps", pipeline.Int64, target)
	t.Add("empty_batches", pipeline.Int64, empty)
	t.Add("mean_batch_size", pipeline.Float64, batch)
	return pipeline.WriteParquet(filepath.Join(w.Dir, TrialsFile), t)
}

func runIdealShard(ctx context.Context, p idealShardParams, w *pipeline.Work) error {
	worlds := attack.IdealAlternate
	if p.RandomWorld {
		worlds = attack.IdealRandom
	}
	res, err := attack.SimulateIdeal(attack.IdealRun{
		Mechanism:          attack.IdealMechanism{SamplingRate: p.Sampling, Steps: p.Steps, NoiseMultiplier: p.Sigma},
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
	t.Add("trial", pipeline.Int64, cols["trial"])
	t.Add("world", pipeline.Int64, cols["world"])
	for _, c := range []string{"projection", "watermark", "llr"} {
		t.Add(c, pipeline.Float64, cols[c])
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, TrialsFile), t)
}

// readTrials concatenates the shards' score column and world bits, in
// trial order (the split threshold depends on that order).
func readTrials(dirs []string, score string, total int) ([]float64, []bool, error) {
	scores := make([]float64, 0, total)
	worlds := make([]bool, 0, total)
	for _, d := range dirs {
		t, err := pipeline.ReadParquet(filepath.Join(d, TrialsFile))
		if err != nil {
			return nil, nil, err
		}
		sc, wc, tc := t.Col(score), t.Col("world"), t.Col("trial")
		if sc == nil || wc == nil || tc == nil {
			return nil, nil, fmt.Errorf("%s: trial table has no %q column", d, score)
		}
		for i := range sc.Values {
			if tc.Values[i].(int64) != int64(len(scores)) {
				return nil, nil, fmt.Errorf("%s: trial %v out of order (want %d)", d, tc.Values[i], len(scores))
			}
			scores = append(scores, sc.Float(i))
			worlds = append(worlds, wc.Values[i].(int64) == 1)
		}
	}
	if len(scores) != total {
		return nil, nil, fmt.Errorf("found %d trials, want %d", len(scores), total)
	}
	return scores, worlds, nil
}

// estimateColumns are the summary columns of an audit.
func estimateColumns(estimator string) []string {
	if estimator == "one_run" {
		return []string{"audit_trials", "audit_score", "threshold_method", "epsilon_lb", "epsilon_lb_confidence",
			"one_run_guesses", "one_run_correct", "epsilon_accountant", "violation"}
	}
	return []string{"audit_trials", "audit_score", "threshold_method", "epsilon_lb", "epsilon_lb_confidence", "epsilon_lb_valid",
		"epsilon_point", "threshold", "fpr", "fnr", "fpr_upper", "fnr_upper", "attack_accuracy", "max_accuracy", "auc",
		"tpr_at_fpr_0_1pct", "tpr_at_fpr_1pct", "gdp_mu", "gdp_mu_lo", "gdp_mu_hi",
		"epsilon_gdp_estimate", "epsilon_gdp_estimate_lo", "epsilon_gdp_estimate_hi", "epsilon_accountant", "violation"}
}

func runEstimate(p estimateParams, dirs []string) ([]Output, error) {
	scores, worlds, err := readTrials(dirs, p.Score, p.Trials)
	if err != nil {
		return nil, err
	}
	epsAcc := math.Inf(1)
	if p.Sigma > 0 {
		acc := privacy.Accountant(p.Accountant)
		if acc == "" {
			acc = privacy.AccountantBest
		}
		epsAcc, err = privacy.Epsilon(acc, privacy.SampledGaussian{NoiseMultiplier: p.Sigma, SamplingRate: p.Sampling, Steps: p.Steps}, p.Delta, privacy.Options{})
		if err != nil {
			return nil, err
		}
	}
	if p.Estimator == "one_run" {
		// Guesses fixed before looking at the scores: the top and bottom
		// 5% of the canaries (10% guessed in all).
		k := max(1, len(scores)/20)
		r, err := audit.OneRun(scores, worlds, k, k, p.Delta, p.Confidence)
		if err != nil {
			return nil, err
		}
		return []Output{
			{"audit_trials", pipeline.Int64, int64(len(scores))},
			{"audit_score", pipeline.String, p.Score},
			{"threshold_method", pipeline.String, "one_run"},
			{"epsilon_lb", pipeline.Float64, r.EpsilonLB},
			{"epsilon_lb_confidence", pipeline.Float64, r.Confidence},
			{"one_run_guesses", pipeline.Int64, int64(r.Guesses)},
			{"one_run_correct", pipeline.Int64, int64(r.Correct)},
			{"epsilon_accountant", pipeline.Float64, epsAcc},
			{"violation", pipeline.Bool, r.EpsilonLB > epsAcc},
		}, nil
	}
	o := audit.DefaultOptions()
	o.Delta, o.Confidence, o.SplitFraction, o.Grid = p.Delta, p.Confidence, p.SplitFraction, p.Grid
	o.Method = map[string]audit.Method{"split": audit.Split, "posthoc": audit.PostHoc, "bonferroni": audit.Bonferroni}[p.Method]
	o.Seed = rng.Seed(uint64(p.Seed), "audit", p.Key)
	o.LowerMeansWorld1 = p.LowerWorld1
	r, err := audit.Estimate(scores, worlds, o)
	if err != nil {
		return nil, err
	}
	return []Output{
		{"audit_trials", pipeline.Int64, int64(len(scores))},
		{"audit_score", pipeline.String, p.Score},
		{"threshold_method", pipeline.String, r.Method},
		{"epsilon_lb", pipeline.Float64, r.EpsilonLB},
		{"epsilon_lb_confidence", pipeline.Float64, r.Confidence},
		{"epsilon_lb_valid", pipeline.Bool, r.Valid},
		{"epsilon_point", pipeline.Float64, r.EpsilonPoint},
		{"threshold", pipeline.Float64, r.Threshold},
		{"fpr", pipeline.Float64, r.FPR},
		{"fnr", pipeline.Float64, r.FNR},
		{"fpr_upper", pipeline.Float64, r.FPRUpper},
		{"fnr_upper", pipeline.Float64, r.FNRUpper},
		{"attack_accuracy", pipeline.Float64, r.Accuracy},
		{"max_accuracy", pipeline.Float64, r.MaxAccuracy},
		{"auc", pipeline.Float64, r.AUC},
		{"tpr_at_fpr_0_1pct", pipeline.Float64, r.TPRAtFPR1e3},
		{"tpr_at_fpr_1pct", pipeline.Float64, r.TPRAtFPR1e2},
		{"gdp_mu", pipeline.Float64, r.GDP.Mu},
		{"gdp_mu_lo", pipeline.Float64, r.GDP.MuLower},
		{"gdp_mu_hi", pipeline.Float64, r.GDP.MuUpper},
		{"epsilon_gdp_estimate", pipeline.Float64, r.GDP.Epsilon},
		{"epsilon_gdp_estimate_lo", pipeline.Float64, r.GDP.EpsilonLower},
		{"epsilon_gdp_estimate_hi", pipeline.Float64, r.GDP.EpsilonUpper},
		{"epsilon_accountant", pipeline.Float64, epsAcc},
		{"violation", pipeline.Bool, r.ViolatesClaim(epsAcc)},
	}, nil
}
