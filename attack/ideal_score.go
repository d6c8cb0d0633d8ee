package attack

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// idealState4 is the scores of four lanes as the kernels read and write
// them (ideal_amd64.s knows this layout), and the constants they use.
type idealState4 struct {
	p, w, prod  [idealLanes]float64 // projection, watermark, LLR product
	c, q, oneMQ float64             // 1/(2σ_d²), q, 1 − q
	_           float64
}

// idealScorer holds what every lane's scoring shares.
type idealScorer struct {
	m            IdealMechanism
	q, sigma     float64
	inv2s2, logQ float64
	log1mQ       float64
	withLLR      bool
	zig          *zigguratTables
	lanes        [idealLanes]idealLane
	st           idealState4
	logLR        [idealLanes]float64
	// ys are the released values of a block of steps, interleaved (step k
	// of lane j at ys[idealLanes·k + j]); e4 are their LLR exps and ok4
	// whether the kernel may use them (idealExp4); zs and es are one
	// lane's LLR exponents (2y − 1)/(2σ_d²) and their exps, for the
	// portable path. ys has 3 steps of padding past the block, which
	// copyStrided may write (never read).
	ys     [idealLanes * (idealBlock + 3)]float64
	e4     [idealLanes * idealBlock]float64
	ok4    [idealBlock]uint8
	zs, es [idealBlock]float64
}

func newIdealScorer(m IdealMechanism, sigmaD float64, withLLR bool) *idealScorer {
	s := &idealScorer{
		m: m, q: m.SamplingRate, sigma: m.NoiseMultiplier,
		inv2s2: 1 / (2 * sigmaD * sigmaD), logQ: math.Log(m.SamplingRate), log1mQ: math.Log1p(-m.SamplingRate),
		withLLR: withLLR, zig: ziggurat(),
	}
	s.st.c, s.st.q, s.st.oneMQ = s.inv2s2, s.q, 1-s.q
	return s
}

// gap is trial's geometric inclusion gap on lane l's stream.
func (s *idealScorer) gap(l *idealLane) int {
	if s.q == 1 {
		return 0
	}
	g := math.Floor(math.Log(1-l.unit()) / s.log1mQ)
	// trial's int(math.Min(g, T)) without the call: g is never NaN (the
	// log is finite and ≤ 0, log1mQ < 0), and a −0 converts to 0 alike.
	if g < float64(s.m.Steps) {
		return int(g)
	}
	return s.m.Steps
}

// run scores n ≤ idealLanes trials (Poisson sampling) whose streams are
// keyed by keys, into out[:n]; random worlds are the first word of each
// stream (and are returned in worlds), else worlds are as given.
func (s *idealScorer) run(keys [][32]byte, random bool, worlds []bool, out []IdealScores) {
	n := len(keys)
	for k := range n {
		l := &s.lanes[k]
		l.seed(keys[k], s.sigma, s.zig)
		if random {
			worlds[k] = l.word()&1 == 1
		}
		l.nextIn = s.m.Steps
		if worlds[k] {
			l.nextIn = s.gap(l)
		}
		s.st.p[k], s.st.w[k], s.st.prod[k], s.logLR[k] = 0, 0, 1, 0
	}
	for t0 := 0; t0 < s.m.Steps; t0 += idealBlock {
		b := min(idealBlock, s.m.Steps-t0)
		for k := range n {
			s.lanes[k].draw(s, s.ys[k:], idealLanes, t0, b)
		}
		s.score(n, b)
	}
	for k := range n {
		out[k] = IdealScores{Projection: s.st.p[k], Watermark: s.st.w[k], LLR: s.logLR[k] + math.Log(s.st.prod[k])}
	}
}

// score folds steps [0, b) of lanes [0, n) into their scores: four lanes
// at once in the AVX2 kernels where the CPU has them, else lane by lane
// with the exps of the block from numeric.ExpBlock (the same bits as
// math.Exp, four at a time).
func (s *idealScorer) score(n, b int) {
	if n == idealLanes && haveIdealKernels {
		if !s.withLLR {
			idealSums4(&s.ys[0], b, &s.st)
			return
		}
		s.score4(b)
		return
	}
	for j := range n {
		s.sums(j, b)
		if s.withLLR {
			s.llr(j, b)
		}
	}
}

// score4 runs the kernels over the block — the exps of every step first,
// independent of each other, then the running sums and products — doing
// itself the steps they leave (an exponent outside [−700, 30]) and the
// folds of a product that left [1e-150, 1e150].
func (s *idealScorer) score4(b int) {
	idealExp4(&s.ys[0], b, s.inv2s2, &s.e4[0], &s.ok4[0])
	for k := 0; k < b; {
		done, fold := idealScore4(&s.ys[idealLanes*k], &s.e4[idealLanes*k], &s.ok4[k], b-k, &s.st)
		k += done
		if fold {
			for j := range idealLanes {
				s.st.prod[j], s.logLR[j] = s.fold(s.st.prod[j], s.logLR[j])
			}
			continue
		}
		if k < b {
			s.step4(k)
			k++
		}
	}
}

// step4 is step k of all four lanes, as trial does it.
func (s *idealScorer) step4(k int) {
	for j := range idealLanes {
		y := s.ys[idealLanes*k+j]
		s.st.p[j] += y
		d := y - 1
		s.st.w[j] -= d * d * s.inv2s2
		z := (2*y - 1) * s.inv2s2
		ez := 0.0
		if z <= 30 {
			ez = math.Exp(z)
		}
		s.st.prod[j], s.logLR[j] = s.llrStep(s.st.prod[j], s.logLR[j], z, ez)
	}
}

// sums adds steps [0, b) of lane j to its projection and watermark.
func (s *idealScorer) sums(j, b int) {
	p, w := s.st.p[j], s.st.w[j]
	for k := range b {
		y := s.ys[idealLanes*k+j]
		p += y
		d := y - 1
		w -= d * d * s.inv2s2
	}
	s.st.p[j], s.st.w[j] = p, w
}

// llr folds steps [0, b) of lane j into its likelihood-ratio product.
func (s *idealScorer) llr(j, b int) {
	b4 := (b + 3) &^ 3
	for k := range b4 {
		s.zs[k] = (2*s.ys[idealLanes*k+j] - 1) * s.inv2s2
	}
	numeric.ExpBlock(s.es[:b4], s.zs[:b4])
	prod, logLR := s.st.prod[j], s.logLR[j]
	for k := range b {
		prod, logLR = s.llrStep(prod, logLR, s.zs[k], s.es[k])
	}
	s.st.prod[j], s.logLR[j] = prod, logLR
}

// llrStep is one step of trial's LLR: the product of likelihood ratios
// 1 − q + q·e^z, folded into logLR when it leaves [1e-150, 1e150], and
// steps with z > 30 added in log space.
func (s *idealScorer) llrStep(prod, logLR, z, ez float64) (float64, float64) {
	if z > 30 {
		return prod, logLR + largeStepLLR(z, s.q, s.logQ)
	}
	prod *= 1 - s.q + s.q*ez
	return s.fold(prod, logLR)
}

// fold moves a product that left [1e-150, 1e150] into the log.
func (s *idealScorer) fold(prod, logLR float64) (float64, float64) {
	if prod > 1e150 || prod < 1e-150 {
		return 1, logLR + math.Log(prod)
	}
	return prod, logLR
}
