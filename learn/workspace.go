package learn

import "slices"

// workspace holds one worker's buffers for pushing a chunk of up to maxB
// examples through the model. Everything is allocated up front, so the step
// loop does not allocate.
type workspace struct {
	m    *Model
	maxB int
	// input is the gather buffer (maxB × inSize, internal layout). acts[0]
	// points at it, or straight into the caller's X when a chunk is a
	// contiguous run of records that needs no reordering.
	input  []float32
	acts   [][]float32 // acts[l]: input of layer l; acts[len(layers)]: logits
	deltas [][]float32 // deltas[l]: ∂loss/∂acts[l]; deltas[0] only with inputGrad
	scr    []*scratch
	labels []int32
	loss   []float64 // per-example loss
	sq     []float64 // per-example squared gradient norm
	inSq   []float64 // per-example squared input norm (see trainer.inSq)
	clip   []float32 // per-example clip factor
	grad   []float32 // this chunk's clipped gradient sum (len NumParams)

	// With keep set (the trainer's workspaces, whose X is fixed for the
	// run), gather remembers which records input holds (keptIdx, and the
	// target's version keptVer) and does not copy them again when the next
	// gathered chunk is the same: in full-batch training the chunk holding
	// the target record is the same every step, and copying it was 9% of a
	// Hayes et al. trial (BenchmarkAuditTrial).
	keep    bool
	kept    bool
	keptIdx []int
	keptVer uint64

	// codes, if set, holds X's rows as exact 8-bit codes (Inputs): gather
	// decodes a coded row instead of copying its floats, reading 4× fewer
	// bytes. X must be codes.X. dirty[k] is the part of input's row k
	// that may be non-zero (see Inputs.decodeInto).
	codes *Inputs
	dirty []span32
}

func newWorkspace(m *Model, maxB int, inputGrad bool) *workspace {
	L := len(m.layers)
	w := &workspace{
		m:      m,
		maxB:   maxB,
		input:  make([]float32, maxB*m.inSize),
		acts:   make([][]float32, L+1),
		deltas: make([][]float32, L+1),
		scr:    make([]*scratch, L),
		labels: make([]int32, maxB),
		loss:   make([]float64, maxB),
		sq:     make([]float64, maxB),
		inSq:   make([]float64, maxB),
		clip:   make([]float32, maxB),
		grad:   make([]float32, len(m.params)),
	}
	w.acts[0] = w.input
	if inputGrad {
		w.deltas[0] = make([]float32, maxB*m.inSize)
	}
	for l, ly := range m.layers {
		w.acts[l+1] = make([]float32, maxB*ly.outSize())
		w.deltas[l+1] = make([]float32, maxB*ly.outSize())
		w.scr[l] = ly.newScratch(maxB)
	}
	return w
}

// setThreads lets the layers' GEMMs use n goroutines (see scratch.threads).
func (w *workspace) setThreads(n int) {
	for _, s := range w.scr {
		s.threads = n
	}
}

// forward runs the chunk in acts[0] (b examples) to the logits. A
// convolution on the direct pass followed by a ReLU writes the ReLU's
// output itself, in the same pass: the ReLU's input, acts of the layer
// between, is then not written, and nothing reads it (the ReLU's backward
// pass reads its output).
func (w *workspace) forward(b int) {
	layers := w.m.layers
	for l := 0; l < len(layers); l++ {
		if cv, ok := layers[l].(*conv); ok && l+1 < len(layers) && isReLU(layers[l+1]) && cv.directForwardOK() {
			cv.forwardDirect(w.scr[l], w.acts[l], w.acts[l+2], b, true)
			w.scr[l].colsFor = -1
			l++
			continue
		}
		layers[l].forward(w.scr[l], w.acts[l], w.acts[l+1], b)
	}
}

// logits returns the chunk's logits (b × m.logits).
func (w *workspace) logits(b int) []float32 {
	return w.acts[len(w.m.layers)][:b*w.m.logits]
}

// lossAndDelta computes per-example losses into w.loss and, if withDelta,
// the gradient of each example's loss with respect to its logits.
func (w *workspace) lossAndDelta(b int, withDelta bool) {
	var d []float32
	if withDelta {
		d = w.deltas[len(w.m.layers)]
	}
	if w.m.sigmoid {
		sigmoidBCE(w.logits(b), w.labels, b, d, w.loss)
	} else {
		softmaxCE(w.logits(b), w.labels, b, w.m.logits, d, w.loss)
	}
}

