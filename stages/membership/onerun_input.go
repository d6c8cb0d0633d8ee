package membership

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/datasets"
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
	ts := canaryTrainingSet(tr, set, in)
	model, err := learn.NewModel(p.Arch, tr.Shape, tr.Classes, rng.Seed(seed, "onerun", p.Key, "init"))
	if err != nil {
		return err
	}
	losses := canaryLosses{cX: ts.cX, cY: ts.cY, initial: make([]float64, n), final: make([]float64, n)}
	if err := model.PerExampleLoss(ts.cX, ts.cY, losses.initial); err != nil {
		return err
	}
	if err := trainWithCanaries(ctx, p, model, ts, &losses); err != nil {
		return err
	}
	// Utility of the audited model: accuracy on the test records that are
	// not canaries (pool canaries come from the test split).
	acc, err := testAccuracy(model, te.X, te.Y, tr.D, set)
	if err != nil {
		return err
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), oneRunInputTable(p, set, in, &losses, acc))
}

// canarySet is a one-run training set with input canaries: every record
// that is not a canary, then the included canaries in canary order (X, Y;
// base of them not canaries), and every canary (cX, cY).
type canarySet struct {
	X, cX []float32
	Y, cY []int32
	base  int
}

func canaryTrainingSet(tr *datasets.Dataset, set *attack.CanarySet, in []bool) canarySet {
	n, D := len(in), tr.D
	isCanary := make(map[int]bool)
	for _, i := range set.Train {
		if i >= 0 {
			isCanary[i] = true
		}
	}
	ts := canarySet{X: make([]float32, 0, (tr.N+n)*D), Y: make([]int32, 0, tr.N+n), cX: make([]float32, 0, n*D), cY: make([]int32, n)}
	for i := range tr.N {
		if !isCanary[i] {
			ts.X, ts.Y = append(ts.X, tr.X[i*D:(i+1)*D]...), append(ts.Y, tr.Y[i])
		}
	}
	ts.base = len(ts.Y)
	for j, rec := range set.Records {
		ts.cX, ts.cY[j] = append(ts.cX, rec.X...), rec.Y
		if in[j] {
			ts.X, ts.Y = append(ts.X, rec.X...), append(ts.Y, rec.Y)
		}
	}
	return ts
}

// canaryLosses are every canary's loss on θ_0 and θ_T and, with
// intermediate_loss, the max and sum over the models θ_1 … θ_T.
type canaryLosses struct {
	cX               []float32
	cY               []int32
	initial, final   []float64
	maxLoss, sumLoss []float64
	models           int
	buf              []float64
}

// add records the canaries' losses on the model as it is now.
func (l *canaryLosses) add(m *learn.Model) error {
	if l.buf == nil {
		n := len(l.cY)
		l.maxLoss, l.sumLoss, l.buf = make([]float64, n), make([]float64, n), make([]float64, n)
		for j := range l.maxLoss {
			l.maxLoss[j] = math.Inf(-1)
		}
	}
	if err := m.PerExampleLoss(l.cX, l.cY, l.buf); err != nil {
		return err
	}
	for j, v := range l.buf {
		l.maxLoss[j] = math.Max(l.maxLoss[j], v)
		l.sumLoss[j] += v
	}
	l.models++
	return nil
}

// trainWithCanaries runs the one DP-SGD training on the canary set, with
// the normaliser fixed to q·(N + m/2), and records the canaries' losses.
func trainWithCanaries(ctx context.Context, p oneRunInputParams, model *learn.Model, ts canarySet, losses *canaryLosses) error {
	cfg := p.DPSGD.Learn()
	cfg.ExpectedBatchSize = cfg.SamplingRate * (float64(ts.base) + float64(len(ts.cY))/2)
	// intermediate_loss: the canaries' loss on θ_1 … θ_{T−1} here (OnStep
	// sees the trainer's model at θ_{t−1}; θ_0 does not depend on the
	// bits), θ_T after training.
	h := &learn.Hooks{OnStep: func(s *learn.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Intermediate && s.Index > 0 {
			return losses.add(model)
		}
		return nil
	}}
	if _, err := learn.Train(model, ts.X, ts.Y, cfg, rng.New(uint64(p.Seed), "onerun", p.Key, "train"), h); err != nil {
		return fmt.Errorf("one-run training with input canaries: %w", err)
	}
	if err := model.PerExampleLoss(ts.cX, ts.cY, losses.final); err != nil {
		return err
	}
	if p.Intermediate {
		return losses.add(model)
	}
	return nil
}

// oneRunInputTable is the shard's table: one row per canary.
func oneRunInputTable(p oneRunInputParams, set *attack.CanarySet, in []bool, l *canaryLosses, acc float64) *pipeline.Table {
	n := len(in)
	trial, world, rep, loss, init, label, idx, cr, ta := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for j := range n {
		trial[j], rep[j], loss[j], init[j] = int64(j), int64(p.Repeat), l.final[j], l.initial[j]
		label[j], idx[j], cr[j], ta[j] = int64(l.cY[j]), int64(set.Index[j]), math.NaN(), acc
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
			mx[j], mean[j] = l.maxLoss[j], l.sumLoss[j]/float64(l.models)
		}
		t.Add("max_loss", pipeline.Float64, mx)
		t.Add("mean_loss", pipeline.Float64, mean)
	}
	t.Add("canary_label", pipeline.Int64, label)
	t.Add("canary_index", pipeline.Int64, idx)
	t.Add("test_accuracy", pipeline.Float64, ta)
	t.Add("canary_residual", pipeline.Float64, cr)
	return t
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
