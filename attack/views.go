package attack

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
)

// The concrete release types. Each offers exactly the methods of its
// access level, so a distinguisher cannot reach more by a type assertion:
// blackBox is only a LossOracle, modelView a ModelView, stepView a
// StepView, gradientView a GradientStepView.

// blackBox answers loss queries on the final model.
type blackBox struct {
	m   *learn.Model
	out [1]float64
}

func (b *blackBox) Loss(x []float32, y int32) (float64, error) {
	return modelLoss(b.m, x, y, b.out[:])
}

// modelLoss evaluates one record's loss through the model's own code.
func modelLoss(m *learn.Model, x []float32, y int32, out []float64) (float64, error) {
	if len(x) != m.InputSize() {
		return 0, invalidf("loss query has %d features, model input has %d", len(x), m.InputSize())
	}
	if err := m.PerExampleLoss(x, []int32{y}, out[:1]); err != nil {
		return 0, fmt.Errorf("loss query: %w", err)
	}
	return out[0], nil
}

// modelView is white-box access to the final model. Its parameters are
// copied once, on first use.
type modelView struct {
	m      *learn.Model
	params []float32
	out    [1]float64
}

func (v *modelView) Loss(x []float32, y int32) (float64, error) {
	return modelLoss(v.m, x, y, v.out[:])
}

func (v *modelView) NumParams() int { return v.m.NumParams() }

func (v *modelView) CopyParams(dst []float32) error { return v.m.CopyParams(dst) }

func (v *modelView) ParamsDot(idx []int, w []float64) float64 {
	if v.params == nil {
		v.params = v.m.Params()
	}
	return sparseDot(v.params, idx, w)
}

// stepView is θ_t during training: the trainer's model, whose parameters
// are exactly Step.Params while OnStep runs.
type stepView struct {
	m      *learn.Model
	step   int
	params []float32 // the live parameter slice of this step
	out    [1]float64
}

func (v *stepView) Step() int { return v.step }

func (v *stepView) Loss(x []float32, y int32) (float64, error) {
	return modelLoss(v.m, x, y, v.out[:])
}

func (v *stepView) NumParams() int { return len(v.params) }

func (v *stepView) CopyParams(dst []float32) error {
	if len(dst) != len(v.params) {
		return invalidf("copy params: dst has %d values, model has %d", len(dst), len(v.params))
	}
	copy(dst, v.params)
	return nil
}

func (v *stepView) ParamsDot(idx []int, w []float64) float64 { return sparseDot(v.params, idx, w) }

// gradientView adds step t's noisy sum.
type gradientView struct {
	stepView
	sum []float32
}

func (v *gradientView) NoisySumDot(idx []int, w []float64) float64 { return sparseDot(v.sum, idx, w) }

func (v *gradientView) CopyNoisySum(dst []float32) error {
	if len(dst) != len(v.sum) {
		return invalidf("copy noisy sum: dst has %d values, model has %d", len(dst), len(v.sum))
	}
	copy(dst, v.sum)
	return nil
}

// sparseDot returns Σ_i w[i]·v[idx[i]] in float64, or NaN when the
// slices disagree or an index is out of range (the trial runner turns a
// NaN score into an error instead of panicking).
func sparseDot(v []float32, idx []int, w []float64) float64 {
	if len(idx) != len(w) {
		return math.NaN()
	}
	var s float64
	for i, p := range idx {
		if p < 0 || p >= len(v) {
			return math.NaN()
		}
		s += w[i] * float64(v[p])
	}
	return s
}
