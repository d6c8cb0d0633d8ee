package membership

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/stages"
)

// One-run audit of a trained model (Steinke, Nasr & Jagielski 2023, §6:
// white-box, gradient canaries): m Dirac gradient canaries — C on one
// parameter each, distinct parameters chosen uniformly at random — are each
// included with probability ½ in ONE DP-SGD run; an included canary joins
// the clipped sum at every step with probability q, like a Poisson-sampled
// record (learn.Hooks.Dirac). The auditor sees every privatised update and
// scores canary j by the log-likelihood ratio of its coordinate's stream
// under the claim, Σ_t log(1 − q + q·exp((2y_t − 1)/(2σ_d²))) with
// y_t = NoisySum_t[p_j]/C: the ideal mechanism's LLR, except that the data's
// own clipped gradients on p_j add to y_t (they only weaken the audit, so
// the canaries go where the data's gradients are smallest, see below).
// Inclusion bits, parameters, θ_0 and the run derive from the spec seed and
// the point's key.
const oneRunTrainVersion = 1

type oneRunTrainParams struct {
	Key      string            `json:"point_key"`
	Data     stages.DataParams `json:"data"`
	Arch     learn.Arch        `json:"arch"`
	DPSGD    stages.TrainDPSGD `json:"dpsgd"`
	Claimed  float64           `json:"claimed_noise_multiplier"`
	Canaries int               `json:"canaries"`
	Seed     int64             `json:"seed"`
	Repeat   int               `json:"repeat,omitempty"`
}

// oneRunTrainedStages adds one training node per repeat.
func oneRunTrainedStages(b *stages.Build, claimed float64, repeats int) (string, []string, []*pipeline.Node, error) {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return "", nil, nil, err
	}
	if err := checkGradientCanaries(data, arch, env.DataDir, "one-run", exp.Audit.Trials); err != nil {
		return "", nil, nil, err
	}
	p := oneRunTrainParams{Data: data, Arch: arch, DPSGD: stages.TrainConfig(exp.DPSGD), Claimed: claimed, Canaries: exp.Audit.Trials, Seed: exp.Seed}
	base := stages.HashKey(p)
	var keys []string
	var nodes []*pipeline.Node
	for r := range repeats {
		q := p
		q.Key, q.Repeat = stages.RepeatKey(base, r), r
		keys = append(keys, q.Key)
		nodes = append(nodes, b.Add(&pipeline.Node{
			Kind: "onerun_train", Version: oneRunTrainVersion, Params: q,
			Label: fmt.Sprintf("one run, %d gradient canaries, %s %s σ=%.4g q=%.4g T=%d%s", q.Canaries, data.Source.Name, arch.Kind,
				q.DPSGD.NoiseMultiplier, q.DPSGD.SamplingRate, q.DPSGD.Steps, stages.RepeatLabel(r, repeats)),
			Slot: fmt.Sprintf("%s/onerun/%d%s", name, pt.Index, stages.RepeatSlot(r)),
			Run:  func(ctx context.Context, w *pipeline.Work) error { return runOneRunTrain(ctx, q, env.DataDir, w) },
		}))
	}
	return base, keys, nodes, nil
}

