package attack

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Trials of the Poisson ideal mechanism side by side. One trial's step is
// a chain of dependent operations (the running sums, the LLR product) with
// an exp in the middle, so a core running one trial at a time mostly
// waits; idealLanes trials in lockstep give it independent work for every
// latency. Each lane performs exactly the operations of
// IdealMechanism.trial, in the same order, on the words of its own trial's
// stream, so the scores are the same bits: only the interleaving of
// independent trials changes.
//
// Per block of steps, a first pass draws each lane's released values y_t
// (normals and inclusion gaps, reading the ChaCha8 source directly rather
// than through rand.Rand's interface), and a second pass scores the block
// across the lanes.

// idealLanes is how many trials run side by side: four give the two
// pipelines of a core enough independent chains to hide the latency of
// the exp and the LLR product; eight gained nothing more here.
const idealLanes = 4

// idealBlock is the number of steps drawn per lane before scoring them
// (4 lanes × 256 float64 = 8 KiB, well inside L1).
const idealBlock = 256

// idealLane is one trial's state.
type idealLane struct {
	src    *rand.ChaCha8
	slow   *rand.Rand // src behind a replay of the word that missed the fast path
	replay *replaySource
	nextIn int // the next step whose batch includes the canary
	// ys are the released values of a block of steps, zs the LLR's
	// exponents (2y − 1)/(2σ_d²) and es their exps.
	ys, zs, es [idealBlock]float64
}

// replaySource hands out one held word, then the words of src: it lets
// rand.Rand.NormFloat64 redo a draw whose first word missed the ziggurat's
// fast path, consuming the stream exactly as a plain NormFloat64 would.
type replaySource struct {
	held    uint64
	holding bool
	src     *rand.ChaCha8
}

func (s *replaySource) Uint64() uint64 {
	if s.holding {
		s.holding = false
		return s.held
	}
	return s.src.Uint64()
}

func (l *idealLane) reset(src *rand.ChaCha8) {
	if l.replay == nil {
		l.replay = &replaySource{}
		l.slow = rand.New(l.replay)
	}
	l.src, l.replay.src = src, src
}

// normal is rand.Rand.NormFloat64 on the lane's stream: the ziggurat's
// fast path (taken by more than 99% of draws) inline, the rest replayed
// through math/rand/v2 itself.
func (l *idealLane) normal(z *zigguratTables) float64 {
	u := l.src.Uint64()
	j := int32(u)
	i := u >> 32 & 0x7F
	if absInt32(j) < z.kn[i] {
		return float64(j) * float64(z.wn[i])
	}
	l.replay.held, l.replay.holding = u, true
	return l.slow.NormFloat64()
}

// unit is rand.Rand.Float64 on the lane's stream.
func (l *idealLane) unit() float64 { return float64(l.src.Uint64()<<11>>11) / (1 << 53) }

// idealScorer holds what every lane's scoring shares.
type idealScorer struct {
	m              IdealMechanism
	q, sigma       float64
	inv2s2, logQ   float64
	log1mQ         float64
	withLLR        bool
	zig            *zigguratTables
	lanes          [idealLanes]idealLane
	proj, wm, prod [idealLanes]float64
	logLR          [idealLanes]float64
}

func newIdealScorer(m IdealMechanism, sigmaD float64, withLLR bool) *idealScorer {
	return &idealScorer{
		m: m, q: m.SamplingRate, sigma: m.NoiseMultiplier,
		inv2s2: 1 / (2 * sigmaD * sigmaD), logQ: math.Log(m.SamplingRate), log1mQ: math.Log1p(-m.SamplingRate),
		withLLR: withLLR, zig: ziggurat(),
	}
}

// gap is trial's geometric inclusion gap on lane l's stream.
func (s *idealScorer) gap(l *idealLane) int {
	if s.q == 1 {
		return 0
	}
	g := math.Floor(math.Log(1-l.unit()) / s.log1mQ)
	return int(math.Min(g, float64(s.m.Steps)))
}

