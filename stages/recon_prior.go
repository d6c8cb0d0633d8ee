package stages

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/attack/recon"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
)

// A prior-aware reconstruction point becomes trial shards (each trial draws
// its prior, target and training noise from rng.New(seed, "trial", key, i),
// so results never depend on the shard size or -j), the rero bound node of
// the same (σ, q, T, κ = 1/|π|) — the spec's own rero entry when it has one,
// else an implicit one whose columns join the row — and one estimate node
// that reads both and flags rero_violation.
const (
	reconTrialsVersion      = 2 // 2: candidates' inner products without materialising their gradients
	reconIdealTrialsVersion = 1
	reconEstimateVersion    = 1

	defaultReconShard      = 32
	defaultReconIdealShard = 1 << 16
	defaultInversionShard  = 8
)

// reconGame is everything a trained reconstruction trial depends on.
type reconGame struct {
	Data        DataParams `json:"data"`
	Arch        learn.Arch `json:"arch"`
	DPSGD       TrainDPSGD `json:"dpsgd"` // what training really does
	AttackSigma float64    `json:"attack_noise_multiplier"`
	PriorSize   int        `json:"prior_size"`
	Prior       string     `json:"prior"`
	Threat      string     `json:"threat_model"`
	Seed        int64      `json:"seed"`
	// Inversion, if set, runs the gradient-based attack on every trial.
	Inversion *recon.Inversion `json:"inversion,omitempty"`
}

type reconShardParams struct {
	Key   string    `json:"point_key"`
	Game  reconGame `json:"game"`
	First int       `json:"first"`
	Count int       `json:"count"`
}

type reconIdealShardParams struct {
	Key         string  `json:"point_key"`
	Seed        int64   `json:"seed"`
	PriorSize   int     `json:"prior_size"`
	Geometry    string  `json:"geometry"`
	Sampling    float64 `json:"sampling_rate"`
	Steps       int     `json:"steps"`
	Sigma       float64 `json:"noise_multiplier"`
	AttackSigma float64 `json:"attack_noise_multiplier"`
	First       int     `json:"first"`
	Count       int     `json:"count"`
}

type reconEstimateParams struct {
	Key        string  `json:"point_key"`
	Attack     string  `json:"attack"`
	Trials     int     `json:"trials"`
	PriorSize  int     `json:"prior_size"`
	Rule       string  `json:"rule"`
	TopSteps   int     `json:"top_steps"`
	Confidence float64 `json:"confidence"`
	// Exact is the ideal mechanism's closed-form success (nil: none).
	Exact *float64 `json:"exact,omitempty"`
}

// reconColumns are the summary columns of a prior-aware reconstruction.
var reconColumns = []string{"recon_attack", "recon_rule", "recon_trials", "recon_prior_size", "recon_top_steps",
	"reconstruction_success", "reconstruction_success_lo", "reconstruction_success_hi", "reconstruction_confidence",
	"reconstruction_baseline", "reconstruction_advantage", "reconstruction_advantage_lo", "reconstruction_advantage_hi",
	"reconstruction_success_sum", "reconstruction_success_top_steps", "reconstruction_success_log_likelihood",
	"reconstruction_success_exact", "recon_mean_rank", "recon_mean_target_steps", "recon_mean_clipped_grad_norm", "recon_mean_inversion_mse", "rero_violation"}

// reconThreat maps the spec's threat model to what the adversary observes.
var reconThreat = map[string]attack.Observation{
	"api_access": attack.ObserveBlackBox, "final_model": attack.ObserveFinalModel,
	"intermediate_models": attack.ObserveIntermediateModels, "gradient": attack.ObserveGradients,
}

