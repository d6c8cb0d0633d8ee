package learn

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// step runs training step s: sample, clip and sum per chunk, add the canary
// and the noise, show the hooks, update.
func (t *trainer) step(s int) error {
	if err := t.beforeStep(s); err != nil {
		return err
	}
	t.batch = t.sampler.next(t.batch)
	var canary bool
	if t.virtual != nil {
		canary = t.h.Canary != nil && t.virtual.virtualIn()
	} else {
		canary = t.h.Canary != nil && t.draws.Float64() < t.cfg.SamplingRate
	}
	b := len(t.batch)
	t.batchSum += b
	if b == 0 {
		t.res.EmptyBatches++
	}
	t.sizeStepBuffers(b)

	if err := t.sumChunks(s); err != nil {
		return err
	}
	if t.clean != nil {
		copy(t.clean, t.sum)
	}
	t.addCanaries(s, canary)
	// Without an on-step hook nothing looks at the noisy sum before the
	// update, so each noise block is followed at once by the update of its
	// parameters, on the worker that drew it: the update runs on every
	// thread, and reads the block while it is still in cache. Each
	// parameter's update is elementwise, so the result is the same bits as
	// noising everything first (TestFusedUpdateIdentical).
	fused := t.noise != nil && t.h.OnStep == nil && t.cfg.LearningRate != 0
	if err := t.privatise(s, fused); err != nil {
		return err
	}
	if b > 0 {
		var l float64
		for _, v := range t.losses[:b] {
			l += v
		}
		t.res.LastBatchLoss = l / float64(b)
		t.lossSeen = true
	}
	if t.h.OnStep != nil {
		if err := t.showStep(s, canary, b); err != nil {
			return err
		}
	}
	if fused {
		return t.paramsFinite(s)
	}
	return t.update(s)
}

// beforeStep runs the before-step hook, which may rewrite the target
// record (an adaptive poison), and reloads the target.
func (t *trainer) beforeStep(s int) error {
	if t.h.BeforeStep == nil {
		return nil
	}
	if err := t.h.BeforeStep(s, t.m.params, t.h.Target); err != nil {
		return fmt.Errorf("step %d: before-step hook: %w", s, err)
	}
	if t.h.Target != nil {
		if err := t.loadTarget(); err != nil {
			return fmt.Errorf("step %d: %w", s, err)
		}
	}
	return nil
}

// addCanaries adds the gradient canary (when its draw included it) and
// each Dirac canary its own draw includes to the clipped sum (under
// cyclic sampling, only in the steps of the canary's group).
func (t *trainer) addCanaries(s int, canary bool) {
	if canary {
		addInto(t.sum, t.h.Canary)
		t.res.CanarySteps++
	}
	if len(t.h.Dirac) > 0 && len(t.diracIn) != len(t.h.Dirac) {
		t.diracIn = make([]bool, len(t.h.Dirac))
	}
	for j, i := range t.h.Dirac {
		t.diracIn[j] = t.dirac.Float64() < t.cfg.SamplingRate
		if t.diracGroup != nil && s%t.cfg.Groups != t.diracGroup[j] {
			t.diracIn[j] = false
		}
		if t.diracIn[j] {
			t.sum[i] += t.h.DiracValue
		}
	}
}

// privatise adds the noise to the clipped sum (and, fused, updates each
// block after its noise) and fails the step when the noisy sum is not
// finite.
func (t *trainer) privatise(s int, fused bool) error {
	finite := true
	if t.noise != nil {
		var err error
		if finite, err = t.addNoise(fused); err != nil { // checks finiteness on the fly
			return fmt.Errorf("step %d: %w", s, err)
		}
	} else {
		finite, _ = allFinite(t.sum)
	}
	if !finite {
		_, i := allFinite(t.sum)
		return fmt.Errorf("step %d: noisy gradient of %s is %v", s, t.m.paramName(i), t.sum[i])
	}
	return nil
}

// showStep shows the on-step hook what the step released and computed.
func (t *trainer) showStep(s int, canary bool, b int) error {
	st := &t.stepInfo
	*st = Step{Index: s, Params: t.m.params, Batch: t.batch, CanaryIncluded: canary, DiracIncluded: t.diracIn, DiracGroups: t.diracGroup,
		NoisySum: t.sum, Normalizer: t.norm, Losses: t.losses[:b], ClippedSum: t.clean}
	if t.norms != nil {
		st.Norms = t.norms[:b]
	}
	if t.h.PerExample {
		st.PerExample = t.pex[:b*len(t.m.params)]
	}
	if err := t.h.OnStep(st); err != nil {
		return fmt.Errorf("step %d: on-step hook: %w", s, err)
	}
	return nil
}

// sizeStepBuffers makes the per-example outputs hold b examples.
func (t *trainer) sizeStepBuffers(b int) {
	if cap(t.losses) < b {
		t.losses = make([]float64, b, b+b/4+16)
	}
	t.losses = t.losses[:b]
	if t.clipOn || t.h.PerExample {
		if cap(t.norms) < b {
			t.norms = make([]float64, b, b+b/4+16)
		}
		t.norms = t.norms[:b]
	}
	if t.h.PerExample {
		t.pex = grow(t.pex, b*len(t.m.params))
	}
}

