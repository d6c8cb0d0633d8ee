package stages

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/spec"
)

// TrainDPSGD is the part of the dpsgd block that training depends on
// (δ is not: it only matters to the accountant).
type TrainDPSGD struct {
	NoiseMultiplier float64 `json:"noise_multiplier"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
	ClipNorm        float64 `json:"clip_norm"`
	LearningRate    float64 `json:"learning_rate"`
	Momentum        float64 `json:"momentum"`
	WeightDecay     float64 `json:"weight_decay"`
	Sampling        string  `json:"sampling"`
	Clip            string  `json:"clip"`
	// Groups and Correlated (cyclic sampling, matrix-factorization noise)
	// are left out when absent, so that other runs keep their keys.
	Groups     int         `json:"groups,omitempty"`
	Correlated *Correlated `json:"correlated,omitempty"`
}

// MarshalJSON writes an infinite clip norm (non-private training), which
// JSON cannot hold, as "+Inf".
func (d TrainDPSGD) MarshalJSON() ([]byte, error) {
	type plain TrainDPSGD
	clip := any(d.ClipNorm)
	if math.IsInf(d.ClipNorm, 1) {
		clip = "+Inf"
	}
	return json.Marshal(struct {
		plain
		ClipNorm any `json:"clip_norm"`
	}{plain(d), clip})
}

// TrainConfig is the training part of a spec's dpsgd block.
func TrainConfig(d *spec.DPSGD) TrainDPSGD {
	return TrainDPSGD{
		NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps,
		ClipNorm: d.ClipNorm, LearningRate: d.LearningRate, Momentum: d.Momentum,
		WeightDecay: d.WeightDecay, Sampling: d.Sampling, Clip: d.Clip,
		Groups: d.Groups, Correlated: CorrelatedOf(d.Correlated),
	}
}

// Learn is the trainer's configuration (one thread: nodes run in
// parallel instead).
func (d TrainDPSGD) Learn() learn.DPSGD {
	return learn.DPSGD{
		ClipNorm: d.ClipNorm, NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate,
		Steps: d.Steps, LearningRate: d.LearningRate, Momentum: d.Momentum, WeightDecay: d.WeightDecay,
		Sampling: d.Sampling, Clip: d.Clip, Threads: 1, Groups: d.Groups, Correlated: d.Correlated.Learn(),
	}
}

// ArchFor converts the spec's model block; flatten says whether the model
// takes flat vectors.
func ArchFor(m *spec.Model) (learn.Arch, bool, error) {
	switch {
	case m.LogReg != nil:
		return learn.Arch{Kind: learn.KindLogReg, NoBias: !m.LogReg.Bias, Init: m.LogReg.Init}, true, nil
	case m.MLP != nil:
		return learn.Arch{Kind: learn.KindMLP, Hidden: m.MLP.Hidden, Activation: learn.Activation(m.MLP.Activation), Init: m.MLP.Init}, true, nil
	case m.CNN != nil:
		a := learn.TanhCNN()
		switch m.CNN.Preset {
		case "bernau-mnist":
			a = learn.BernauCNN()
		case "bernau-mnist-maxpool":
			a = learn.BernauCNNMaxPool()
		}
		a.Init = m.CNN.Init
		return a, false, nil
	case m.Layers != nil:
		return layersArch(m.Layers), false, nil
	}
	return learn.Arch{}, false, fmt.Errorf("model %q cannot be trained", m.Arch)
}

// TrainedModel is the architecture and data parameters of a spec point
// that trains a model, checked against each other (positioned errors).
func TrainedModel(exp *spec.Experiment, dataDir string) (learn.Arch, DataParams, error) {
	arch, flatten, err := ArchFor(exp.Model)
	if err != nil {
		return learn.Arch{}, DataParams{}, &PathError{"model.arch", err}
	}
	data, err := DatasetParams(exp.Dataset, exp.Seed, flatten)
	if err != nil {
		return learn.Arch{}, DataParams{}, DataError(err)
	}
	if err := CheckTrainable(data, arch, dataDir); err != nil {
		return learn.Arch{}, DataParams{}, err
	}
	return arch, data, nil
}

// CheckTrainable loads the data (cached for the run) and builds the model
// once, so that missing files, empty class filters and shape mismatches are
// reported before anything runs.
func CheckTrainable(data DataParams, arch learn.Arch, dataDir string) error {
	split, err := LoadSplit(data, dataDir)
	if err != nil {
		return loadError(err)
	}
	if _, err := learn.NewModel(arch, split.Train.Shape, split.Train.Classes, 0); err != nil {
		if le := layerError(arch, err); le != nil {
			return le
		}
		return &PathError{"model", fmt.Errorf("does not fit the data (%v examples of shape %v, %d classes): %w", split.Train.N, split.Train.Shape, split.Train.Classes, err)}
	}
	return nil
}