// reconstructionStages builds the reconstruction audit of one point: the
// estimate (and, without a rero entry in the spec, the implicit bound) as
// point stages, and the trial shards to publish.
func reconstructionStages(name string, pt spec.Point, env Env, b *Build) ([]pointStage, []*pipeline.Node, error) {
	r := pt.Exp.Reconstruction
	switch {
	case r.PriorAware != nil:
		return priorAwareStages(name, pt, r.PriorAware, nil, env, b)
	case r.Inversion != nil:
		// The same game, with the gradient inversion run on every trial and
		// reported; the prior-aware rules are recorded beside it.
		v := r.Inversion
		p := &spec.ReconPriorAware{PriorSize: v.PriorSize, Trials: v.Trials, Rule: "inversion", Prior: "pool",
			Geometry: "orthogonal", ThreatModel: v.ThreatModel, ShardSize: v.ShardSize, Confidence: v.Confidence,
			ClaimedNoiseMultiplier: v.ClaimedNoiseMultiplier}
		if p.ShardSize == 0 {
			p.ShardSize = defaultInversionShard
		}
		inv := &recon.Inversion{Steps: v.Steps, LearningRate: v.LearningRate, Restarts: v.Restarts}
		return priorAwareStages(name, pt, p, inv, env, b)
	}
	return nil, nil, &PathError{"reconstruction.attack", fmt.Errorf("attack %q has no stage", r.Attack)}
}