// sumChunks leaves Σ_i clip(g_i) over the batch in t.sum. The batch is cut
// into chunks of t.chunk examples; chunks run on the workers in rounds, and
// their sums are added in chunk order, so the result does not depend on
// the number of workers.
func (t *trainer) sumChunks(s int) error {
	b := len(t.batch)
	K := (b + t.chunk - 1) / t.chunk
	if K == 0 {
		clear(t.sum)
		return nil
	}
	T := len(t.ws)
	for k0 := 0; k0 < K; k0 += T {
		k1 := min(K, k0+T)
		if K == 1 {
			// One chunk: its sum is the batch's, written straight into
			// t.sum instead of copied there (the copy was 4–6%
			// of an MLP 784-512-10 step). The other workers would be idle:
			// the chunk's GEMMs use them (bit-identical for any T).
			t.ws[0].setThreads(T)
			t.runChunk(0, 0, t.sum)
			t.ws[0].setThreads(1)
			if bad := t.bad[0]; bad.record >= 0 {
				return fmt.Errorf("step %d: record %d feature %d is %v", s, bad.record, bad.feature, t.badFeatureValue(bad))
			}
			return nil
		}
		if t.pool == nil || k1-k0 == 1 {
			for k := k0; k < k1; k++ {
				t.runChunk(k-k0, k, t.ws[k-k0].grad)
			}
		} else {
			for k := k0; k < k1; k++ {
				t.pool.Submit(k-k0, k)
			}
			if err := t.pool.Wait(); err != nil {
				return fmt.Errorf("step %d: %w", s, err)
			}
		}
		for k := k0; k < k1; k++ {
			w := k - k0
			if bad := t.bad[w]; bad.record >= 0 {
				return fmt.Errorf("step %d: record %d feature %d is %v", s, bad.record, bad.feature, t.badFeatureValue(bad))
			}
			if k == 0 {
				copy(t.sum, t.ws[w].grad)
			} else {
				addInto(t.sum, t.ws[w].grad)
			}
		}
	}
	return nil
}

// runJob is the pool's entry point: job ≥ 0 is a chunk index, job < 0 the
// noise block −job−1 (followed by its update when the step is fused, see
// step), job ≤ updateJob the update of block updateJob−job alone.
func (t *trainer) runJob(worker, job int) {
	switch {
	case job >= 0:
		t.runChunk(worker, job, t.ws[worker].grad)
	case job <= updateJob:
		t.updateBlock(updateJob - job)
	default:
		t.noiseBlock(-job-1, t.fusedStep)
	}
}

// updateJob is the job number of updating block 0 alone (block k:
// updateJob − k), well below the noise blocks' −1 … −blocks.
const updateJob = -1 << 30

// noiseBlock adds the noise to block k of t.sum and, when update is set
// and the block is finite, updates the block's parameters.
func (t *trainer) noiseBlock(k int, update bool) {
	scale := float32(t.cfg.NoiseMultiplier * t.cfg.ClipNorm)
	var ok bool
	if t.corr != nil {
		lo, hi := k*noiseBlock, min((k+1)*noiseBlock, len(t.sum))
		ok = t.corr[k].add(t.noise.streams[k], t.sum[lo:hi], scale)
	} else {
		ok = t.noise.addBlock(k, t.sum, scale)
	}
	t.noiseOK[k] = ok
	switch {
	case update && ok:
		t.updateBlock(k)
	case update:
		t.paramBad[k] = -1 // not updated: the step fails on the noisy sum
	}
}

// runChunk computes chunk k's clipped gradient sum on workspace w, into
// grad (which it overwrites).
func (t *trainer) runChunk(w, k int, grad []float32) {
	ws := t.ws[w]
	lo, hi := k*t.chunk, min(len(t.batch), (k+1)*t.chunk)
	b := hi - lo
	rec, feat := ws.gather(t.X, t.Y, t.batch[lo:hi], t.target, t.targetVer, t.checkGather)
	t.bad[w] = badValue{rec, t.m.externalFeature(feat)}
	if rec >= 0 {
		return
	}
	ws.scr[0].inSq = nil
	if t.inSq != nil {
		for k, i := range t.batch[lo:hi] {
			ws.inSq[k] = t.inSq[i]
		}
		ws.scr[0].inSq = ws.inSq[:b]
	}
	ws.forward(b)
	ws.lossAndDelta(b, true)
	ws.backward(b, t.clipOn, false)
	if t.clipOn {
		clipFactors(t.cfg.clip(), t.cfg.ClipNorm, ws.sq[:b], ws.clip[:b])
		for i := 0; i < b; i++ {
			t.norms[lo+i] = math.Sqrt(ws.sq[i])
		}
	} else {
		for i := range ws.clip[:b] {
			ws.clip[i] = 1
		}
	}
	ws.clippedSum(b, grad)
	copy(t.losses[lo:hi], ws.loss[:b])
	if t.h.PerExample {
		P := len(t.m.params)
		ws.perExample(b, t.pex[lo*P:])
		if !t.clipOn {
			for i := 0; i < b; i++ {
				t.norms[lo+i] = math.Sqrt(sumSq(t.pex[(lo+i)*P : (lo+i+1)*P]))
			}
		}
	}
}