// run scores n ≤ idealLanes trials (Poisson sampling) whose streams are
// srcs and worlds worlds, into out[:n].
func (s *idealScorer) run(srcs []*rand.ChaCha8, worlds []bool, out []IdealScores) {
	n := len(srcs)
	for k := range n {
		l := &s.lanes[k]
		l.reset(srcs[k])
		l.nextIn = s.m.Steps
		if worlds[k] {
			l.nextIn = s.gap(l)
		}
		s.proj[k], s.wm[k], s.prod[k], s.logLR[k] = 0, 0, 1, 0
	}
	for t0 := 0; t0 < s.m.Steps; t0 += idealBlock {
		b := min(idealBlock, s.m.Steps-t0)
		for k := range n {
			s.draw(&s.lanes[k], t0, b)
		}
		s.score(n, b)
	}
	for k := range n {
		out[k] = IdealScores{Projection: s.proj[k], Watermark: s.wm[k], LLR: s.logLR[k] + math.Log(s.prod[k])}
	}
}

// draw fills l.ys[:b] with the released values of steps t0 … t0+b−1, as
// trial draws them (the normal, then the next gap after an included step).
func (s *idealScorer) draw(l *idealLane, t0, b int) {
	for k := range b {
		y := s.sigma * l.normal(s.zig)
		if t := t0 + k; t == l.nextIn {
			y++
			l.nextIn = t + 1 + s.gap(l)
		}
		l.ys[k] = y
	}
}

// score folds steps [0, b) of every lane into its scores, step by step as
// trial does; the exps of the whole block come first, from numeric.ExpBlock (the
// same bits as math.Exp, four at a time).
func (s *idealScorer) score(n, b int) {
	if n == idealLanes {
		s.sums4(b)
	} else {
		for j := range n {
			s.sums(j, b)
		}
	}
	if !s.withLLR {
		return
	}
	b4 := (b + 3) &^ 3
	for j := range n {
		l := &s.lanes[j]
		for k := range b4 {
			l.zs[k] = (2*l.ys[k] - 1) * s.inv2s2
		}
		numeric.ExpBlock(l.es[:b4], l.zs[:b4])
	}
	if n == idealLanes {
		s.llr4(b)
		return
	}
	for j := range n {
		s.llr(j, b)
	}
}

// sums adds steps [0, b) of lane j to its projection and watermark.
func (s *idealScorer) sums(j, b int) {
	ys := &s.lanes[j].ys
	p, w := s.proj[j], s.wm[j]
	for k := range b {
		y := ys[k]
		p += y
		d := y - 1
		w -= d * d * s.inv2s2
	}
	s.proj[j], s.wm[j] = p, w
}

// sums4 is sums for all four lanes in one loop: the running sums are
// chains of dependent additions, and four of them side by side keep the
// adder busy.
func (s *idealScorer) sums4(b int) {
	y0, y1, y2, y3 := &s.lanes[0].ys, &s.lanes[1].ys, &s.lanes[2].ys, &s.lanes[3].ys
	p0, p1, p2, p3 := s.proj[0], s.proj[1], s.proj[2], s.proj[3]
	w0, w1, w2, w3 := s.wm[0], s.wm[1], s.wm[2], s.wm[3]
	c := s.inv2s2
	for k := range b {
		a0, a1, a2, a3 := y0[k], y1[k], y2[k], y3[k]
		p0, p1, p2, p3 = p0+a0, p1+a1, p2+a2, p3+a3
		d0, d1, d2, d3 := a0-1, a1-1, a2-1, a3-1
		w0, w1, w2, w3 = w0-d0*d0*c, w1-d1*d1*c, w2-d2*d2*c, w3-d3*d3*c
	}
	s.proj = [idealLanes]float64{p0, p1, p2, p3}
	s.wm = [idealLanes]float64{w0, w1, w2, w3}
}

