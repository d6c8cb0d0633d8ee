package learn

import (
	"fmt"
	"math"
)

// ClippedGradientSum writes Σ_i clip_C(∇ℓ_i(θ)) over every record of X at
// the model's current parameters into dst (len NumParams), with the hard
// clip min(1, C/‖g_i‖) and no noise: the clean sum a full-batch DP-SGD step
// privatises. It takes the trainer's path (per-example norms without
// materialising dense per-example gradients) in the trainer's default
// chunks, in record order, so it costs about one training step on X. An
// adversary who knows the training set uses it to recompute what a step
// released (Bernau et al.'s A_DI). C = +Inf sums unclipped gradients.
func (m *Model) ClippedGradientSum(X []float32, Y []int32, clipNorm float64, dst []float32) error {
	if len(dst) != len(m.params) {
		return fmt.Errorf("clipped gradient sum: dst has %d values, want %d", len(dst), len(m.params))
	}
	if !(clipNorm > 0) {
		return fmt.Errorf("clipped gradient sum: clip norm must be > 0, got %v", clipNorm)
	}
	if err := m.checkData(X, Y); err != nil {
		return fmt.Errorf("clipped gradient sum: %w", err)
	}
	w, ok := m.clipPool.Get().(*workspace)
	if !ok {
		w = newWorkspace(m, m.defaultChunk(), false)
	}
	defer m.clipPool.Put(w)
	clear(dst)
	clipOn := !math.IsInf(clipNorm, 1)
	n := len(Y)
	var idx [DefaultChunkSize]int
	for start := 0; start < n; start += w.maxB {
		b := min(w.maxB, n-start)
		for k := 0; k < b; k++ {
			idx[k] = start + k
		}
		if rec, feat := w.gather(X, Y, idx[:b], nil, 0, true); rec >= 0 {
			return fmt.Errorf("clipped gradient sum: record %d feature %d is not finite", rec, m.externalFeature(feat))
		}
		w.forward(b)
		w.lossAndDelta(b, true)
		w.backward(b, clipOn, false)
		if clipOn {
			clipFactors(ClipHard, clipNorm, w.sq[:b], w.clip[:b])
		} else {
			for k := range w.clip[:b] {
				w.clip[k] = 1
			}
		}
		w.clippedSum(b, w.grad)
		addInto(dst, w.grad)
	}
	if ok, i := allFinite(dst); !ok {
		return fmt.Errorf("clipped gradient sum: %s is %v", m.paramName(i), dst[i])
	}
	return nil
}
