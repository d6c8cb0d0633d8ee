package membership

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/external"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// An external trainer (model: {arch: external} with a trainer block) is
// another producer of the classic and one-run games' trial shards: the
// games, their estimate and their violations are the same, only the
// training runs in the user's command (package external speaks the
// protocol). A point becomes:
//
//   - external_data: the training set as dpaudit resolved it, exported
//     once as .npy with its SHA-256 (every call of the point reads it);
//   - external_canaries: the canary records (the crafters of the one-run
//     input-canary audits, through attack.MakePlan) and their inclusion
//     bits, per repeat;
//   - external_call: one call of the command for trials_per_call trials
//     (classic) or one run (one-run); its request, the trainer's output
//     and the validated trials table are the node, so they travel through
//     the store to and from Slurm workers.
//
// Trial i's seed is rng.Seed(seed, "trial", key, i) and its world is
// i mod 2, as in dpaudit's own classic game; θ_0's seed is one per audit
// (rng.Seed(seed, "init", key)) unless audit.random_init.
const (
	externalDataVersion     = 1
	externalCanariesVersion = 1
	externalCallVersion     = 1

	extDataX, extDataY, extDataJSON = "x.npy", "y.npy", "data.json"
	extCanaryX, extCanaryY          = "canary_x.npy", "canary_y.npy"
	extCanaryMember                 = "member.npy"
	extCallDir                      = "call"
)

type externalDataParams struct {
	Data stages.DataParams `json:"data"`
}

type externalCanaryParams struct {
	Key     string            `json:"point_key"`
	Data    stages.DataParams `json:"data"`
	Crafter spec.Crafter      `json:"crafter"`
	Count   int               `json:"count"`
	Seed    uint64            `json:"seed"`
}

// externalCallParams is everything a call's result depends on. The
// command's files (arguments naming a file in the working directory) and
// the files trainer.inputs names enter by their SHA-256, so an edited
// script or module trains again; the timeout and the absolute working
// directory do not.
type externalCallParams struct {
	Key     string                   `json:"point_key"`
	Game    string                   `json:"game"`
	Command []string                 `json:"command"`
	Files   map[string]string        `json:"command_files,omitempty"`
	Inputs  map[string]string        `json:"inputs,omitempty"`
	Env     []string                 `json:"env,omitempty"`
	Model   map[string]any           `json:"model,omitempty"`
	DPSGD   external.Hyperparameters `json:"dpsgd"`
	Threat  string                   `json:"threat_model"`
	// Report, Dist and ScoreSigma say how a per-step report becomes a
	// trial's scores (absent for the final loss, whose key they leave
	// as it was).
	Report     string              `json:"report,omitempty"`
	Dist       *spec.Distinguisher `json:"distinguisher,omitempty"`
	ScoreSigma float64             `json:"score_sigma,omitempty"`
	Seed       int64               `json:"seed"`
	InitSeed   uint64              `json:"init_seed"`
	Random     bool                `json:"random_init,omitempty"`
	First      int                 `json:"first"`
	Count      int                 `json:"count"`
	Call       int                 `json:"call"`
	Repeat     int                 `json:"repeat,omitempty"`

	workdir string
	timeout time.Duration
}

// externalSetup is what every external point shares: the export node, the
// trainer's command and the call parameters without trials.
type externalSetup struct {
	data  stages.DataParams
	node  *pipeline.Node
	call  externalCallParams
	label string
}

