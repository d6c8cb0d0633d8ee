package learn

import (
	"fmt"
	"math"
)

// evalChunk is the chunk size of the evaluation helpers.
const evalChunk = 256

// evalWorkspace returns a workspace for the evaluation helpers, reused
// across calls (and goroutines) through the model's pool, so that repeated
// calls by an attack do not reallocate the buffers.
func (m *Model) evalWorkspace() *workspace {
	if w, ok := m.evalPool.Get().(*workspace); ok {
		return w
	}
	return newWorkspace(m, evalChunk, true)
}

// forEachChunk runs the model forward over X in chunks, calling fn with the
// chunk's start record, size and workspace. It checks shapes, labels and
// finiteness first.
func (m *Model) forEachChunk(X []float32, Y []int32, fn func(start, b int, w *workspace)) error {
	if err := m.checkData(X, Y); err != nil {
		return err
	}
	if ok, j := allFinite(X); !ok {
		return fmt.Errorf("data: record %d feature %d is %v", j/m.inSize, j%m.inSize, X[j])
	}
	n := len(Y)
	w := m.evalWorkspace()
	defer m.evalPool.Put(w)
	idx := make([]int, 0, w.maxB)
	for start := 0; start < n; start += w.maxB {
		b := min(w.maxB, n-start)
		idx = idx[:0]
		for i := start; i < start+b; i++ {
			idx = append(idx, i)
		}
		w.gather(X, Y, idx, nil, 0, false)
		w.forward(b)
		fn(start, b, w)
	}
	return nil
}

// Accuracy returns the fraction of records whose predicted class (argmax of
// the logits, or logit > 0 for a sigmoid head) equals the label.
func (m *Model) Accuracy(X []float32, Y []int32) (float64, error) {
	if len(Y) == 0 {
		return 0, fmt.Errorf("accuracy: no records")
	}
	pred := make([]int32, evalChunk)
	correct := 0
	err := m.forEachChunk(X, Y, func(start, b int, w *workspace) {
		predict(w.logits(b), b, m.logits, m.sigmoid, pred)
		for k := 0; k < b; k++ {
			if pred[k] == Y[start+k] {
				correct++
			}
		}
	})
	if err != nil {
		return 0, fmt.Errorf("accuracy: %w", err)
	}
	return float64(correct) / float64(len(Y)), nil
}

// Predict writes the predicted class of every record into out (len N).
func (m *Model) Predict(X []float32, out []int32) error {
	n := len(out)
	err := m.forEachChunk(X, make([]int32, n), func(start, b int, w *workspace) {
		predict(w.logits(b), b, m.logits, m.sigmoid, out[start:start+b])
	})
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	return nil
}

// Loss returns the mean cross-entropy loss (natural log) over the records.
func (m *Model) Loss(X []float32, Y []int32) (float64, error) {
	if len(Y) == 0 {
		return 0, fmt.Errorf("loss: no records")
	}
	losses := make([]float64, len(Y))
	if err := m.PerExampleLoss(X, Y, losses); err != nil {
		return 0, err
	}
	var s float64
	for _, l := range losses {
		s += l
	}
	return s / float64(len(Y)), nil
}

// PerExampleLoss writes each record's cross-entropy loss into out (len N),
// e.g. as the score of a loss-threshold membership distinguisher.
func (m *Model) PerExampleLoss(X []float32, Y []int32, out []float64) error {
	if len(out) != len(Y) {
		return fmt.Errorf("per-example loss: output has %d slots for %d records", len(out), len(Y))
	}
	err := m.forEachChunk(X, Y, func(start, b int, w *workspace) {
		w.lossAndDelta(b, false)
		copy(out[start:start+b], w.loss[:b])
	})
	if err != nil {
		return fmt.Errorf("per-example loss: %w", err)
	}
	return nil
}

// InputGradient writes, for every record i, the gradient of its loss with
// respect to its input features into dX (same shape and layout as X) and
// its loss into loss (len N; may be nil). Attacks use it to craft poisons.
func (m *Model) InputGradient(X []float32, Y []int32, dX []float32, loss []float64) error {
	if len(dX) != len(X) {
		return fmt.Errorf("input gradient: dX has %d values, X has %d", len(dX), len(X))
	}
	if loss != nil && len(loss) != len(Y) {
		return fmt.Errorf("input gradient: loss has %d slots for %d records", len(loss), len(Y))
	}
	D := m.inSize
	err := m.forEachChunk(X, Y, func(start, b int, w *workspace) {
		w.lossAndDelta(b, true)
		w.backward(b, false, true)
		for k := 0; k < b; k++ {
			m.storeRow(dX[(start+k)*D:(start+k+1)*D], w.deltas[0][k*D:(k+1)*D])
		}
		if loss != nil {
			copy(loss[start:start+b], w.loss[:b])
		}
	})
	if err != nil {
		return fmt.Errorf("input gradient: %w", err)
	}
	return nil
}

// PerExampleGradients writes every record's unclipped parameter gradient
// into row i of dst (N × NumParams, row-major) and, if norms is non-nil,
// its L2 norm into norms[i]. The norms come from the same computation the
// trainer clips with (the ‖δ‖·‖a‖ trick for dense layers), the rows from an
// explicit materialisation, so the two can be checked against each other.
func (m *Model) PerExampleGradients(X []float32, Y []int32, dst []float32, norms []float64) error {
	P := len(m.params)
	if len(dst) != len(Y)*P {
		return fmt.Errorf("per-example gradients: dst has %d values, want %d×%d", len(dst), len(Y), P)
	}
	if norms != nil && len(norms) != len(Y) {
		return fmt.Errorf("per-example gradients: norms has %d slots for %d records", len(norms), len(Y))
	}
	err := m.forEachChunk(X, Y, func(start, b int, w *workspace) {
		w.lossAndDelta(b, true)
		w.backward(b, true, false)
		for k := 0; k < b; k++ {
			w.clip[k] = 1
		}
		w.perExample(b, dst[start*P:])
		if norms != nil {
			for k := 0; k < b; k++ {
				norms[start+k] = math.Sqrt(w.sq[k])
			}
		}
	})
	if err != nil {
		return fmt.Errorf("per-example gradients: %w", err)
	}
	return nil
}
