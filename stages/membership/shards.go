package membership

import (
	"context"
	"fmt"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// idealShards are the shards of the ideal mechanism, repeat by repeat: no
// craft node, the trials simulate the scalar observation stream (one-run
// audits draw each canary's world at random). ep gets the keys and score.
func idealShards(b *stages.Build, ep *estimateParams) audited {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	sp := idealShardParams{Seed: exp.Seed, Sampling: d.SamplingRate, Steps: d.Steps, Sigma: d.NoiseMultiplier,
		SigmaD: ep.Claim.NoiseMultiplier, RandomWorld: a.Estimator == "one_run"}.withGame(ep.Trained)
	form := "llr"
	if exp.Distinguisher != nil && exp.Distinguisher.Watermark != nil {
		form = exp.Distinguisher.Watermark.Form
	}
	sp.Key = stages.HashKey(sp)
	ep.Key, ep.Score = sp.Key, form
	au := audited{label: fmt.Sprintf("ideal σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps)}
	size := a.ShardSize
	if size == 0 {
		size = defaultIdealShard
	}
	repeats := max(a.Repeats, 1)
	for r := range repeats {
		rk := stages.RepeatKey(sp.Key, r)
		ep.RepeatKeys = append(ep.RepeatKeys, rk)
		for first, k := 0, 0; first < a.Trials; first, k = first+size, k+1 {
			p := sp
			p.Key, p.Repeat = rk, r
			p.First, p.Count = first, min(size, a.Trials-first)
			au.shards = append(au.shards, b.Add(&pipeline.Node{
				Kind: "trials", Version: idealTrialsVersion, Params: p,
				Label: fmt.Sprintf("%s%s trials %d–%d", au.label, stages.RepeatLabel(r, repeats), p.First, p.First+p.Count-1),
				Slot:  fmt.Sprintf("%s/trials/%d/%d%s", b.Name, b.Point.Index, k, stages.RepeatSlot(r)),
				Run:   func(ctx context.Context, w *pipeline.Work) error { return runIdealShard(ctx, p, w) },
			}))
		}
	}
	return au
}

// trainedShards are the shards of a trained model's classic game, repeat
// by repeat, each repeat over its own craft node; ep gets the keys, the
// score and, with a worst-case θ_0, what the estimate needs to describe it.
func trainedShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	dist, err := distinguisherFor(exp.Distinguisher)
	if err != nil {
		return audited{}, &stages.PathError{Path: "distinguisher", Err: err}
	}
	au := audited{label: fmt.Sprintf("%s/%s σ=%.4g q=%.4g T=%d", exp.Crafter.Kind, exp.Distinguisher.Kind, d.NoiseMultiplier, d.SamplingRate, d.Steps)}
	size := a.ShardSize
	if size == 0 {
		size = defaultShard
	}
	repeats := max(a.Repeats, 1)
	ep.TrainingRuns = a.Trials * repeats
	dataDir := b.Env.DataDir
	for r := range repeats {
		game, craft, err := auditGameFor(b, ep.Claim.NoiseMultiplier, r)
		if err != nil {
			return audited{}, err
		}
		key := stages.RepeatKey(stages.HashKey(game), r)
		if r == 0 {
			ep.Key, ep.Score, ep.LowerWorld1 = key, dist.ScoreNames()[0], dist.LowerMeansWorld1()
			if wc := a.WorstCaseInit; wc != nil {
				ep.WorstCase = &worstCaseDiag{Init: *wc, Data: game.Data, Arch: game.Arch}
				au.initCraft = craft
			}
		}
		ep.RepeatKeys = append(ep.RepeatKeys, key)
		for first, k := 0, 0; first < a.Trials; first, k = first+size, k+1 {
			p := shardParams{Key: key, Game: game, First: first, Count: min(size, a.Trials-first), Repeat: r}
			au.shards = append(au.shards, b.Add(&pipeline.Node{
				Kind: "trials", Version: trialsVersion, Params: p, Inputs: []*pipeline.Node{craft},
				Label: fmt.Sprintf("%s%s trials %d–%d", au.label, stages.RepeatLabel(r, repeats), p.First, p.First+p.Count-1),
				Slot:  fmt.Sprintf("%s/trials/%d/%d%s", b.Name, b.Point.Index, k, stages.RepeatSlot(r)),
				Run: func(ctx context.Context, w *pipeline.Work) error {
					return runTrialShard(ctx, p, dataDir, w)
				},
			}))
		}
	}
	return au, nil
}

// perStepShards are the per-step game's training runs (perstep.go).
func perStepShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	repeats := max(a.Repeats, 1)
	base, keys, nodes, err := perStepTrainedStages(b, repeats)
	if err != nil {
		return audited{}, err
	}
	ep.Key, ep.Score, ep.RepeatKeys = base, "projection", keys
	ep.Runs = max(a.Runs, 1)
	ep.TrainingRuns = ep.Runs * repeats
	ep.Samples = -1 // the rows depend on the inclusion draws
	return audited{shards: nodes, label: fmt.Sprintf("per step %s σ=%.4g q=%.4g T=%d", exp.Model.Arch, d.NoiseMultiplier, d.SamplingRate, d.Steps)}, nil
}

// oneRunInputShards are the one-run game's trainings with input canaries
// (onerun_input.go).
func oneRunInputShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	repeats := max(a.Repeats, 1)
	base, keys, nodes, err := oneRunInputStages(b, repeats)
	if err != nil {
		return audited{}, err
	}
	score := "loss"
	if i := exp.Distinguisher.Intermediate; i != nil {
		score = i.Reduce + "_loss" // max_loss or mean_loss
	}
	ep.Key, ep.Score, ep.LowerWorld1, ep.RepeatKeys = base, score, true, keys
	ep.Canaries = "input: " + inputCanaryName(exp.Crafter)
	ep.TrainingRuns = repeats
	return audited{shards: nodes, label: fmt.Sprintf("one run %s σ=%.4g q=%.4g T=%d", exp.Model.Arch, d.NoiseMultiplier, d.SamplingRate, d.Steps)}, nil
}

