// Package train is the training game (a spec's train block): per point,
// train.runs DP-SGD runs of the point's model on its data, each a node
// (test and training accuracy and loss, time, and with train.fil each
// training sample's dFIL), and one node that aggregates them into the
// point's row (means, a Student-t interval of the test accuracy, the
// accountant's ε).
package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

const (
	trainRunVersion = 1
	trainVersion    = 1
)

// trainRunParams is one training run. ClipNorm may be +Inf, which JSON
// cannot hold, so it is encoded by MarshalJSON below.
type trainRunParams struct {
	Data  stages.DataParams `json:"data"`
	Arch  learn.Arch        `json:"arch"`
	DPSGD stages.TrainDPSGD `json:"dpsgd"`
	Run   int               `json:"run"`
	Seed  uint64            `json:"seed"`
	FIL   *filParams        `json:"fil,omitempty"` // absent: the key of a run without FIL is unchanged
}

// Game is the training game.
var Game = &stages.Game{
	Name:        "training",
	AppliesTo:   func(exp *spec.Experiment) bool { return exp.Train != nil },
	Compile:     compile,
	Kinds:       []string{"train_run", "train"},
	Implements:  map[string][]string{"train": {""}},
	MatrixNoise: true,
}

// compile makes the point's K run nodes and their aggregate.
func compile(b *stages.Build) error {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return err
	}
	d := exp.DPSGD
	td := stages.TrainConfig(d)
	// Runs are seeded from the spec seed and the training configuration,
	// so equal configurations share runs and the streams never depend on
	// the point's position in the sweep.
	cfg, _ := json.Marshal(struct {
		D stages.DataParams
		A learn.Arch
		T stages.TrainDPSGD
	}{data, arch, td})
	h := sha256.Sum256(cfg)
	cfgID := hex.EncodeToString(h[:8])
	var runs []*pipeline.Node
	for k := 0; k < exp.Train.Runs; k++ {
		p := trainRunParams{Data: data, Arch: arch, DPSGD: td, Run: k, Seed: rng.Seed(uint64(exp.Seed), "train", cfgID, k), FIL: filParamsOf(exp.Train.FIL)}
		n := &pipeline.Node{
			Kind:    "train_run",
			Version: trainRunVersion,
			Params:  p,
			Label:   fmt.Sprintf("%s %s σ=%.4g q=%.4g T=%d run %d", data.Source.Name, arch.Kind, td.NoiseMultiplier, td.SamplingRate, td.Steps, k),
			Slot:    fmt.Sprintf("%s/train_run/%d/%d", name, pt.Index, k),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				outs, err := runTraining(ctx, p, env.DataDir, w)
				if err != nil {
					return err
				}
				return stages.WriteValues(w.Dir, outs)
			},
		}
		runs = append(runs, b.Add(n))
	}
	ap := trainAggParams{Runs: exp.Train.Runs, NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps, Delta: d.Delta, FIL: filParamsOf(exp.Train.FIL),
		Sampling: td.Sampling, Groups: td.Groups, Correlated: td.Correlated}
	if ap.Sampling != "cyclic" {
		ap.Sampling = "" // only cyclic sampling changes the ε computed here
	}
	agg := &pipeline.Node{
		Kind:    "train",
		Version: trainVersion,
		Params:  ap,
		Inputs:  runs,
		Label:   fmt.Sprintf("%s %s σ=%.4g q=%.4g T=%d (%d runs)", data.Source.Name, arch.Kind, td.NoiseMultiplier, td.SamplingRate, td.Steps, exp.Train.Runs),
		Slot:    fmt.Sprintf("%s/train/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := aggregateTraining(ap, w.Inputs)
			if err != nil {
				return err
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}
	cols := trainColumns
	if ap.FIL != nil {
		cols = append(slices.Clone(cols), filColumns...)
	}
	b.Row(agg, cols)
	return nil
}

func runTraining(ctx context.Context, p trainRunParams, dataDir string, w *pipeline.Work) ([]stages.Output, error) {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return nil, err
	}
	tr, te := split.Train, split.Test
	m, err := learn.NewModel(p.Arch, tr.Shape, tr.Classes, rng.Seed(p.Seed, "init"))
	if err != nil {
		return nil, err
	}
	cfg := p.DPSGD.Learn()
	var fil *learn.FIL
	if p.FIL != nil {
		if fil, err = newFIL(m, tr.X, tr.Y, cfg, *p.FIL, p.Seed); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	res, err := learn.Train(m, tr.X, tr.Y, cfg, rng.New(p.Seed, "dpsgd"), &learn.Hooks{
		OnStep: func(s *learn.Step) error {
			if fil != nil {
				if err := fil.Observe(s); err != nil {
					return err
				}
			}
			return ctx.Err()
		},
	})
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	var filOuts []stages.Output
	if fil != nil {
		if filOuts, err = writeFIL(w.Dir, fil, secs); err != nil {
			return nil, err
		}
	}
	for _, msg := range res.Warnings {
		w.Warnf("%s", msg)
	}
	testAcc, err := m.Accuracy(te.X, te.Y)
	if err != nil {
		return nil, err
	}
	testLoss, err := m.Loss(te.X, te.Y)
	if err != nil {
		return nil, err
	}
	trainAcc, err := m.Accuracy(tr.X, tr.Y)
	if err != nil {
		return nil, err
	}
	trainLoss, err := m.Loss(tr.X, tr.Y)
	if err != nil {
		return nil, err
	}
	return append([]stages.Output{
		stages.F64("test_accuracy", testAcc),
		stages.F64("test_loss", testLoss),
		stages.F64("train_accuracy", trainAcc),
		stages.F64("train_loss", trainLoss),
		stages.F64("train_seconds", secs),
		stages.F64("mean_batch_size", res.MeanBatchSize),
		stages.Bool("matches_accountant", res.MatchesAccountant),
	}, filOuts...), nil
}

type trainAggParams struct {
	Runs            int        `json:"runs"`
	NoiseMultiplier float64    `json:"noise_multiplier"`
	SamplingRate    float64    `json:"sampling_rate"`
	Steps           int        `json:"steps"`
	Delta           float64    `json:"delta"`
	FIL             *filParams `json:"fil,omitempty"`
	// Cyclic sampling and matrix-factorization noise (left out when
	// absent: other points keep their keys) are accounted as their
	// matrix mechanism.
	Sampling   string             `json:"sampling,omitempty"`
	Groups     int                `json:"groups,omitempty"`
	Correlated *stages.Correlated `json:"correlated,omitempty"`
}

var trainColumns = []string{
	"runs", "test_accuracy", "test_accuracy_lo", "test_accuracy_hi", "test_accuracy_std",
	"test_loss", "train_accuracy", "train_loss", "train_seconds", "epsilon", "matches_accountant",
}

// aggregateTraining summarises K runs: means, and a 95% Student-t interval
// of the mean test accuracy over runs (null for a single run).
func aggregateTraining(p trainAggParams, dirs []string) ([]stages.Output, error) {
	cols := map[string][]float64{}
	matches := true
	for _, d := range dirs {
		outs, err := stages.ReadValues(d)
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			switch v := o.Value.(type) {
			case float64:
				cols[o.Name] = append(cols[o.Name], v)
			case bool:
				if o.Name == "matches_accountant" {
					matches = matches && v
				}
			}
		}
	}
	acc := cols["test_accuracy"]
	mean, std := audit.MeanStd(acc)
	var lo, hi any
	if k := len(acc); k >= 2 {
		l, h := audit.TInterval(mean, std, k, 0.95)
		lo, hi = math.Max(0, l), math.Min(1, h)
	}
	eps := math.Inf(1)
	if p.NoiseMultiplier > 0 {
		var err error
		m, _, err := stages.Accounted(p.NoiseMultiplier, p.SamplingRate, p.Steps, p.Sampling, p.Groups, p.Correlated)
		if err == nil {
			eps, err = privacy.Epsilon(privacy.AccountantPLD, m, p.Delta, privacy.Options{})
		}
		if err != nil {
			return nil, err
		}
	}
	avg := func(name string) float64 { m, _ := audit.MeanStd(cols[name]); return m }
	outs := []stages.Output{
		stages.Int("runs", int64(len(dirs))),
		stages.F64("test_accuracy", mean),
		stages.F64("test_accuracy_lo", lo),
		stages.F64("test_accuracy_hi", hi),
		stages.F64("test_accuracy_std", std),
		stages.F64("test_loss", avg("test_loss")),
		stages.F64("train_accuracy", avg("train_accuracy")),
		stages.F64("train_loss", avg("train_loss")),
		stages.F64("train_seconds", avg("train_seconds")),
		stages.F64("epsilon", eps),
		stages.Bool("matches_accountant", matches),
	}
	if p.FIL != nil {
		fo, err := aggregateFIL(p, dirs, cols)
		if err != nil {
			return nil, err
		}
		outs = append(outs, fo...)
	}
	return outs, nil
}
