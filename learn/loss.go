package learn

import "math"

// Loss heads. Both compute, per example, the cross-entropy loss (natural
// log, not averaged over the batch) and, if dLogits is non-nil, its gradient
// with respect to the logits: softmax(z) − onehot(y), or sigmoid(z) − y.
// Intermediate values are float64 so that large logits neither overflow nor
// lose the loss of confidently wrong predictions.

// softmaxCE handles b examples of k logits each. The exponentials are
// float32 (exp32, a few ulp): they become float32 probabilities anyway,
// and the log-sum-exp is accumulated in float64.
func softmaxCE(logits []float32, y []int32, b, k int, dLogits []float32, loss []float64) {
	if dLogits != nil {
		softmaxCEDelta(logits, y, b, k, dLogits, loss)
		return
	}
	var tmp [16]float32
	for i := 0; i < b; i++ {
		z := logits[i*k : (i+1)*k]
		m := z[0]
		for _, v := range z[1:] {
			m = max(m, v)
		}
		e := tmp[:]
		if dLogits != nil {
			e = dLogits[i*k : (i+1)*k]
		} else if k > len(tmp) {
			e = make([]float32, k) // evaluation with many classes only
		}
		e = e[:k]
		var sum float64
		for j, v := range z {
			e[j] = exp32(v - m)
			sum += float64(e[j])
		}
		if loss != nil {
			loss[i] = float64(m) + math.Log(sum) - float64(z[y[i]])
		}
		if dLogits != nil {
			inv := float32(1 / sum)
			for j := range e {
				e[j] *= inv
			}
			e[y[i]] -= 1
		}
	}
}

// softmaxCEDelta is softmaxCE with dLogits, bit for bit, in passes over
// the whole chunk so that the exponentials run in expInto's loop (one call
// per row of 10 logits left the processor waiting on each exponential's
// dependency chain).
func softmaxCEDelta(logits []float32, y []int32, b, k int, dLogits []float32, loss []float64) {
	// Ten classes with losses (the training step): sixteen rows at a time
	// in one AVX-512 kernel where there is one (the loops
	// below were 11% of a Hayes et al. 784-10-10 trial), the same bits;
	// blocks it declines and the last rows take the loops.
	if k == 10 && loss != nil {
		lo := 0
		for ; lo+16 <= b; lo += 16 {
			z, e := logits[lo*10:(lo+16)*10], dLogits[lo*10:(lo+16)*10]
			if !softmaxDelta16(z, e, y[lo:lo+16], loss[lo:lo+16]) {
				softmaxCEDeltaRows(z, y[lo:lo+16], 16, 10, e, loss[lo:lo+16])
			}
		}
		logits, y, dLogits, loss = logits[lo*10:], y[lo:], dLogits[lo*10:], loss[lo:]
		b -= lo
	}
	softmaxCEDeltaRows(logits, y, b, k, dLogits, loss)
}

// softmaxCEDeltaRows is softmaxCEDelta's portable loops.
func softmaxCEDeltaRows(logits []float32, y []int32, b, k int, dLogits []float32, loss []float64) {
	z, e := logits[:b*k], dLogits[:b*k]
	// Each row's maximum is kept in loss[i] (overwritten below) rather than
	// found twice.
	for i := 0; i < b; i++ {
		zi, ei := z[i*k:(i+1)*k], e[i*k:(i+1)*k]
		m := rowMax(zi)
		for j, v := range zi {
			ei[j] = v - m
		}
		if loss != nil {
			loss[i] = float64(m)
		}
	}
	expInto(e, e)
	// The logarithms of the row sums go eight at a time through log8 (the
	// same bits as math.Log); the losses of a block of eight rows are
	// finished once its logarithms are known.
	var sums [8]float64
	for i0 := 0; i0 < b; i0 += 8 {
		i1 := min(b, i0+8)
		for i := i0; i < i1; i++ {
			ei := e[i*k : (i+1)*k]
			var sum float64
			for _, v := range ei {
				sum += float64(v)
			}
			sums[i-i0] = sum
			inv := float32(1 / sum)
			for j := range ei {
				ei[j] *= inv
			}
			ei[y[i]] -= 1
		}
		if loss == nil {
			continue
		}
		for i := i1 - i0; i < 8; i++ {
			sums[i] = 1 // unused lanes
		}
		log8(&sums)
		for i := i0; i < i1; i++ {
			// loss[i] holds the row's maximum (float32, exactly).
			loss[i] = loss[i] + sums[i-i0] - float64(z[i*k+int(y[i])])
		}
	}
}

// rowMax returns max(z[0], z[1], …) — Go's max, NaN if any element is NaN,
// +0 over −0 — as a tree of pairwise maxima. max is exactly associative
// and commutative, so any order gives the same bits; the tree's chains
// are 4 maxima deep for 10 logits instead of 9 (Go's float max is a
// dependent sequence of five instructions, and the running maximum made
// it 4% of a Hayes et al. 784-10-10 trial in BenchmarkAuditTrial).
func rowMax(z []float32) float32 {
	if len(z) == 10 {
		z := z[:10]
		a := max(max(z[0], z[1]), max(z[2], z[3]))
		c := max(max(z[4], z[5]), max(z[6], z[7]))
		return max(max(a, c), max(z[8], z[9]))
	}
	m := z[0]
	for _, v := range z[1:] {
		m = max(m, v)
	}
	return m
}

// sigmoidBCE handles b examples of one logit each; labels are 0 or 1.
// loss = softplus(z) − y·z = max(z, 0) − y·z + log1p(e^−|z|).
func sigmoidBCE(logits []float32, y []int32, b int, dLogits []float32, loss []float64) {
	for i := 0; i < b; i++ {
		z := float64(logits[i])
		t := float64(y[i])
		// One exponential for both: e = e^−|z| ∈ (0, 1], σ(z) = 1/(1+e)
		// for z ≥ 0 (the same bits as 1/(1+e^−z)) and e/(1+e) for z < 0
		// (equal up to float64 rounding, hidden by the float32 result).
		e := math.Exp(-math.Abs(z))
		if loss != nil {
			loss[i] = max(z, 0) - t*z + math.Log1p(e)
		}
		if dLogits != nil {
			s := 1 / (1 + e)
			if z < 0 {
				s = e / (1 + e)
			}
			dLogits[i] = float32(s - t)
		}
	}
}

// predict returns the predicted class of each of b examples.
func predict(logits []float32, b, k int, sigmoid bool, out []int32) {
	for i := 0; i < b; i++ {
		if sigmoid {
			if logits[i] > 0 {
				out[i] = 1
			} else {
				out[i] = 0
			}
			continue
		}
		z := logits[i*k : (i+1)*k]
		best := 0
		for j, v := range z {
			if v > z[best] {
				best = j
			}
		}
		out[i] = int32(best)
	}
}
