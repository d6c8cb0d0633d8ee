package membership

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// One-run audit of a trained model with INPUT canaries (Steinke, Nasr &
// Jagielski 2023, §7, black box): the crafter makes m distinct canary
// records (mislabelled records, in-distribution records, or uniform
// out-of-distribution inputs), each included in the training set with
// probability ½, and ONE DP-SGD run trains on the training set plus the
// included canaries (source train: the canaries leave the always-included
// part, so an excluded canary is simply absent). The auditor sees only the
// final model and scores every canary by its loss on it (the
// loss_threshold distinguisher; lower loss = guess "included"), or, with
// intermediate_loss (threat model intermediate_poison), its loss on every
// model θ_1 … θ_T reduced by max or mean (Nasr et al.'s Distinguisher 2;
// lower = "included"). The
// trainer's normaliser is fixed to q·(N + m/2) — N the always-included
// records — so the update stays a post-processing of the noisy sum with a
// constant that does not depend on which canaries are in. Canaries,
// inclusion bits, θ_0 and the run derive from the spec seed and the
// point's key.
const oneRunInputVersion = 1

type oneRunInputParams struct {
	Key      string            `json:"point_key"`
	Data     stages.DataParams `json:"data"`
	Arch     learn.Arch        `json:"arch"`
	DPSGD    stages.TrainDPSGD `json:"dpsgd"`
	Crafter  spec.Crafter      `json:"crafter"`
	Canaries int               `json:"canaries"`
	Seed     int64             `json:"seed"`
	Repeat   int               `json:"repeat,omitempty"`
	// Intermediate: also score every canary on every intermediate model
	// (distinguisher intermediate_loss; absent keeps the key of a
	// final-loss audit).
	Intermediate bool `json:"intermediate,omitempty"`
}

// oneRunInputStages checks the game at compile time (the threat model
// grants the crafter and distinguisher; the data holds the canaries) and
// adds one training node per repeat.
func oneRunInputStages(b *stages.Build, repeats int) (string, []string, []*pipeline.Node, error) {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return "", nil, nil, err
	}
	crafter, err := crafterFor(exp.Crafter)
	if err == nil {
		err = crafter.Validate()
	}
	if err != nil {
		return "", nil, nil, &stages.PathError{Path: "crafter", Err: err}
	}
	dist, err := distinguisherFor(exp.Distinguisher)
	if err != nil {
		return "", nil, nil, &stages.PathError{Path: "distinguisher", Err: err}
	}
	if err := attack.CheckPair(crafter, dist, attack.ThreatModels[exp.Audit.ThreatModel]); err != nil {
		return "", nil, nil, &stages.PathError{Path: "audit.threat_model", Err: err}
	}
	split, err := stages.LoadSplit(data, env.DataDir)
	if err != nil {
		return "", nil, nil, &stages.PathError{Path: "dataset", Err: err}
	}
	m := exp.Audit.Trials
	limit, what, err := attack.MaxInputCanaries(crafter, split.Train.N, split.Test.N)
	if err != nil {
		return "", nil, nil, &stages.PathError{Path: "crafter", Err: err}
	}
	if limit >= 0 && m > limit {
		return "", nil, nil, &stages.PathError{Path: "audit.trials", Err: fmt.Errorf("%d input canaries, but %s gives %d %s", m, exp.Crafter.Kind, limit, what)}
	}
	if exp.Crafter.Noise != nil && exp.Crafter.Noise.Label >= split.Train.Classes {
		return "", nil, nil, &stages.PathError{Path: "crafter.label", Err: fmt.Errorf("label %d, the data has %d classes", exp.Crafter.Noise.Label, split.Train.Classes)}
	}
	p := oneRunInputParams{Data: data, Arch: arch, DPSGD: stages.TrainConfig(exp.DPSGD), Crafter: *exp.Crafter, Canaries: m, Seed: exp.Seed,
		Intermediate: exp.Distinguisher.Intermediate != nil}
	base := stages.HashKey(p)
	var keys []string
	var nodes []*pipeline.Node
	for r := range repeats {
		q := p
		q.Key, q.Repeat = stages.RepeatKey(base, r), r
		keys = append(keys, q.Key)
		nodes = append(nodes, b.Add(&pipeline.Node{
			Kind: "onerun_input_train", Version: oneRunInputVersion, Params: q,
			Label: fmt.Sprintf("one run, %d %s canaries, %s %s σ=%.4g q=%.4g T=%d%s", m, exp.Crafter.Kind, data.Source.Name, arch.Kind,
				q.DPSGD.NoiseMultiplier, q.DPSGD.SamplingRate, q.DPSGD.Steps, stages.RepeatLabel(r, repeats)),
			Slot: fmt.Sprintf("%s/onerun/%d%s", name, pt.Index, stages.RepeatSlot(r)),
			Run:  func(ctx context.Context, w *pipeline.Work) error { return runOneRunInput(ctx, q, env.DataDir, w) },
		}))
	}
	return base, keys, nodes, nil
}