// llr folds steps [0, b) of lane j into its likelihood-ratio product.
func (s *idealScorer) llr(j, b int) {
	l := &s.lanes[j]
	prod, logLR := s.prod[j], s.logLR[j]
	for k := range b {
		prod, logLR = s.llrStep(prod, logLR, l.zs[k], l.es[k])
	}
	s.prod[j], s.logLR[j] = prod, logLR
}

// llr4 is llr for all four lanes in one loop (four product chains).
func (s *idealScorer) llr4(b int) {
	l0, l1, l2, l3 := &s.lanes[0], &s.lanes[1], &s.lanes[2], &s.lanes[3]
	p0, p1, p2, p3 := s.prod[0], s.prod[1], s.prod[2], s.prod[3]
	g0, g1, g2, g3 := s.logLR[0], s.logLR[1], s.logLR[2], s.logLR[3]
	for k := range b {
		p0, g0 = s.llrStep(p0, g0, l0.zs[k], l0.es[k])
		p1, g1 = s.llrStep(p1, g1, l1.zs[k], l1.es[k])
		p2, g2 = s.llrStep(p2, g2, l2.zs[k], l2.es[k])
		p3, g3 = s.llrStep(p3, g3, l3.zs[k], l3.es[k])
	}
	s.prod = [idealLanes]float64{p0, p1, p2, p3}
	s.logLR = [idealLanes]float64{g0, g1, g2, g3}
}

// llrStep is one step of trial's LLR: the product of likelihood ratios
// 1 − q + q·e^z, folded into logLR when it leaves [1e-150, 1e150], and
// steps with z > 30 added in log space.
func (s *idealScorer) llrStep(prod, logLR, z, ez float64) (float64, float64) {
	if z > 30 {
		return prod, logLR + largeStepLLR(z, s.q, s.logQ)
	}
	prod *= 1 - s.q + s.q*ez
	if prod > 1e150 || prod < 1e-150 {
		logLR += math.Log(prod)
		prod = 1
	}
	return prod, logLR
}

// zigguratTables are math/rand/v2's ziggurat tables for NormFloat64's fast
// path: a draw u with j = int32(u), i = u>>32 & 0x7F returns
// float64(j)·float64(wn[i]) when |j| < kn[i].
type zigguratTables struct {
	kn [128]uint32
	wn [128]float32
}

// ziggurat reads the tables out of math/rand/v2 itself (they are not
// exported) by feeding NormFloat64 chosen words, once, when an ideal audit
// first needs them: wn[i] is the value returned for j = 1 (the fast path,
// or, in strip 1 whose kn is 0, the slow path accepting x), kn[i] the
// smallest j ≥ 0 for which NormFloat64 asks for a second word. Reading
// them rather than copying them keeps the draws those of the library the
// rest of dpaudit uses; TestIdealNormalMatchesStdlib checks them on a
// million words.
var ziggurat = sync.OnceValue(func() *zigguratTables {
	z := &zigguratTables{}
	src := &scriptSource{}
	r := rand.New(src)
	for i := range uint64(128) {
		src.set(i<<32 | 1)
		z.wn[i] = float32(r.NormFloat64())
		lo, hi := uint64(0), uint64(1)<<31 // kn[i] ∈ [lo, hi]: j < lo is fast, j ≥ hi is not
		for lo < hi {
			mid := (lo + hi) / 2
			src.set(i<<32 | mid)
			r.NormFloat64()
			if src.calls == 1 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		z.kn[i] = uint32(lo)
	}
	return z
})

// scriptSource returns its first word, then words that end any slow path
// of NormFloat64 at once (0: a unit draw of 0; then a fast-path word of
// strip 2), counting the calls.
type scriptSource struct {
	first uint64
	calls int
}

func (s *scriptSource) set(first uint64) { s.first, s.calls = first, 0 }

func (s *scriptSource) Uint64() uint64 {
	s.calls++
	switch s.calls {
	case 1:
		return s.first
	case 2:
		return 0
	}
	return 2 << 32
}

func absInt32(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}