// oneRunTrainedShards are the one-run game's trainings with Dirac gradient
// canaries (onerun_trained.go).
func oneRunTrainedShards(b *stages.Build, ep *estimateParams) (audited, error) {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	repeats := max(a.Repeats, 1)
	base, keys, nodes, err := oneRunTrainedStages(b, ep.Claim.NoiseMultiplier, repeats)
	if err != nil {
		return audited{}, err
	}
	ep.Key, ep.Score, ep.RepeatKeys = base, oneRunTrainedScore(exp.Distinguisher, ep.Trained), keys
	ep.Canaries = "gradient (dirac)"
	ep.TrainingRuns = repeats
	return audited{shards: nodes, label: fmt.Sprintf("one run %s σ=%.4g q=%.4g T=%d", exp.Model.Arch, d.NoiseMultiplier, d.SamplingRate, d.Steps)}, nil
}

// oneRunTrainedScore is the score of the one-run game's Dirac canaries:
// the watermark distinguisher's form when one is given, else the
// log-likelihood ratio of independent per-step noise — or, under
// matrix-factorization noise, whose steps' noise is correlated, the
// projection (the canary's coordinate summed over every released update:
// what the final model shows of it).
func oneRunTrainedScore(d *spec.Distinguisher, trained mechanismConfig) string {
	switch {
	case d != nil && d.Watermark != nil:
		return d.Watermark.Form
	case trained.Correlated != nil:
		return "projection"
	}
	return "llr"
}

// estimateNode is the estimate over a fixed-size audit's shards (inputs,
// repeat by repeat, then a worst-case θ_0's craft node); the caller sets
// its label and slot.
func estimateNode(ep estimateParams, inputs []*pipeline.Node, dataDir string) *pipeline.Node {
	return &pipeline.Node{
		Kind: "estimate", Version: estimateVersion, Params: ep, Inputs: inputs,
		SameCodeInputs: true, // never one estimate over shards of two builds
		Run: func(ctx context.Context, w *pipeline.Work) error {
			dirs := w.Inputs
			var diag []stages.Output
			if ep.WorstCase != nil {
				var err error
				if diag, err = ep.WorstCase.outputs(dirs[len(dirs)-1], dataDir); err != nil {
					return err
				}
				dirs = dirs[:len(dirs)-1]
			}
			outs, err := runEstimate(ep, dirs)
			if err != nil {
				return err
			}
			outs = append(outs, diag...)
			if ep.MeasureCPU {
				outs = append(outs, stages.F64("audit_cpu_seconds", w.UpstreamCPUSeconds()))
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}
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