// externalCommon checks an external point at compile time (the threat
// model grants the crafter and distinguisher, the data holds the
// canaries), sets the estimate's score, and adds its export node.
func externalCommon(b *stages.Build, ep *estimateParams, game string, canaries int) (externalSetup, error) {
	exp := b.Point.Exp
	data, err := stages.DatasetParams(exp.Dataset, exp.Seed, false)
	if err != nil {
		return externalSetup{}, stages.DataError(err)
	}
	if err := checkExternalCanaries(b, data, canaries); err != nil {
		return externalSetup{}, err
	}
	cp, err := trainerCall(exp, game)
	if err != nil {
		return externalSetup{}, err
	}
	dist, err := distinguisherFor(exp.Distinguisher)
	if err != nil {
		return externalSetup{}, &stages.PathError{Path: "distinguisher", Err: err}
	}
	// The estimate reads the distinguisher's first score; a watermark's
	// likelihoods take the CLAIMED σ, so that a trainer adding less noise
	// than it claims is caught (as in dpaudit's own watermark game).
	ep.Score, ep.LowerWorld1 = dist.ScoreNames()[0], dist.LowerMeansWorld1()
	if cp.Dist != nil && cp.Dist.Watermark != nil {
		cp.ScoreSigma = ep.Claim.NoiseMultiplier
	}
	dp := externalDataParams{Data: data}
	node := b.Add(&pipeline.Node{
		Kind: "external_data", Version: externalDataVersion, Params: dp,
		Label: fmt.Sprintf("export %s for the external trainer", data.Source.Name),
		Slot:  fmt.Sprintf("%s/external_data/%d", b.Name, b.Point.Index),
		Run:   func(ctx context.Context, w *pipeline.Work) error { return runExternalData(dp, b.Env.DataDir, w) },
	})
	d := exp.DPSGD
	label := fmt.Sprintf("external %s %s σ=%.4g q=%.4g T=%d", game, exp.Crafter.Kind, d.NoiseMultiplier, d.SamplingRate, d.Steps)
	return externalSetup{data: data, node: node, call: cp, label: label}, nil
}

func checkExternalCanaries(b *stages.Build, data stages.DataParams, m int) error {
	exp := b.Point.Exp
	crafter, err := crafterFor(exp.Crafter)
	if err == nil {
		err = crafter.Validate()
	}
	if err != nil {
		return &stages.PathError{Path: "crafter", Err: err}
	}
	dist, err := distinguisherFor(exp.Distinguisher)
	if err != nil {
		return &stages.PathError{Path: "distinguisher", Err: err}
	}
	// A watermark reads the canary record's own gradient direction, which
	// the trainer projects on: the crafter's record is the canary, so the
	// pair check (which wants a gradient canary) does not apply.
	if _, wm := dist.(attack.Watermark); !wm {
		if err := attack.CheckPair(crafter, dist, attack.ThreatModels[exp.Audit.ThreatModel]); err != nil {
			return &stages.PathError{Path: "audit.threat_model", Err: err}
		}
	}
	split, err := stages.LoadSplit(data, b.Env.DataDir)
	if err != nil {
		return &stages.PathError{Path: "dataset", Err: err}
	}
	limit, what, err := attack.MaxInputCanaries(crafter, split.Train.N, split.Test.N)
	if err != nil {
		return &stages.PathError{Path: "crafter", Err: err}
	}
	if limit >= 0 && m > limit {
		return &stages.PathError{Path: "audit.trials", Err: fmt.Errorf("%d canaries, but %s gives %d %s", m, exp.Crafter.Kind, limit, what)}
	}
	return nil
}