func runOneRunInput(ctx context.Context, p oneRunInputParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	tr, te := split.Train, split.Test
	crafter, err := crafterFor(&p.Crafter)
	if err != nil {
		return err
	}
	seed := uint64(p.Seed)
	n := p.Canaries
	set, err := attack.InputCanaries(crafter, attack.CraftInput{Arch: p.Arch, InShape: tr.Shape, Classes: tr.Classes, DPSGD: p.DPSGD.Learn(),
		X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y, Seed: rng.Seed(seed, "onerun", p.Key, "canaries")}, n)
	if err != nil {
		return err
	}
	br := rng.New(seed, "onerun", p.Key, "bits")
	in := make([]bool, n)
	for j := range in {
		in[j] = br.Uint64()&1 == 1
	}
	// The training set: every record that is not a canary, then the
	// included canaries in canary order.
	D := tr.D
	isCanary := make(map[int]bool)
	for _, i := range set.Train {
		if i >= 0 {
			isCanary[i] = true
		}
	}
	X := make([]float32, 0, (tr.N+n)*D)
	Y := make([]int32, 0, tr.N+n)
	for i := range tr.N {
		if !isCanary[i] {
			X, Y = append(X, tr.X[i*D:(i+1)*D]...), append(Y, tr.Y[i])
		}
	}
	base := len(Y)
	cX := make([]float32, 0, n*D)
	cY := make([]int32, n)
	for j, rec := range set.Records {
		cX, cY[j] = append(cX, rec.X...), rec.Y
		if in[j] {
			X, Y = append(X, rec.X...), append(Y, rec.Y)
		}
	}
	model, err := learn.NewModel(p.Arch, tr.Shape, tr.Classes, rng.Seed(seed, "onerun", p.Key, "init"))
	if err != nil {
		return err
	}
	initial := make([]float64, n)
	if err := model.PerExampleLoss(cX, cY, initial); err != nil {
		return err
	}
	cfg := p.DPSGD.Learn()
	cfg.ExpectedBatchSize = cfg.SamplingRate * (float64(base) + float64(n)/2)
	// intermediate_loss: the canaries' loss on θ_1 … θ_{T−1} here (OnStep
	// sees the trainer's model at θ_{t−1}; θ_0 does not depend on the
	// bits), θ_T after training.
	maxLoss, sumLoss := make([]float64, n), make([]float64, n)
	for j := range maxLoss {
		maxLoss[j] = math.Inf(-1)
	}
	models := 0
	buf := make([]float64, n)
	addLosses := func() error {
		if err := model.PerExampleLoss(cX, cY, buf); err != nil {
			return err
		}
		for j, l := range buf {
			maxLoss[j] = math.Max(maxLoss[j], l)
			sumLoss[j] += l
		}
		models++
		return nil
	}
	h := &learn.Hooks{OnStep: func(s *learn.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Intermediate && s.Index > 0 {
			return addLosses()
		}
		return nil
	}}
	if _, err := learn.Train(model, X, Y, cfg, rng.New(seed, "onerun", p.Key, "train"), h); err != nil {
		return fmt.Errorf("one-run training with input canaries: %w", err)
	}
	final := make([]float64, n)
	if err := model.PerExampleLoss(cX, cY, final); err != nil {
		return err
	}
	if p.Intermediate {
		if err := addLosses(); err != nil {
			return err
		}
	}
	// Utility of the audited model: accuracy on the test records that are
	// not canaries (pool canaries come from the test split).
	acc, err := testAccuracy(model, te.X, te.Y, D, set)
	if err != nil {
		return err
	}
	trial, world, rep, loss, init, label, idx, cr, ta := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for j := range n {
		trial[j], rep[j], loss[j], init[j] = int64(j), int64(p.Repeat), final[j], initial[j]
		label[j], idx[j], cr[j], ta[j] = int64(cY[j]), int64(set.Index[j]), math.NaN(), acc
		world[j] = int64(0)
		if in[j] {
			world[j] = int64(1)
		}
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, rep)
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	t.Add("loss", pipeline.Float64, loss)
	t.Add("initial_loss", pipeline.Float64, init)
	if p.Intermediate {
		mx, mean := make([]any, n), make([]any, n)
		for j := range n {
			mx[j], mean[j] = maxLoss[j], sumLoss[j]/float64(models)
		}
		t.Add("max_loss", pipeline.Float64, mx)
		t.Add("mean_loss", pipeline.Float64, mean)
	}
	t.Add("canary_label", pipeline.Int64, label)
	t.Add("canary_index", pipeline.Int64, idx)
	t.Add("test_accuracy", pipeline.Float64, ta)
	t.Add("canary_residual", pipeline.Float64, cr)
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

// testAccuracy is the model's accuracy on the test records that are not
// pool canaries (NaN without such records).
func testAccuracy(m *learn.Model, X []float32, Y []int32, D int, set *attack.CanarySet) (float64, error) {
	skip := make(map[int]bool)
	for j, i := range set.Index {
		if i >= 0 && set.Train[j] < 0 {
			skip[i] = true
		}
	}
	if len(skip) == 0 {
		if len(Y) == 0 {
			return math.NaN(), nil
		}
		return m.Accuracy(X, Y)
	}
	var kx []float32
	var ky []int32
	for i := range Y {
		if !skip[i] {
			kx, ky = append(kx, X[i*D:(i+1)*D]...), append(ky, Y[i])
		}
	}
	if len(ky) == 0 {
		return math.NaN(), nil
	}
	return m.Accuracy(kx, ky)
}
