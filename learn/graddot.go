package learn

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// PerExampleGradientDots writes, for every record i, the inner product
// ⟨∇_θ ℓ_i, v⟩ of its unclipped parameter gradient with v (len NumParams)
// into dots[i], and the gradient's L2 norm into norms[i] (may be nil).
//
// It is what a prior-aware reconstruction attack needs for n candidates at
// every step, without the n×NumParams materialisation of
// PerExampleGradients: a dense layer's per-example weight gradient is
// δ_i a_iᵀ, so ⟨δ_i a_iᵀ, V⟩ = δ_iᵀ(V a_i), one GEMM A·Vᵀ per layer and
// chunk (plus δ_i·v_b for the bias). Other layers with parameters (conv)
// materialise one example's gradient at a time.
func (m *Model) PerExampleGradientDots(X []float32, Y []int32, v []float32, dots []float64, norms []float64) error {
	P := len(m.params)
	if len(v) != P {
		return fmt.Errorf("per-example gradient dots: v has %d values, model has %d parameters", len(v), P)
	}
	if len(dots) != len(Y) || (norms != nil && len(norms) != len(Y)) {
		return fmt.Errorf("per-example gradient dots: %d dots and %d norms for %d records", len(dots), len(norms), len(Y))
	}
	var row, tmp, ones []float32
	err := m.forEachChunk(X, Y, func(start, b int, w *workspace) {
		w.lossAndDelta(b, true)
		w.backward(b, norms != nil, false)
		out := dots[start : start+b]
		clear(out)
		for l, ly := range m.layers {
			off := m.offsets[l]
			in, dOut := w.acts[l], w.deltas[l+1]
			switch p := ly.(type) {
			case *dense:
				if cap(tmp) < b*p.out {
					tmp = make([]float32, b*p.out)
				}
				t := tmp[:b*p.out]
				gemm.Sgemm(false, true, b, p.out, p.in, 1, in, p.in, v[off:off+p.in*p.out], p.in, 0, t, p.out)
				for i := 0; i < b; i++ {
					d := dOut[i*p.out : (i+1)*p.out]
					s := float64(gemm.Dot(d, t[i*p.out:(i+1)*p.out]))
					if p.hasBias {
						s += float64(gemm.Dot(d, v[off+p.in*p.out:off+p.numParams()]))
					}
					out[i] += s
				}
			case paramLayer:
				// Materialised for the chunk (the layer's scratch is per chunk).
				n := p.numParams()
				if cap(row) < b*n {
					row = make([]float32, b*n)
				}
				if cap(ones) < b {
					ones = make([]float32, b)
				}
				for i := range ones[:b] {
					ones[i] = 1
				}
				p.perExample(w.scr[l], in, dOut, ones[:b], b, row[:b*n], n)
				for i := 0; i < b; i++ {
					out[i] += float64(gemm.Dot(row[i*n:(i+1)*n], v[off:off+n]))
				}
			}
		}
		if norms != nil {
			for k := 0; k < b; k++ {
				norms[start+k] = math.Sqrt(w.sq[k])
			}
		}
	})
	if err != nil {
		return fmt.Errorf("per-example gradient dots: %w", err)
	}
	return nil
}
