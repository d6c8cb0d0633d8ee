// Package identify is the identifiability game of Bernau et al. (2021):
// a craft node chooses the neighbouring dataset D′ (dataset sensitivity),
// shards of repetitions train on D with the adversary A_DI following every
// step, and an estimate node turns the final beliefs into the empirical
// advantage, δ′ and ε′ beside ρ_β and ρ_α, and flags identify_violation.
package identify

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	aidentify "github.com/dpaudit/dpaudit/attack/identify"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// An identifiability point (Bernau et al. 2021) becomes one craft node (the
// dataset-sensitivity choice of D′, O(n²) once), shards of repetitions and
// one estimate node, like a membership audit (audit.go). Repetition i's
// noise and θ₀ are rng streams of (seed, game key, i): results do not
// depend on the shard size or -j.
const (
	identCraftVersion    = 1
	identTrialsVersion   = 1
	identEstimateVersion = 1
	identCraftFile       = "neighbours.json"
	defaultIdentShard    = 50
)

// identCraftParams is what the choice of D′ depends on.
type identCraftParams struct {
	Data      stages.DataParams `json:"data"`
	Adjacency string            `json:"adjacency"`
	Distance  string            `json:"distance"`
	Choose    string            `json:"differing"`
	Rank      int               `json:"rank"`
	Index     int               `json:"index"`
	Candidate int               `json:"candidate"`
	Seed      uint64            `json:"seed"`
}

// identGame is everything a repetition depends on besides the crafted pair.
type identGame struct {
	Data        stages.DataParams `json:"data"`
	Arch        learn.Arch        `json:"arch"`
	Adjacency   string            `json:"adjacency"`
	Sensitivity string            `json:"sensitivity"`
	Noise       float64           `json:"noise_multiplier"`
	Steps       int               `json:"steps"`
	ClipNorm    float64           `json:"clip_norm"`
	LR          float64           `json:"learning_rate"`
	Optimizer   string            `json:"optimizer"`
	WorstCase   float64           `json:"worst_case_epsilon,omitempty"`
	RandomInit  bool              `json:"random_init"`
	Delta       float64           `json:"delta"`
	Seed        int64             `json:"seed"`
}

type identShardParams struct {
	Key   string    `json:"point_key"`
	Game  identGame `json:"game"`
	First int       `json:"first"`
	Count int       `json:"count"`
}

type identEstimateParams struct {
	Key         string  `json:"point_key"`
	Repetitions int     `json:"repetitions"`
	Epsilon     float64 `json:"epsilon"`
	Noise       float64 `json:"noise_multiplier"`
	Steps       int     `json:"steps"`
	Delta       float64 `json:"delta"`
	Confidence  float64 `json:"confidence"`
	Adjacency   string  `json:"adjacency"`
	Sensitivity string  `json:"sensitivity"`
}

// The three ε′ estimates, each with what it assumes (Sec. 5.3).
const (
	identAssumesLS        = "max over repetitions of the RDP composition (authors' order grid, classic conversion) of the k steps at the observed local sensitivities; equals the accounted ε under local-sensitivity noise"
	identAssumesBelief    = "ln(β/(1−β)) of the largest final belief: one extreme repetition, no confidence level, grows with the number of repetitions"
	identAssumesAdvantage = "2·c(δ)·Φ⁻¹((Adv+1)/2): inverts ρ_α of the classic Gaussian calibration (Theorem 2, factor 2 restored); interval from the advantage's Clopper–Pearson interval"
)

var identColumns = []string{
	"identify_repetitions", "identify_adjacency", "identify_sensitivity", "identify_removed", "identify_added",
	"identify_distance", "identify_ds_score", "identify_epsilon", "identify_delta", "identify_rho_beta", "identify_rho_alpha", "identify_rho_alpha_rdp",
	"identify_wins", "identify_advantage", "identify_advantage_lo", "identify_advantage_hi",
	"identify_exceed", "identify_delta_prime", "identify_delta_prime_lo", "identify_delta_prime_hi",
	"identify_belief_mean", "identify_belief_max",
	"identify_epsilon_ls", "identify_epsilon_belief", "identify_epsilon_advantage", "identify_epsilon_advantage_lo", "identify_epsilon_advantage_hi",
	"identify_epsilon_ls_assumes", "identify_epsilon_belief_assumes", "identify_epsilon_advantage_assumes",
	"identify_ls_mean", "identify_ls_max", "identify_train_accuracy",
	"identify_advantage_above_rho_alpha", "identify_violation",
}