// backward propagates the logit deltas down the network. With norms it also
// leaves each example's squared parameter-gradient norm in w.sq; with
// inputGrad, deltas[0] receives ∂loss_i/∂x_i.
func (w *workspace) backward(b int, norms, inputGrad bool) {
	clear(w.sq[:b])
	for l := len(w.m.layers) - 1; l >= 0; l-- {
		var dIn []float32
		if l > 0 || inputGrad {
			dIn = w.deltas[l]
		}
		if p, ok := w.m.layers[l].(*maxPool); ok && l > 0 && p.disjoint() && isReLU(w.m.layers[l-1]) {
			// Max pooling on a ReLU's output: both backward passes in one
			// (see backwardThroughReLU), straight into the ReLU's dIn.
			if l-1 > 0 || inputGrad {
				p.backwardThroughReLU(w.scr[l], w.acts[l], w.acts[l+1], w.deltas[l+1], w.deltas[l-1], b)
			}
			l--
			continue
		}
		w.m.layers[l].backward(w.scr[l], w.acts[l], w.acts[l+1], w.deltas[l+1], dIn, b, w.sq, norms)
	}
}

// isReLU reports whether ly is a ReLU activation.
func isReLU(ly layer) bool {
	a, ok := ly.(*activation)
	return ok && a.kind == ReLU
}

// clippedSum writes Σ_i clip[i]·g_i of the chunk into grad.
func (w *workspace) clippedSum(b int, grad []float32) {
	for l, ly := range w.m.layers {
		p, ok := ly.(paramLayer)
		if !ok {
			continue
		}
		off := w.m.offsets[l]
		p.clippedSum(w.scr[l], w.acts[l], w.deltas[l+1], w.clip, b, grad[off:off+p.numParams()])
	}
}

// perExample writes clip[i]·g_i into row i of dst (stride NumParams).
func (w *workspace) perExample(b int, dst []float32) {
	P := len(w.m.params)
	for l, ly := range w.m.layers {
		p, ok := ly.(paramLayer)
		if !ok {
			continue
		}
		off := w.m.offsets[l]
		p.perExample(w.scr[l], w.acts[l], w.deltas[l+1], w.clip, b, dst[off:], P)
	}
}

// gather loads records idx of X (and the target record for index n, if
// target is non-nil) into the chunk. A contiguous run of records in a model
// that needs no reordering is used in place, without copying. targetVer
// identifies the target record's contents (see keep). It returns the first
// record holding a NaN or ±Inf feature, or −1.
func (w *workspace) gather(X []float32, Y []int32, idx []int, target *Record, targetVer uint64, checkFinite bool) (badRecord, badFeature int) {
	m := w.m
	n, D := len(Y), m.inSize
	b := len(idx)
	if !m.chw && b > 0 && idx[0]+b <= n && idx[b-1] == idx[0]+b-1 && contiguous(idx) {
		w.acts[0] = X[idx[0]*D : (idx[0]+b)*D]
		copy(w.labels, Y[idx[0]:idx[0]+b])
	} else {
		w.acts[0] = w.input
		hit := w.keep && w.kept && w.keptVer == targetVer && slices.Equal(w.keptIdx, idx)
		if w.codes != nil && !hit {
			for _, i := range idx[:min(len(idx), prefetchAhead)] {
				w.codes.prefetch(i)
			}
		}
		for k, i := range idx {
			if i == n {
				if !hit {
					m.loadRow(w.input[k*D:(k+1)*D], target.X)
					w.dirtyRow(k)
				}
				w.labels[k] = target.Y
				continue
			}
			if !hit {
				if w.codes == nil {
					m.loadRow(w.input[k*D:(k+1)*D], X[i*D:(i+1)*D])
				} else {
					if k+prefetchAhead < len(idx) {
						w.codes.prefetch(idx[k+prefetchAhead])
					}
					if !w.codes.decodeInto(w.input[k*D:(k+1)*D], i, &w.dirty[k]) {
						m.loadRow(w.input[k*D:(k+1)*D], X[i*D:(i+1)*D])
						w.dirtyRow(k)
					}
				}
			}
			w.labels[k] = Y[i]
		}
		if w.keep && !hit {
			w.keptIdx = append(w.keptIdx[:0], idx...)
			w.keptVer, w.kept = targetVer, true
		}
	}
	if checkFinite {
		if ok, j := allFinite(w.acts[0][:b*D]); !ok {
			k := j / D
			return idx[k], j % D
		}
	}
	return -1, -1
}

// setCodes makes gather decode X's coded rows from in (X must be in.X).
func (w *workspace) setCodes(in *Inputs) {
	w.codes = in
	w.dirty = make([]span32, w.maxB) // input starts zero
}

// dirtyRow records a whole-row write into input's row k.
func (w *workspace) dirtyRow(k int) {
	if w.dirty != nil {
		w.dirty[k] = span32{0, int32(w.m.inSize)}
	}
}

func contiguous(idx []int) bool {
	for k := 1; k < len(idx); k++ {
		if idx[k] != idx[k-1]+1 {
			return false
		}
	}
	return true
}