// badFeatureValue re-reads the offending input value for an error message.
func (t *trainer) badFeatureValue(bad badValue) float32 {
	if bad.record == len(t.Y) {
		return t.target.X[bad.feature]
	}
	return t.X[bad.record*t.m.inSize+bad.feature]
}

// addNoise adds N(0, σ²C²·I) to t.sum, block by block, and reports
// whether the result is finite. With update set, each finite block's
// parameters are updated right after its noise (see step); a block that
// is not finite is left for the error.
func (t *trainer) addNoise(update bool) (bool, error) {
	B := t.noise.blocks()
	if t.pool == nil || B == 1 {
		for k := 0; k < B; k++ {
			t.noiseBlock(k, update)
		}
	} else {
		t.fusedStep = update
		if err := t.shareBlocks(B, func(k int) int { return -k - 1 }); err != nil {
			return false, err
		}
	}
	for _, ok := range t.noiseOK {
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// update applies g = sum/norm + λθ, v = μv + g, θ −= ηv, then checks θ:
// block by block (the noise's blocks), shared out to the workers when
// there are several.
func (t *trainer) update(s int) error {
	if t.cfg.LearningRate == 0 {
		return nil // parameters never change, bit for bit
	}
	B := t.updateBlocks()
	if t.pool == nil || B == 1 {
		for k := 0; k < B; k++ {
			t.updateBlock(k)
		}
	} else if err := t.shareBlocks(B, func(k int) int { return updateJob - k }); err != nil {
		return fmt.Errorf("step %d: %w", s, err)
	}
	return t.paramsFinite(s)
}

// shareBlocks runs job(k) for blocks k < B, block k on worker k mod T:
// the other workers' through the pool, worker 0's on the calling goroutine
// (which would otherwise only wait: one goroutine fewer to wake per step).
// Which worker runs a block never changes its result. A panic in a block
// comes back as an error.
func (t *trainer) shareBlocks(B int, job func(k int) int) error {
	T := len(t.ws)
	for k := 0; k < B; k++ {
		if k%T != 0 {
			t.pool.Submit(k%T, job(k))
		}
	}
	for k := 0; k < B; k += T {
		t.pool.Do(0, job(k))
	}
	return t.pool.Wait()
}

// updateBlocks is the number of noiseBlock-sized blocks of the parameters.
func (t *trainer) updateBlocks() int { return (len(t.m.params) + noiseBlock - 1) / noiseBlock }

// updateBlock applies the update to parameters [k·noiseBlock,
// (k+1)·noiseBlock) and records in t.paramBad[k] the first one that is not
// finite afterwards (−1: none). Each line is one or two whole-vector gemm
// kernels (Axpy: one fused multiply-add per element on the assembly paths),
// not a scalar loop: without momentum θ ← (1 − ηλ)·θ − (η/norm)·sum; with
// it v ← μ·v + sum/norm + λ·θ, then θ ← θ − η·v. Every element is updated
// on its own, so the blocks give the same bits as one whole-vector pass.
func (t *trainer) updateBlock(k int) {
	lo, hi := k*noiseBlock, min((k+1)*noiseBlock, len(t.m.params))
	p, g := t.m.params[lo:hi], t.sum[lo:hi]
	inv := float32(1 / t.norm)
	lr, wd, mu := float32(t.cfg.LearningRate), float32(t.cfg.WeightDecay), float32(t.cfg.Momentum)
	if t.vel == nil {
		if wd != 0 {
			gemm.Scal(1-float32(lr*wd), p) // float32(…): no FMA, same bits everywhere
		}
		gemm.Axpy(-lr*inv, g, p)
	} else {
		vel := t.vel[lo:hi]
		gemm.Scal(mu, vel)
		gemm.Axpy(inv, g, vel)
		if wd != 0 {
			gemm.Axpy(wd, p, vel)
		}
		gemm.Axpy(-lr, vel, p)
	}
	t.paramBad[k] = -1
	if ok, i := allFinite(p); !ok {
		t.paramBad[k] = lo + i
	}
}

// paramsFinite reports the first parameter the update made non-finite.
func (t *trainer) paramsFinite(s int) error {
	for _, i := range t.paramBad {
		if i >= 0 {
			p := t.m.params
			return fmt.Errorf("step %d: parameter %s became %v in the update (learning rate %g too large?)", s, t.m.paramName(i), p[i], t.cfg.LearningRate)
		}
	}
	return nil
}