const gameName = "identifiability"

// Game is the identifiability game.
var Game = &stages.Game{
	Name:       gameName,
	AppliesTo:  func(exp *spec.Experiment) bool { return exp.Identifiability != nil },
	Compile:    compile,
	Kinds:      []string{"identify_craft", "identify_trials", "identify_estimate"},
	Violations: violations,
	Implements: map[string][]string{"identifiability": {""}},
}

// compile builds the identifiability audit of one point.
func compile(b *stages.Build) error {
	name, pt, env := b.Name, b.Point, b.Env
	exp, id := pt.Exp, pt.Exp.Identifiability
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return err
	}
	split, err := stages.LoadSplit(data, env.DataDir)
	if err != nil {
		return &stages.PathError{Path: "dataset", Err: err}
	}
	cp, err := craftParamsOf(exp, data, split)
	if err != nil {
		return err
	}
	game, eps, claimed, err := gameOf(exp, data, arch, split)
	if err != nil {
		return err
	}
	d := exp.DPSGD
	craft := b.Add(&pipeline.Node{
		Kind: "identify_craft", Version: identCraftVersion, Params: cp,
		Label: fmt.Sprintf("%s %s D′ (%s, %s) on %s", id.Adjacency, id.Differing, cp.Distance, id.Sensitivity, data.Source.Name),
		Slot:  fmt.Sprintf("%s/identify_craft/%d", name, pt.Index),
		Run:   func(ctx context.Context, w *pipeline.Work) error { return runIdentCraft(cp, env.DataDir, w) },
	})
	key := stages.HashKey(game)
	label := fmt.Sprintf("A_DI %s/%s z=%.4g T=%d", id.Adjacency, id.Sensitivity, d.NoiseMultiplier, d.Steps)
	size := id.ShardSize
	if size == 0 {
		size = defaultIdentShard
	}
	var shards []*pipeline.Node
	for first, k := 0, 0; first < id.Repetitions; first, k = first+size, k+1 {
		p := identShardParams{Key: key, Game: game, First: first, Count: min(size, id.Repetitions-first)}
		shards = append(shards, b.Add(&pipeline.Node{
			Kind: "identify_trials", Version: identTrialsVersion, Params: p, Inputs: []*pipeline.Node{craft},
			Label: fmt.Sprintf("%s repetitions %d–%d", label, p.First, p.First+p.Count-1),
			Slot:  fmt.Sprintf("%s/identify_trials/%d/%d", name, pt.Index, k),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				return runIdentShard(ctx, p, env.DataDir, w)
			},
		}))
	}
	ep := identEstimateParams{Key: key, Repetitions: id.Repetitions, Epsilon: eps, Noise: claimed, Steps: d.Steps,
		Delta: d.Delta, Confidence: id.Confidence, Adjacency: id.Adjacency, Sensitivity: id.Sensitivity}
	b.Row(&pipeline.Node{
		Kind: "identify_estimate", Version: identEstimateVersion, Params: ep, Inputs: append([]*pipeline.Node{craft}, shards...),
		Label: fmt.Sprintf("%s (%d repetitions)", label, id.Repetitions),
		Slot:  fmt.Sprintf("%s/identify_estimate/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runIdentEstimate(ep, w.Inputs[0], w.Inputs[1:])
			if err != nil {
				return err
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}, identColumns)
	b.Publish(pt.ID, shards)
	return nil
}

// craftParamsOf is the choice of D′ of the point, checked against the
// data (positioned errors); its seed derives from the spec seed and the
// choice.
func craftParamsOf(exp *spec.Experiment, data stages.DataParams, split *datasets.Split) (identCraftParams, error) {
	id := exp.Identifiability
	cp := identCraftParams{Data: data, Adjacency: id.Adjacency, Distance: id.Distance, Choose: id.Differing,
		Rank: id.Rank, Index: id.Index, Candidate: id.Candidate}
	if cp.Distance == "auto" {
		cp.Distance = aidentify.DistEuclidean
		if len(split.Train.Shape) == 3 {
			cp.Distance = aidentify.DistSSIM
		}
	}
	if cp.Distance == aidentify.DistSSIM && len(split.Train.Shape) != 3 {
		return cp, &stages.PathError{Path: "identifiability.distance", Err: fmt.Errorf("ssim needs images of shape [C, H, W]; model %s takes flat records of shape %v (use a cnn, or a tabular distance)", exp.Model.Arch, split.Train.Shape)}
	}
	probe := aidentify.CraftInput{X: split.Train.X, PoolX: split.Test.X, Dim: split.Train.D, Shape: split.Train.Shape,
		Adjacency: cp.Adjacency, Distance: cp.Distance, Choose: cp.Choose, Rank: cp.Rank, Index: cp.Index, Candidate: cp.Candidate}
	if err := probe.Validate(); err != nil {
		path := "identifiability.adjacency"
		switch {
		case cp.Choose == aidentify.ChooseIndex:
			path = "identifiability.index"
		case cp.Choose == aidentify.ChooseMax || cp.Choose == aidentify.ChooseMin:
			if split.Train.N >= 2 {
				path = "identifiability.rank"
			}
		}
		return cp, &stages.PathError{Path: path, Err: fmt.Errorf("%w (the training split has %d records, the pool %d)", err, split.Train.N, split.Test.N)}
	}
	cp.Seed = rng.Seed(uint64(exp.Seed), "identify/craft", stages.HashKey(cp))
	return cp, nil
}

// gameOf is what a repetition depends on, checked (positioned errors),
// with the claim's accounted ε (full batch, the authors' order grid and
// classic conversion: ρ_β = logistic(ε) is δ′'s threshold) and the noise
// multiplier it is accounted for.
func gameOf(exp *spec.Experiment, data stages.DataParams, arch learn.Arch, split *datasets.Split) (identGame, float64, float64, error) {
	id, d := exp.Identifiability, exp.DPSGD
	claimed := id.ClaimedNoiseMultiplier
	if claimed == 0 {
		claimed = d.NoiseMultiplier
	}
	eps, _, err := bounds.FullBatchGaussianEpsilon(float64(d.Steps)/(claimed*claimed), d.Delta, nil)
	if err != nil {
		return identGame{}, 0, 0, &stages.PathError{Path: "dpsgd.noise_multiplier", Err: err}
	}
	game := identGame{Data: data, Arch: arch, Adjacency: id.Adjacency, Sensitivity: id.Sensitivity, Noise: d.NoiseMultiplier,
		Steps: d.Steps, ClipNorm: d.ClipNorm, LR: d.LearningRate, Optimizer: id.Optimizer, RandomInit: id.RandomInit,
		Delta: d.Delta, Seed: exp.Seed}
	if id.Output == "worst_case" {
		game.WorstCase = eps
	}
	if err := game.config(split.Train.Shape, split.Train.Classes).Validate(); err != nil {
		return identGame{}, 0, 0, &stages.PathError{Path: "dpsgd", Err: err}
	}
	return game, eps, claimed, nil
}

func (p identGame) config(shape []int, classes int) aidentify.Config {
	return aidentify.Config{
		Arch: p.Arch, InShape: shape, Classes: classes, ClipNorm: p.ClipNorm, Steps: p.Steps,
		LearningRate: p.LR, Optimizer: p.Optimizer, Sensitivity: p.Sensitivity, NoiseMultiplier: p.Noise,
		WorstCaseEpsilon: p.WorstCase, RandomInit: p.RandomInit, Delta: p.Delta,
	}
}

func runIdentCraft(p identCraftParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	nb, err := aidentify.Craft(aidentify.CraftInput{X: split.Train.X, PoolX: split.Test.X, Dim: split.Train.D, Shape: split.Train.Shape,
		Adjacency: p.Adjacency, Distance: p.Distance, Choose: p.Choose, Rank: p.Rank, Index: p.Index, Candidate: p.Candidate,
		Seed: p.Seed})
	if err != nil {
		return err
	}
	b, err := json.Marshal(nb)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.Dir, identCraftFile), b, 0o644)
}