// trainerCall is the call parameters the spec fixes.
func trainerCall(exp *spec.Experiment, game string) (externalCallParams, error) {
	t, d := exp.Trainer, exp.DPSGD
	workdir := exp.ResolvePath(t.Workdir)
	if t.Workdir == "" {
		workdir = exp.ResolvePath(".")
	}
	files, err := commandFiles(t.Command, workdir)
	if err != nil {
		return externalCallParams{}, &stages.PathError{Path: "trainer.command", Err: err}
	}
	inputs, err := inputFiles(t.Inputs, exp.ResolvePath("."))
	if err != nil {
		return externalCallParams{}, &stages.PathError{Path: "trainer.inputs", Err: err}
	}
	var env []string
	for k, v := range t.Env {
		env = append(env, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(env)
	var model map[string]any
	if exp.Model.External != nil {
		model = exp.Model.External.Params
	}
	var report string
	var dist *spec.Distinguisher
	if r := external.ReportFor(exp.Audit.ThreatModel); external.PerStep(r) {
		report, dist = r, exp.Distinguisher
	}
	return externalCallParams{
		Game: game, Command: slices.Clone(t.Command), Files: files, Inputs: inputs, Env: env, Model: model, Threat: exp.Audit.ThreatModel, Seed: exp.Seed,
		Report: report, Dist: dist,
		Random: exp.Audit.RandomInit,
		DPSGD: external.Hyperparameters{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps, ClipNorm: d.ClipNorm,
			LearningRate: d.LearningRate, Momentum: d.Momentum, WeightDecay: d.WeightDecay, Sampling: d.Sampling, Clip: d.Clip,
			Adjacency: string(attack.AddRemove)},
		workdir: workdir, timeout: time.Duration(t.Timeout * float64(time.Second)),
	}, nil
}

// commandFiles are the SHA-256 of the command's arguments that name files
// in the working directory (the trainer script), by argument.
func commandFiles(argv []string, workdir string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range argv {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(workdir, a)
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return nil, err
		}
		out[a] = sum
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// inputFiles are the SHA-256 of the files trainer.inputs names, by their
// path relative to the spec's folder: each pattern is a glob there, and a
// directory it matches stands for every regular file under it. A pattern
// that matches nothing is an error (a typo would leave a file out of the
// key without a word).
func inputFiles(patterns []string, specDir string) (map[string]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, pat := range patterns {
		full := pat
		if !filepath.IsAbs(full) {
			full = filepath.Join(specDir, pat)
		}
		matches, err := filepath.Glob(full)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", pat, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%q matches no file (relative to %s)", pat, specDir)
		}
		for _, m := range matches {
			if err := hashTree(m, specDir, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// hashTree adds the SHA-256 of path, or of every regular file under it,
// to out by the path relative to base.
func hashTree(path, base string, out map[string]string) error {
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			rel = p
		}
		out[filepath.ToSlash(rel)] = sum
		return nil
	})
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// externalCanaries adds repeat r's canary node.
func externalCanaries(b *stages.Build, s externalSetup, key string, count int, repeat int) *pipeline.Node {
	exp := b.Point.Exp
	p := externalCanaryParams{Key: key, Data: s.data, Crafter: *exp.Crafter, Count: count,
		Seed: rng.Seed(uint64(exp.Seed), "external", key, "canaries")}
	return b.Add(&pipeline.Node{
		Kind: "external_canaries", Version: externalCanariesVersion, Params: p,
		Label: fmt.Sprintf("%d %s canaries for the external trainer%s", count, exp.Crafter.Kind, stages.RepeatLabel(repeat, max(exp.Audit.Repeats, 1))),
		Slot:  fmt.Sprintf("%s/external_canaries/%d%s", b.Name, b.Point.Index, stages.RepeatSlot(repeat)),
		Run:   func(ctx context.Context, w *pipeline.Work) error { return runExternalCanaries(p, b.Env.DataDir, w) },
	})
}

// externalShards are the classic game's calls, repeat by repeat.
func externalShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a := b.Point.Exp, b.Point.Exp.Audit
	s, err := externalCommon(b, ep, external.GameMembership, 1)
	if err != nil {
		return audited{}, err
	}
	base := stages.HashKey(struct {
		Data stages.DataParams  `json:"data"`
		Call externalCallParams `json:"call"`
		Cr   spec.Crafter       `json:"crafter"`
	}{s.data, s.call, *exp.Crafter})
	au := audited{label: s.label}
	repeats := max(a.Repeats, 1)
	ep.TrainingRuns = a.Trials * repeats
	size := exp.Trainer.TrialsPerCall
	for r := range repeats {
		key := stages.RepeatKey(base, r)
		if r == 0 {
			ep.Key = key
		}
		ep.RepeatKeys = append(ep.RepeatKeys, key)
		canaries := externalCanaries(b, s, key, 1, r)
		for first, k := 0, 0; first < a.Trials; first, k = first+size, k+1 {
			p := s.call
			p.Key, p.Repeat, p.Call, p.First, p.Count = key, r, k, first, min(size, a.Trials-first)
			p.InitSeed = rng.Seed(uint64(exp.Seed), "init", key)
			au.shards = append(au.shards, externalCallNode(b, p, s.node, canaries,
				fmt.Sprintf("%s%s trials %d–%d", s.label, stages.RepeatLabel(r, repeats), p.First, p.First+p.Count-1),
				fmt.Sprintf("%s/external_call/%d/%d%s", b.Name, b.Point.Index, k, stages.RepeatSlot(r))))
		}
	}
	return au, nil
}

// externalSegmenter makes a sequential audit's calls: each segment's
// trials cut at trials_per_call, the classic game's trials (the same
// seeds and worlds as the fixed audit of the same point), and a call
// gated on a look that stopped runs no trainer.
func externalSegmenter(b *stages.Build, ep *estimateParams) (*segmenter, error) {
	exp := b.Point.Exp
	s, err := externalCommon(b, ep, external.GameMembership, 1)
	if err != nil {
		return nil, err
	}
	key := stages.HashKey(struct {
		Data stages.DataParams  `json:"data"`
		Call externalCallParams `json:"call"`
		Cr   spec.Crafter       `json:"crafter"`
	}{s.data, s.call, *exp.Crafter})
	ep.Key, ep.TrainingRuns = key, 1
	canaries := externalCanaries(b, s, key, 1, 0)
	calls := 0
	return &segmenter{b: b, size: exp.Trainer.TrialsPerCall, label: s.label,
		node: func(first, count int) *pipeline.Node {
			p := s.call
			p.Key, p.Call, p.First, p.Count = key, calls, first, count
			p.InitSeed = rng.Seed(uint64(exp.Seed), "init", key)
			calls++
			return &pipeline.Node{Kind: "external_call", Version: externalCallVersion, Params: p, Inputs: []*pipeline.Node{s.node, canaries},
				Run: func(ctx context.Context, w *pipeline.Work) error {
					q := p
					var err error
					if q.Count, err = gatedCount(w, q.Count); err != nil {
						return err
					}
					return runExternalCall(ctx, q, w)
				}}
		}}, nil
}

// externalOneRunShards are the one-run game's runs: one call per repeat,
// audit.trials canaries each in by its bit.
func externalOneRunShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a := b.Point.Exp, b.Point.Exp.Audit
	m := a.Trials
	s, err := externalCommon(b, ep, external.GameOneRun, m)
	if err != nil {
		return audited{}, err
	}
	base := stages.HashKey(struct {
		Data stages.DataParams  `json:"data"`
		Call externalCallParams `json:"call"`
		Cr   spec.Crafter       `json:"crafter"`
		M    int                `json:"canaries"`
	}{s.data, s.call, *exp.Crafter, m})
	repeats := max(a.Repeats, 1)
	ep.TrainingRuns = repeats
	ep.Canaries = "input: " + inputCanaryName(exp.Crafter)
	au := audited{label: s.label}
	for r := range repeats {
		key := stages.RepeatKey(base, r)
		if r == 0 {
			ep.Key = key
		}
		ep.RepeatKeys = append(ep.RepeatKeys, key)
		canaries := externalCanaries(b, s, key, m, r)
		p := s.call
		p.Key, p.Repeat, p.Count = key, r, 1
		p.InitSeed = rng.Seed(uint64(exp.Seed), "init", key)
		au.shards = append(au.shards, externalCallNode(b, p, s.node, canaries,
			fmt.Sprintf("%s, %d canaries%s", s.label, m, stages.RepeatLabel(r, repeats)),
			fmt.Sprintf("%s/external_call/%d%s", b.Name, b.Point.Index, stages.RepeatSlot(r))))
	}
	return au, nil
}

func externalCallNode(b *stages.Build, p externalCallParams, data, canaries *pipeline.Node, label, slot string) *pipeline.Node {
	return b.Add(&pipeline.Node{
		Kind: "external_call", Version: externalCallVersion, Params: p, Inputs: []*pipeline.Node{data, canaries},
		Label: label, Slot: slot,
		Run: func(ctx context.Context, w *pipeline.Work) error { return runExternalCall(ctx, p, w) },
	})
}
