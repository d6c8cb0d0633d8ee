package train

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// FIL accounting inside DP-SGD (train: {fil: …}): each training run also
// accumulates every training sample's dFIL η̄² (Guo et al. 2022, Alg. 1,
// learn.FIL) and writes it to fil.json; the point averages η̄² per sample
// over the runs (as Guo et al. average 10 repeats) and reports the max and
// median with their MSE bounds 1/η̄².

const filFile = "fil.json"

type filParams struct {
	Coordinates int     `json:"coordinates"`
	Delta       float64 `json:"delta"`
	Subsampling bool    `json:"subsampling"`
	Step        float64 `json:"step"`
}

var filColumns = []string{"fil_kappa", "fil_step_epsilon", "fil_dfil_max", "fil_dfil_median", "fil_bound_max_dfil", "fil_bound_median_dfil", "fil_seconds", "fil_overhead"}

func filParamsOf(f *spec.TrainFIL) *filParams {
	if f == nil {
		return nil
	}
	return &filParams{Coordinates: f.Coordinates, Delta: f.Delta, Subsampling: f.Subsampling, Step: f.Step}
}

// filScale returns κ/(σ²C²) and the step's ε (Guo et al.: the classic
// Gaussian ε with replace-one sensitivity 2C, times 1.115 for the soft clip;
// κ = q/(q + (1 − q)e^{−ε}), Theorem 4). The 1/C² is the noise's (σC)²
// that their Eq. 1 omits (notes §2.5).
func filScale(cfg learn.DPSGD, p filParams) (scale, kappa, eps float64, err error) {
	if !(cfg.NoiseMultiplier > 0) {
		return 0, 0, 0, fmt.Errorf("FIL accounting needs noise (σ > 0): without it the Fisher information is infinite")
	}
	if eps, err = bounds.FILStepEpsilon(cfg.NoiseMultiplier, p.Delta, true); err != nil {
		return 0, 0, 0, err
	}
	kappa = 1
	if p.Subsampling {
		if kappa, err = bounds.FILSubsamplingFactor(cfg.SamplingRate, eps); err != nil {
			return 0, 0, 0, err
		}
	}
	sc := cfg.NoiseMultiplier * cfg.ClipNorm
	return kappa / (sc * sc), kappa, eps, nil
}

func newFIL(m *learn.Model, x []float32, y []int32, cfg learn.DPSGD, p filParams, seed uint64) (*learn.FIL, error) {
	scale, _, _, err := filScale(cfg, p)
	if err != nil {
		return nil, err
	}
	return learn.NewFIL(m, x, y, cfg, p.Coordinates, p.Step, scale, rng.New(seed, "fil"))
}

type filRun struct {
	Eta2    []float64 `json:"eta2"`
	Seconds float64   `json:"seconds"`
}

// writeFIL stores a run's per-sample η̄² and returns its columns.
func writeFIL(dir string, f *learn.FIL, trainSecs float64) ([]stages.Output, error) {
	b, err := json.Marshal(filRun{Eta2: f.Eta2, Seconds: f.Seconds})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, filFile), b, 0o644); err != nil {
		return nil, err
	}
	return []stages.Output{stages.F64("fil_seconds", f.Seconds), stages.F64("fil_overhead", f.Seconds/math.Max(trainSecs-f.Seconds, 1e-9))}, nil
}

// aggregateFIL averages η̄² per sample over the runs.
func aggregateFIL(p trainAggParams, dirs []string, cols map[string][]float64) ([]stages.Output, error) {
	_, kappa, eps, err := filScale(learn.DPSGD{NoiseMultiplier: p.NoiseMultiplier, SamplingRate: p.SamplingRate, ClipNorm: 1}, *p.FIL)
	if err != nil {
		return nil, err
	}
	var mean []float64
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, filFile))
		if err != nil {
			return nil, err
		}
		var r filRun
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		if mean == nil {
			mean = make([]float64, len(r.Eta2))
		}
		for i, v := range r.Eta2 {
			mean[i] += v / float64(len(dirs))
		}
	}
	mx, md := slices.Max(mean), audit.Median(mean)
	inv := func(x float64) float64 { return 1 / x } // +Inf for a sample never sampled
	avg := func(name string) float64 { m, _ := audit.MeanStd(cols[name]); return m }
	return []stages.Output{
		stages.F64("fil_kappa", kappa), stages.F64("fil_step_epsilon", eps),
		stages.F64("fil_dfil_max", mx), stages.F64("fil_dfil_median", md),
		stages.F64("fil_bound_max_dfil", inv(mx)), stages.F64("fil_bound_median_dfil", inv(md)),
		stages.F64("fil_seconds", avg("fil_seconds")), stages.F64("fil_overhead", avg("fil_overhead")),
	}, nil
}