func readNeighbours(dir string) (aidentify.Neighbours, error) {
	var nb aidentify.Neighbours
	b, err := os.ReadFile(filepath.Join(dir, identCraftFile))
	if err == nil {
		err = json.Unmarshal(b, &nb)
	}
	return nb, err
}

func runIdentShard(ctx context.Context, p identShardParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Game.Data, dataDir)
	if err != nil {
		return err
	}
	nb, err := readNeighbours(w.Input(0))
	if err != nil {
		return err
	}
	tr, te := split.Train, split.Test
	cfg := p.Game.config(tr.Shape, tr.Classes)
	cfg.X, cfg.Y, cfg.PoolX, cfg.PoolY, cfg.Pair = tr.X, tr.Y, te.X, te.Y, nb
	game, err := aidentify.NewGame(cfg)
	if err != nil {
		return err
	}
	n := p.Count
	cols := map[string][]any{}
	names := []string{"repetition", "log_odds", "belief", "guess_d", "ls_min", "ls_mean", "ls_max", "sigma_mean", "epsilon_ls", "train_accuracy"}
	for _, c := range names {
		cols[c] = make([]any, n)
	}
	for k := 0; k < n; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := p.First + k
		r, err := game.Run(uint64(p.Game.Seed), p.Key, i)
		if err != nil {
			return fmt.Errorf("repetition %d: %w", i, err)
		}
		lsMin, lsMax, lsSum, sgSum := math.Inf(1), 0.0, 0.0, 0.0
		for s, ls := range r.LS {
			lsMin, lsMax, lsSum, sgSum = math.Min(lsMin, ls), math.Max(lsMax, ls), lsSum+ls, sgSum+r.Sigma[s]
		}
		T := float64(len(r.LS))
		cols["repetition"][k], cols["log_odds"][k], cols["belief"][k], cols["guess_d"][k] = int64(i), r.LogOdds, aidentify.Logistic(r.LogOdds), r.GuessD
		cols["ls_min"][k], cols["ls_mean"][k], cols["ls_max"][k], cols["sigma_mean"][k] = lsMin, lsSum/T, lsMax, sgSum/T
		cols["epsilon_ls"][k], cols["train_accuracy"][k] = r.EpsilonLS, r.TrainAccuracy
	}
	t := &pipeline.Table{}
	for _, c := range names {
		typ := pipeline.Float64
		switch c {
		case "repetition":
			typ = pipeline.Int64
		case "guess_d":
			typ = pipeline.Bool
		}
		if err := t.Add(c, typ, cols[c]); err != nil {
			return err
		}
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

func runIdentEstimate(p identEstimateParams, craftDir string, dirs []string) ([]stages.Output, error) {
	nb, err := readNeighbours(craftDir)
	if err != nil {
		return nil, err
	}
	reps, err := readRepetitions(dirs)
	if err != nil {
		return nil, err
	}
	logOdds, epsLS := reps.logOdds, reps.epsLS
	lsSum, lsMax, accSum, belSum := reps.lsSum, reps.lsMax, reps.accSum, reps.belSum
	if len(logOdds) != p.Repetitions {
		return nil, fmt.Errorf("found %d repetitions, want %d", len(logOdds), p.Repetitions)
	}
	r, err := audit.EstimateIdentifiability(audit.IdentifiabilityInput{LogOdds: logOdds, EpsilonLS: epsLS, Epsilon: p.Epsilon, Delta: p.Delta, Confidence: p.Confidence})
	if err != nil {
		return nil, err
	}
	rdp, err := bounds.RhoAlphaGaussianSteps(p.Steps, p.Noise)
	if err != nil {
		return nil, err
	}
	n := float64(len(logOdds))
	var added any
	if nb.Add >= 0 {
		added = int64(nb.Add)
	}
	return []stages.Output{
		stages.Int("identify_repetitions", int64(r.N)),
		stages.Str("identify_adjacency", p.Adjacency),
		stages.Str("identify_sensitivity", p.Sensitivity),
		stages.Int("identify_removed", int64(nb.Remove)),
		stages.Int("identify_added", added),
		stages.Str("identify_distance", nb.Distance),
		stages.F64("identify_ds_score", nb.Score),
		stages.F64("identify_epsilon", p.Epsilon),
		stages.F64("identify_delta", p.Delta),
		stages.F64("identify_rho_beta", r.RhoBeta),
		stages.F64("identify_rho_alpha", r.RhoAlpha),
		stages.F64("identify_rho_alpha_rdp", rdp),
		stages.Int("identify_wins", int64(r.Wins)),
		stages.F64("identify_advantage", r.Advantage),
		stages.F64("identify_advantage_lo", r.AdvantageLo),
		stages.F64("identify_advantage_hi", r.AdvantageHi),
		stages.Int("identify_exceed", int64(r.Exceed)),
		stages.F64("identify_delta_prime", r.DeltaPrime),
		stages.F64("identify_delta_prime_lo", r.DeltaPrimeLo),
		stages.F64("identify_delta_prime_hi", r.DeltaPrimeHi),
		stages.F64("identify_belief_mean", belSum/n),
		stages.F64("identify_belief_max", r.BeliefMax),
		stages.F64("identify_epsilon_ls", r.EpsilonLS),
		stages.F64("identify_epsilon_belief", r.EpsilonBelief),
		stages.F64("identify_epsilon_advantage", r.EpsilonAdvantage),
		stages.F64("identify_epsilon_advantage_lo", r.EpsilonAdvantageLo),
		stages.F64("identify_epsilon_advantage_hi", r.EpsilonAdvantageHi),
		stages.Str("identify_epsilon_ls_assumes", identAssumesLS),
		stages.Str("identify_epsilon_belief_assumes", identAssumesBelief),
		stages.Str("identify_epsilon_advantage_assumes", identAssumesAdvantage),
		stages.F64("identify_ls_mean", lsSum/n),
		stages.F64("identify_ls_max", lsMax),
		stages.F64("identify_train_accuracy", accSum/n),
		stages.Bool("identify_advantage_above_rho_alpha", r.AdvantageAboveRhoAlpha),
		stages.Bool("identify_violation", r.DeltaViolation),
	}, nil
}

// identifyAlarm is how an identifiability violation is worded.
var identifyAlarm = stages.Alarm{
	Title:    "PRIVACY VIOLATION",
	Breaks:   "break their claimed guarantee",
	Meaning:  "The identifiability bound β ≤ ρ_β fails more often than δ allows (Bernau et al. Theorem 1): the training leaks more than its (ε, δ).",
	Evidence: "Repetitions",
}

// violations reads identify_violation: the lower confidence end of δ′,
// the rate of beliefs above ρ_β, is above δ.
func violations(sum *pipeline.Table) ([]stages.Violation, error) {
	return stages.Flagged(sum, "identify_violation", gameName, identifyAlarm, func(r stages.Row, v *stages.Violation) {
		v.Value, v.Limit, v.Confidence = r.Float("identify_delta_prime_lo"), r.Float("identify_delta"), math.NaN()
		v.Message = fmt.Sprintf("the posterior belief exceeded ρ_β = %.4g in %d of %d repetitions: δ′ = %.4g, lower confidence end %.4g > δ = %.4g",
			r.Float("identify_rho_beta"), r.Int("identify_exceed"), r.Int("identify_repetitions"), r.Float("identify_delta_prime"), v.Value, v.Limit)
	}), nil
}

// repetitions are the repetition tables of an identifiability point, in
// order: every final log-odds and ε′_LS, and the sums and maxima of the
// local sensitivities, training accuracies and beliefs.
type repetitions struct {
	logOdds, epsLS               []float64
	lsSum, lsMax, accSum, belSum float64
}

func readRepetitions(dirs []string) (repetitions, error) {
	var r repetitions
	for _, d := range dirs {
		t, err := pipeline.ReadParquet(filepath.Join(d, stages.TrialsFile))
		if err != nil {
			return r, err
		}
		rc, lc, ec, mc, xc, ac := t.Col("repetition"), t.Col("log_odds"), t.Col("epsilon_ls"), t.Col("ls_mean"), t.Col("ls_max"), t.Col("train_accuracy")
		if rc == nil || lc == nil || ec == nil || mc == nil || xc == nil || ac == nil {
			return r, fmt.Errorf("%s: not an identifiability repetition table", d)
		}
		for i := range lc.Values {
			if rc.Values[i].(int64) != int64(len(r.logOdds)) {
				return r, fmt.Errorf("%s: repetition %v out of order (want %d)", d, rc.Values[i], len(r.logOdds))
			}
			r.logOdds = append(r.logOdds, lc.Float(i))
			r.epsLS = append(r.epsLS, ec.Float(i))
			r.lsSum += mc.Float(i)
			r.lsMax = math.Max(r.lsMax, xc.Float(i))
			r.accSum += ac.Float(i)
			r.belSum += aidentify.Logistic(lc.Float(i))
		}
	}
	return r, nil
}