func runOneRunTrain(ctx context.Context, p oneRunTrainParams, dataDir string, w *pipeline.Work) error {
	split, m, coords, err := canaryModel(ctx, p.Data, dataDir, p.Arch, p.DPSGD.Learn(), uint64(p.Seed), "onerun", "one-run audit", p.Key, p.Canaries)
	if err != nil {
		return err
	}
	tr := split.Train
	seed := uint64(p.Seed)
	n := p.Canaries
	cfg := p.DPSGD.Learn()
	br := rng.New(seed, "onerun", p.Key, "bits")
	in := make([]bool, n)
	var included []int
	for j := range in {
		in[j] = br.Uint64()&1 == 1
		if in[j] {
			included = append(included, coords[j])
		}
	}
	C := cfg.ClipNorm
	q := cfg.SamplingRate
	sigmaD := p.Claimed
	if sigmaD == 0 {
		sigmaD = cfg.NoiseMultiplier
	}
	inv2s2 := 1 / (2 * sigmaD * sigmaD)
	llr := make([]float64, n)
	proj := make([]float64, n)
	// Under matrix-factorization noise every canary's stream is kept for
	// the decorrelated score (decorrelate.go), and its group.
	var ys [][]float64
	var groups []int
	if p.DPSGD.Correlated != nil {
		ys = make([][]float64, n)
		for j := range ys {
			ys[j] = make([]float64, 0, cfg.Steps)
		}
	}
	h := &learn.Hooks{Dirac: included, DiracValue: float32(C), OnStep: func(s *learn.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ys != nil && s.DiracGroups != nil && groups == nil {
			groups = canaryGroups(s.DiracGroups, in, p.DPSGD.Groups, rng.New(seed, "onerun", p.Key, "groups"))
		}
		for j, c := range coords {
			y := float64(s.NoisySum[c]) / C
			if ys != nil {
				ys[j] = append(ys[j], y)
			}
			proj[j] += y
			z := (2*y - 1) * inv2s2
			if z > 30 {
				llr[j] += z + math.Log(q) + math.Log1p((1-q)/q*math.Exp(-z))
			} else {
				llr[j] += math.Log1p(q * math.Expm1(z))
			}
		}
		return nil
	}}
	if _, err := learn.Train(m, tr.X, tr.Y, cfg, rng.New(seed, "onerun", p.Key, "train"), h); err != nil {
		return fmt.Errorf("one-run training: %w", err)
	}
	t, err := oneRunTrials(p, in, coords, llr, proj, ys, groups)
	if err != nil {
		return err
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

// oneRunTrials is the one-run training's trials table: one row per canary
// with its inclusion bit, its likelihood-ratio and projection scores and,
// under matrix-factorization noise, its decorrelated score.
func oneRunTrials(p oneRunTrainParams, in []bool, coords []int, llr, proj []float64, ys [][]float64, groups []int) (*pipeline.Table, error) {
	n := len(in)
	trial, world, rep, cl, cp, cr := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	param := make([]any, n)
	for j := range n {
		trial[j], rep[j], cl[j], cp[j], param[j] = int64(j), int64(p.Repeat), llr[j], proj[j], int64(coords[j])
		cr[j] = math.NaN() // the data gradient on p_j is not measured
		if in[j] {
			world[j] = int64(1)
		} else {
			world[j] = int64(0)
		}
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, rep)
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	t.Add("canary_param", pipeline.Int64, param)
	t.Add("llr", pipeline.Float64, cl)
	t.Add("projection", pipeline.Float64, cp)
	t.Add("canary_residual", pipeline.Float64, cr)
	if ys != nil {
		dec, err := decorrelatedScores(p.DPSGD.Correlated, ys, groups, p.DPSGD.Groups)
		if err != nil {
			return nil, err
		}
		col := make([]any, n)
		for j, v := range dec {
			col[j] = v
		}
		t.Add("decorrelated", pipeline.Float64, col)
	}
	return t, nil
}

// checkGradientCanaries refuses, at compile time, more Dirac gradient
// canaries than the model has parameters (each canary needs its own).
func checkGradientCanaries(data stages.DataParams, arch learn.Arch, dataDir, what string, n int) error {
	split, err := stages.LoadSplit(data, dataDir)
	if err != nil {
		return &stages.PathError{Path: "dataset", Err: err}
	}
	m, err := learn.NewModel(arch, split.Train.Shape, split.Train.Classes, 0)
	if err != nil {
		return &stages.PathError{Path: "model", Err: err}
	}
	if n > m.NumParams() {
		hint := "fewer canaries or a larger model"
		if what == "one-run" {
			hint += ", or canary records (audit.canaries: input)"
		}
		return &stages.PathError{Path: "audit.trials", Err: fmt.Errorf("the %s audit's %d gradient canaries need as many parameters, the model has %d (%s)", what, n, m.NumParams(), hint)}
	}
	return nil
}

// canaryModel loads the training split and θ_0 of a canary audit (one-run
// or per-step) and picks the n quietest parameters for its canaries.
func canaryModel(ctx context.Context, data stages.DataParams, dataDir string, arch learn.Arch, cfg learn.DPSGD, seed uint64, game, what, key string, n int) (*datasets.Split, *learn.Model, []int, error) {
	split, err := stages.LoadSplit(data, dataDir)
	if err != nil {
		return nil, nil, nil, err
	}
	tr := split.Train
	m, err := learn.NewModel(arch, tr.Shape, tr.Classes, rng.Seed(seed, game, key, "init"))
	if err != nil {
		return nil, nil, nil, err
	}
	if n > m.NumParams() {
		return nil, nil, nil, fmt.Errorf("%s: %d gradient canaries need as many parameters, the model has %d", what, n, m.NumParams())
	}
	perm, err := quietParameters(ctx, m, tr, cfg, seed, game, key)
	if err != nil {
		return nil, nil, nil, err
	}
	return split, m, slices.Clone(perm[:n]), nil
}

// quietParameters orders the model's parameters by how much the data's
// clipped gradients move them (Nasr et al.'s Crafter 4 measure), least
// first, in a noise-free reference run of min(T, 100) steps from the same
// θ_0 with its own stream; ties (parameters the data never moves) by a
// seeded random order. Canaries go on the quietest: the data gradient on a
// canary's parameter adds to its scores (and changes the model the data
// sees) and only weakens the audit. game names the streams ("onerun",
// "perstep").
func quietParameters(ctx context.Context, m *learn.Model, tr *datasets.Dataset, cfg learn.DPSGD, seed uint64, game, key string) ([]int, error) {
	ref := m.Clone()
	rc := cfg
	rc.Steps = min(cfg.Steps, 100)
	mass := make([]float64, m.NumParams())
	if _, err := learn.Train(ref, tr.X, tr.Y, rc, rng.New(seed, game, key, "reference"), &learn.Hooks{CleanSum: true, OnStep: func(s *learn.Step) error {
		for i, v := range s.ClippedSum {
			mass[i] += math.Abs(float64(v))
		}
		return ctx.Err()
	}}); err != nil {
		return nil, fmt.Errorf("%s reference run: %w", game, err)
	}
	perm := rng.New(seed, game, key, "params").Perm(m.NumParams())
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(mass[a], mass[b]) })
	return perm, nil
}