// priorAwareStages builds the game of p (and, with inv, the gradient
// inversion on the same trials).
func priorAwareStages(name string, pt spec.Point, p *spec.ReconPriorAware, inv *recon.Inversion, env Env, b *Build) ([]pointStage, []*pipeline.Node, error) {
	exp := pt.Exp
	d := exp.DPSGD
	if err := recon.CheckThreat(reconThreat[p.ThreatModel]); err != nil {
		return nil, nil, &PathError{"reconstruction.threat_model", err}
	}
	claimed := p.ClaimedNoiseMultiplier
	if claimed == 0 {
		claimed = d.NoiseMultiplier
	}
	rule := p.Rule
	if rule == "auto" {
		rule = "sum"
		if d.SamplingRate < 1 {
			rule = "top_steps"
		}
	}
	ep := reconEstimateParams{Attack: pt.Exp.Reconstruction.Attack, Trials: p.Trials, PriorSize: p.PriorSize, Rule: rule,
		TopSteps: recon.TopSteps(d.SamplingRate, d.Steps), Confidence: p.Confidence}
	var shards []*pipeline.Node
	var label string
	if exp.Model.Ideal != nil {
		geo, err := recon.ParseGeometry(p.Geometry)
		if err != nil {
			return nil, nil, &PathError{"reconstruction.geometry", err}
		}
		ig := recon.Ideal{PriorSize: p.PriorSize, Geometry: geo, SamplingRate: d.SamplingRate, Steps: d.Steps,
			NoiseMultiplier: d.NoiseMultiplier, AttackSigma: claimed}
		if err := ig.Validate(); err != nil {
			return nil, nil, &PathError{"reconstruction", err}
		}
		if d.SamplingRate == 1 {
			x := recon.IdealSuccessFullBatch(p.PriorSize, d.Steps, d.NoiseMultiplier, geo)
			ep.Exact = &x
		}
		sp := reconIdealShardParams{Seed: exp.Seed, PriorSize: p.PriorSize, Geometry: p.Geometry, Sampling: d.SamplingRate,
			Steps: d.Steps, Sigma: d.NoiseMultiplier, AttackSigma: claimed}
		sp.Key = HashKey(sp)
		ep.Key = sp.Key
		label = fmt.Sprintf("ideal reconstruction |π|=%d σ=%.4g q=%.4g T=%d", p.PriorSize, d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := p.ShardSize
		if size == 0 {
			size = defaultReconIdealShard
		}
		for first, k := 0, 0; first < p.Trials; first, k = first+size, k+1 {
			s := sp
			s.First, s.Count = first, min(size, p.Trials-first)
			shards = append(shards, b.Add(&pipeline.Node{
				Kind: "trials", Version: reconIdealTrialsVersion, Params: s,
				Label: fmt.Sprintf("%s trials %d–%d", label, s.First, s.First+s.Count-1),
				Slot:  fmt.Sprintf("%s/recon_trials/%d/%d", name, pt.Index, k),
				Run:   func(ctx context.Context, w *pipeline.Work) error { return runReconIdealShard(ctx, s, w) },
			}))
		}
	} else {
		game, err := reconGameFor(pt, p, inv, env, claimed, rule)
		if err != nil {
			return nil, nil, err
		}
		key := HashKey(game)
		ep.Key = key
		label = fmt.Sprintf("reconstruction |π|=%d σ=%.4g q=%.4g T=%d", p.PriorSize, d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := p.ShardSize
		if size == 0 {
			size = defaultReconShard
		}
		for first, k := 0, 0; first < p.Trials; first, k = first+size, k+1 {
			s := reconShardParams{Key: key, Game: game, First: first, Count: min(size, p.Trials-first)}
			shards = append(shards, b.Add(&pipeline.Node{
				Kind: "trials", Version: reconTrialsVersion, Params: s,
				Label: fmt.Sprintf("%s trials %d–%d", label, s.First, s.First+s.Count-1),
				Slot:  fmt.Sprintf("%s/recon_trials/%d/%d", name, pt.Index, k),
				Run: func(ctx context.Context, w *pipeline.Work) error {
					return runReconShard(ctx, s, env.DataDir, w)
				},
			}))
		}
	}

	// The bound of the same (σ_claimed, q, T, κ = 1/|π|).
	var stages []pointStage
	bound, err := reconBound(name, pt, p, claimed)
	if err != nil {
		return nil, nil, err
	}
	if bound.columns != nil { // implicit: its columns join the row
		stages = append(stages, bound)
	}
	boundNode := b.Add(bound.node)
	est := &pipeline.Node{
		Kind: "estimate", Version: reconEstimateVersion, Params: ep, Inputs: append(append([]*pipeline.Node{}, shards...), boundNode),
		Label: fmt.Sprintf("%s (%d trials, %s)", label, p.Trials, rule),
		Slot:  fmt.Sprintf("%s/recon_estimate/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runReconEstimate(ep, w.Inputs[:len(w.Inputs)-1], w.Inputs[len(w.Inputs)-1])
			if err != nil {
				return err
			}
			return WriteValues(w.Dir, outs)
		},
	}
	stages = append(stages, pointStage{node: est, columns: reconColumns})
	return stages, shards, nil
}

// reconBound returns the rero node the success is compared with: the
// spec's rero entry when there is one (its columns are already in the row,
// so the returned stage has none), else an implicit exact bound.
func reconBound(name string, pt spec.Point, p *spec.ReconPriorAware, claimed float64) (pointStage, error) {
	exp := pt.Exp
	kappa := 1 / float64(p.PriorSize)
	for b, entry := range exp.Bound {
		if entry.Rero == nil {
			continue
		}
		path := fmt.Sprintf("bound[%d]", b)
		if claimed != exp.DPSGD.NoiseMultiplier {
			return pointStage{}, &PathError{path, fmt.Errorf("%w: with reconstruction.claimed_noise_multiplier the reconstruction block computes the rero bound for the claimed σ itself; leave this entry out", bounds.ErrInvalid)}
		}
		k := entry.Rero.Kappa
		if entry.Rero.PriorSize > 0 {
			k = 1 / float64(entry.Rero.PriorSize)
		}
		if k != kappa {
			return pointStage{}, &PathError{path + ".prior_size", fmt.Errorf("%w: the rero bound must be for the reconstruction prior (prior_size %d, κ = %.4g), got κ = %.4g: rero_violation compares the two", bounds.ErrInvalid, p.PriorSize, kappa, k)}
		}
		bs, err := reroStages(exp, entry.Rero, path)
		if err != nil {
			return pointStage{}, err
		}
		st := bs[0].pointStage(name, pt, b)
		st.columns = nil
		return st, nil
	}
	entry := &spec.ReroBound{PriorSize: p.PriorSize, Method: string(bounds.ReRoExact), Tolerance: 0.001}
	d := *exp.DPSGD
	d.NoiseMultiplier = claimed
	bs, err := reroStages(&spec.Experiment{Seed: exp.Seed, DPSGD: &d}, entry, "reconstruction")
	if err != nil {
		return pointStage{}, err
	}
	st := bs[0].pointStage(name, pt, 0)
	st.node.Slot = fmt.Sprintf("%s/rero/%d/reconstruction", name, pt.Index)
	return st, nil
}

// reconGameFor checks a trained reconstruction game at compile time.
func reconGameFor(pt spec.Point, p *spec.ReconPriorAware, inv *recon.Inversion, env Env, claimed float64, rule string) (reconGame, error) {
	exp := pt.Exp
	arch, data, err := TrainedModel(exp, env.DataDir)
	if err != nil {
		return reconGame{}, err
	}
	split, err := LoadSplit(data, env.DataDir)
	if err != nil {
		return reconGame{}, &PathError{"dataset", err}
	}
	src, err := recon.ParsePriorSource(p.Prior)
	if err != nil {
		return reconGame{}, &PathError{"reconstruction.prior", err}
	}
	if err := recon.CheckPriorSize(p.PriorSize, split.Test.N, src); err != nil {
		return reconGame{}, &PathError{"reconstruction.prior_size", fmt.Errorf("%w (the test split the candidates are drawn from)", err)}
	}
	if split.Train.N < 2 {
		return reconGame{}, &PathError{"dataset", fmt.Errorf("%w: D₋ is the training split minus one record; the split has %d", recon.ErrInvalid, split.Train.N)}
	}
	d := exp.DPSGD
	if rule == "top_steps" && d.SamplingRate*float64(split.Train.N) < 1 {
		return reconGame{}, &PathError{"reconstruction.rule", fmt.Errorf("%w: Algorithm 3 (top_steps) with q·|D| = %g × %d < 1: most batches are empty", recon.ErrInvalid, d.SamplingRate, split.Train.N)}
	}
	if d.Clip != "hard" {
		return reconGame{}, &PathError{"dpsgd.clip", fmt.Errorf("%w: the prior-aware attack scores hard-clipped gradients", recon.ErrInvalid)}
	}
	if d.NoiseMultiplier == 0 || math.IsInf(d.ClipNorm, 0) {
		return reconGame{}, &PathError{"dpsgd.noise_multiplier", fmt.Errorf("%w: a reconstruction audit needs noise and a finite clip norm", recon.ErrInvalid)}
	}
	if p.ThreatModel == "intermediate_models" && d.LearningRate == 0 {
		return reconGame{}, &PathError{"reconstruction.threat_model", fmt.Errorf("%w: with learning rate 0 the models never change, so the update cannot be inverted", recon.ErrInvalid)}
	}
	if inv != nil {
		if err := inv.Validate(); err != nil {
			return reconGame{}, &PathError{"reconstruction", err}
		}
	}
	return reconGame{Data: data, Arch: arch, DPSGD: TrainConfig(d), AttackSigma: claimed, PriorSize: p.PriorSize,
		Prior: p.Prior, Threat: p.ThreatModel, Seed: exp.Seed, Inversion: inv}, nil
}

// newReconGame builds the game of a shard: D₋ is the training split
// without its last record, the pool is the test split.
func newReconGame(gp reconGame, key, dataDir string) (*recon.Game, error) {
	split, err := LoadSplit(gp.Data, dataDir)
	if err != nil {
		return nil, err
	}
	src, err := recon.ParsePriorSource(gp.Prior)
	if err != nil {
		return nil, err
	}
	tr, te := split.Train, split.Test
	n := tr.N - 1
	return recon.NewGame(recon.Config{
		Arch: gp.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: gp.DPSGD.Learn(), AttackSigma: gp.AttackSigma,
		X: tr.X[:n*tr.D], Y: tr.Y[:n], PoolX: te.X, PoolY: te.Y, PriorSize: gp.PriorSize, Prior: src,
		Observe: reconThreat[gp.Threat], InitSeed: rng.Seed(uint64(gp.Seed), "init", key), Inversion: gp.Inversion,
	})
}

func runReconShard(ctx context.Context, p reconShardParams, dataDir string, w *pipeline.Work) error {
	game, err := newReconGame(p.Game, p.Key, dataDir)
	if err != nil {
		return err
	}
	out := make([]recon.Outcome, p.Count)
	for k := range out {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := p.First + k
		if out[k], err = game.RunTrialIndex(uint64(p.Game.Seed), p.Key, i); err != nil {
			return fmt.Errorf("trial %d: %w", i, err)
		}
	}
	return writeReconTrials(w.Dir, p.First, out)
}

func runReconIdealShard(ctx context.Context, p reconIdealShardParams, w *pipeline.Work) error {
	geo, err := recon.ParseGeometry(p.Geometry)
	if err != nil {
		return err
	}
	g := recon.Ideal{PriorSize: p.PriorSize, Geometry: geo, SamplingRate: p.Sampling, Steps: p.Steps,
		NoiseMultiplier: p.Sigma, AttackSigma: p.AttackSigma}
	out, err := recon.SimulateIdeal(g, uint64(p.Seed), []any{"trial", p.Key}, p.First, p.Count, 1)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeReconTrials(w.Dir, p.First, out)
}

// writeReconTrials writes a shard's rows: the target's position in the
// prior and pool, and every rule's guess, the target's rank and the score
// margin, so that the reported rule can change without retraining.
func writeReconTrials(dir string, first int, out []recon.Outcome) error {
	n := len(out)
	col := func() []any { return make([]any, n) }
	trial, target, record, steps, gnorm := col(), col(), col(), col(), col()
	guess, rank, margin := [3][]any{col(), col(), col()}, [3][]any{col(), col(), col()}, [3][]any{col(), col(), col()}
	for k, o := range out {
		trial[k], target[k], steps[k] = int64(first+k), int64(o.Target), int64(o.TargetSteps)
		if o.Record >= 0 {
			record[k] = int64(o.Record)
		}
		gnorm[k] = OrNull(o.TargetGradNorm)
		for _, r := range recon.Rules {
			d := o.Decisions[r]
			guess[r][k], rank[r][k], margin[r][k] = int64(d.Guess), int64(d.Rank), d.Margin
		}
	}
	t := &pipeline.Table{}
	t.Add("trial", pipeline.Int64, trial)
	t.Add("target", pipeline.Int64, target)
	t.Add("target_record", pipeline.Int64, record)
	for _, r := range recon.Rules {
		t.Add("guess_"+r.String(), pipeline.Int64, guess[r])
		t.Add("rank_"+r.String(), pipeline.Int64, rank[r])
		t.Add("margin_"+r.String(), pipeline.Float64, margin[r])
	}
	t.Add("target_steps", pipeline.Int64, steps)
	t.Add("target_clipped_grad_norm", pipeline.Float64, gnorm)
	if n > 0 && out[0].Inversion != nil {
		ig, ir, im, mse := col(), col(), col(), col()
		for k, o := range out {
			d := o.Inversion.Decision
			ig[k], ir[k], im[k], mse[k] = int64(d.Guess), int64(d.Rank), d.Margin, o.Inversion.MSE
		}
		t.Add("guess_inversion", pipeline.Int64, ig)
		t.Add("rank_inversion", pipeline.Int64, ir)
		t.Add("margin_inversion", pipeline.Float64, im)
		t.Add("inversion_mse", pipeline.Float64, mse)
	}
	return pipeline.WriteParquet(filepath.Join(dir, TrialsFile), t)
}

// runReconEstimate turns the shards into success rates with their
// Clopper–Pearson interval and compares them with the bound's values.
func runReconEstimate(p reconEstimateParams, shards []string, boundDir string) ([]Output, error) {
	var correct [3]int
	var primaryCorrect int
	var rankSum, stepSum, normSum, mseSum float64
	normN, mseN, total := 0, 0, 0
	for _, d := range shards {
		t, err := pipeline.ReadParquet(filepath.Join(d, TrialsFile))
		if err != nil {
			return nil, err
		}
		tc, gc, pc, rc := t.Col("trial"), t.Col("target"), t.Col("guess_"+p.Rule), t.Col("rank_"+p.Rule)
		if tc == nil || gc == nil || pc == nil || rc == nil {
			return nil, fmt.Errorf("%s: not a reconstruction trial table with rule %s", d, p.Rule)
		}
		mc, sc, nc := t.Col("inversion_mse"), t.Col("target_steps"), t.Col("target_clipped_grad_norm")
		var rules [3]*pipeline.Column
		for _, r := range recon.Rules {
			if rules[r] = t.Col("guess_" + r.String()); rules[r] == nil {
				return nil, fmt.Errorf("%s: no guess_%s column", d, r)
			}
		}
		if sc == nil || nc == nil {
			return nil, fmt.Errorf("%s: not a reconstruction trial table", d)
		}
		for i := range tc.Values {
			if tc.Values[i].(int64) != int64(total) {
				return nil, fmt.Errorf("%s: trial %v out of order (want %d)", d, tc.Values[i], total)
			}
			target := gc.Values[i].(int64)
			for _, r := range recon.Rules {
				if t.Col("guess_" + r.String()).Values[i].(int64) == target {
					correct[r]++
				}
			}
			if pc.Values[i].(int64) == target {
				primaryCorrect++
			}
			rankSum += float64(rc.Values[i].(int64))
			stepSum += float64(sc.Values[i].(int64))
			if v := nc.Values[i]; v != nil {
				normSum += v.(float64)
				normN++
			}
			if mc != nil {
				mseSum += mc.Float(i)
				mseN++
			}
			total++
		}
	}
	if total != p.Trials {
		return nil, fmt.Errorf("found %d reconstruction trials, want %d", total, p.Trials)
	}
	k := primaryCorrect
	lo, err := audit.ClopperPearsonLower(k, total, p.Confidence, audit.TwoSided)
	if err != nil {
		return nil, err
	}
	hi, err := audit.ClopperPearsonUpper(k, total, p.Confidence, audit.TwoSided)
	if err != nil {
		return nil, err
	}
	kappa := 1 / float64(p.PriorSize)
	adv := func(s float64) float64 { return (s - kappa) / (1 - kappa) } // Hayes et al. Eq. 4
	succ := float64(k) / float64(total)
	boundVals, err := ReadValues(boundDir)
	if err != nil {
		return nil, err
	}
	gammaHi := math.NaN()
	for _, o := range boundVals {
		if o.Name == "rero_gamma_hi" && o.Value != nil {
			gammaHi = o.Value.(float64)
		}
	}
	if math.IsNaN(gammaHi) {
		return nil, fmt.Errorf("%s: the rero bound has no rero_gamma_hi", boundDir)
	}
	meanNorm, meanMSE := math.NaN(), math.NaN()
	if normN > 0 {
		meanNorm = normSum / float64(normN)
	}
	if mseN > 0 {
		meanMSE = mseSum / float64(mseN)
	}
	var exact any
	if p.Exact != nil {
		exact = *p.Exact
	}
	rate := func(r recon.Rule) float64 { return float64(correct[r]) / float64(total) }
	return []Output{
		{"recon_attack", pipeline.String, p.Attack},
		{"recon_rule", pipeline.String, p.Rule},
		{"recon_trials", pipeline.Int64, int64(total)},
		{"recon_prior_size", pipeline.Int64, int64(p.PriorSize)},
		{"recon_top_steps", pipeline.Int64, int64(p.TopSteps)},
		F64("reconstruction_success", succ),
		F64("reconstruction_success_lo", lo),
		F64("reconstruction_success_hi", hi),
		F64("reconstruction_confidence", p.Confidence),
		F64("reconstruction_baseline", kappa),
		F64("reconstruction_advantage", adv(succ)),
		F64("reconstruction_advantage_lo", adv(lo)),
		F64("reconstruction_advantage_hi", adv(hi)),
		F64("reconstruction_success_sum", rate(recon.RuleSum)),
		F64("reconstruction_success_top_steps", rate(recon.RuleTopSteps)),
		F64("reconstruction_success_log_likelihood", rate(recon.RuleLogLikelihood)),
		F64("reconstruction_success_exact", exact),
		F64("recon_mean_rank", rankSum/float64(total)),
		F64("recon_mean_target_steps", stepSum/float64(total)),
		F64("recon_mean_clipped_grad_norm", OrNull(meanNorm)),
		F64("recon_mean_inversion_mse", OrNull(meanMSE)),
		{"rero_violation", pipeline.Bool, lo > gammaHi},
	}, nil
}
