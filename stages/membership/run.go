package membership

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

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
		Mechanism:          idealMechanism(p),
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
