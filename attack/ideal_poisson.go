package attack

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

// The Poisson add/remove game's stream. SimulateIdeal draws this game's
// trials from a stream laid out for vector kernels, not from the
// rand.Rand calls of IdealMechanism.Trial (which the other games, and
// callers of Trial, still use): the released values of one trial land
// at fixed positions of its ChaCha8 words, so a block of steps is
// converted, patched and scored by kernels with no copying in between.
// The draws are as exact as Trial's and the scores the same statistics
// (TestIdealScoreDistributions, TestPoissonNormal), not the same bits.
//
// Trial i's key is rng's key of (seed, path…, i), as for Trial. Its
// main stream is ChaCha8 on that key (internal/chacha8, rand.NewChaCha8's
// words):
//
//   - word 0: the world, its lowest bit, when worlds are random (the same
//     world as Trial's stream gives);
//   - words 1…4: the key of the trial's second (aux) ChaCha8 stream;
//   - words 5…7: unused;
//   - from word 8 on, two steps per word, the low 32 bits first: step t
//     reads half h_t, strip i = h_t & 0xFF, j = int32(h_t) >> 8 (a signed
//     24-bit integer), and its normal is j·zigW[i] when |j| < zigK[i]:
//     the fast path of a 256-strip ziggurat (ideal_zig256.go), taken by
//     98.5% of draws.
//
// The aux stream supplies, in step order, everything else: a half off the
// fast path continues the ziggurat with aux words (the base strip's tail
// from two uniforms, a wedge test from one, and on rejection the low half
// of the next aux word as a fresh draw), and in world 1 the geometric
// gaps to the canary's next inclusion, ⌊log(1 − U)/log(1 − q)⌋ capped at
// T, the first drawn before step 0 and each after an included step. A
// uniform U is an aux word's top 53 bits over 2⁵³ (rand.Float64).
//
// Step t releases y_t = σ·Z_t (+1 when included) and is scored in the
// accumulators of its residue t mod 8 (two vectors of four lanes, so that
// consecutive steps' sums and products do not wait on each other):
//
//	p += y;  d := y − 1;  w −= (d·c)·d;  z := y·2c − c;  m *= (1 − q) + q·e^z
//
// with c = 1/(2σ_d²), every "a·b + c" fused, and e^z the polynomial exp of
// expPoly. The products m keep their binary exponents apart (exact:
// scaling by 2^k commutes with rounding), so they never fold into logs.
// A step with z > 30 adds largeStepLLR to the log directly; below −700
// its factor rounds to 1 − q; at q = 1 the step's LLR is z itself. The
// scores are Projection = p₀ + p₁ + … + p₇ (left to right), Watermark the
// same of the w, and LLR the large steps' sum plus log(m₀·m₁·…·m₇) + (E₀
// + … + E₇)·ln 2, with each m_r ∈ [1, 2) and E_r its exponent.

// poissonFirstHalf is the main stream's first half that is a step's draw.
const poissonFirstHalf = 16

// poissonHalves is the number of halves of one iteration of words.
const poissonHalves = 2 * chacha8.Words

// poissonState is the eight residues' accumulators as the kernels read
// and write them (ideal_amd64.s knows this layout), and their constants.
type poissonState struct {
	p, w, m    [8]float64 // sums, and the products' mantissas
	e          [8]int64   // the products' binary exponents
	zmin, zmax [4]float64 // the block's exponent range (kernel only)
	// Four copies of each constant, the kernel's memory operands:
	// c = 1/(2σ_d²), 2c, −c, q and 1 − q.
	c, c2, nc, q, omq [4]float64
}

// poissonSim simulates trials of the Poisson add/remove game.
type poissonSim struct {
	m       IdealMechanism
	sigma   float64
	log1mQ  float64
	logQ    float64
	withLLR bool
	main    chacha8.Stream
	aux     chacha8.Stream
	buf     chacha8.Buffer
	auxBuf  chacha8.Buffer
	auxPos  int
	nextIn  int // the next included step (T: none)
	cand    [poissonHalves]float64
	exps    [poissonHalves]float64 // the block's exps
	slow    [4]uint64              // bit h: half h is off the fast path
	st      poissonState
	large   float64 // the LLR of steps with z > 30 (or all steps at q = 1)
}

func newPoissonSim(m IdealMechanism, sigmaD float64, withLLR bool) *poissonSim {
	s := &poissonSim{
		m: m, sigma: m.NoiseMultiplier, log1mQ: math.Log1p(-m.SamplingRate), logQ: math.Log(m.SamplingRate),
		withLLR: withLLR,
	}
	c, q := 1/(2*sigmaD*sigmaD), m.SamplingRate
	for r := range 4 {
		s.st.c[r], s.st.c2[r], s.st.nc[r], s.st.q[r], s.st.omq[r] = c, 2*c, -c, q, 1-q
	}
	return s
}

// start seeds the trial's streams and reads its world (given, or the
// first word's low bit when random) and first inclusion.
func (s *poissonSim) start(key [32]byte, random, world bool) bool {
	s.main.Seed(key)
	s.main.Next(&s.buf)
	if random {
		world = s.buf[0]&1 == 1
	}
	var auxKey [32]byte
	for i := range 4 {
		binary.LittleEndian.PutUint64(auxKey[8*i:], s.buf[1+i])
	}
	s.aux.Seed(auxKey)
	s.auxPos = chacha8.Words
	s.nextIn = s.m.Steps
	if world {
		s.nextIn = s.gap()
	}
	s.st.p, s.st.w, s.st.m, s.st.e = [8]float64{}, [8]float64{}, [8]float64{1, 1, 1, 1, 1, 1, 1, 1}, [8]int64{}
	s.large = 0
	return world
}

// auxWord is the aux stream's next word.
func (s *poissonSim) auxWord() uint64 {
	if s.auxPos == chacha8.Words {
		s.aux.Next(&s.auxBuf)
		s.auxPos = 0
	}
	w := s.auxBuf[s.auxPos]
	s.auxPos++
	return w
}

// auxUnit is rand.Float64 on the aux stream.
func (s *poissonSim) auxUnit() float64 { return float64(s.auxWord()<<11>>11) / (1 << 53) }

// gap is the geometric number of steps before the next inclusion, capped
// at T.
func (s *poissonSim) gap() int {
	if s.m.SamplingRate == 1 {
		return 0
	}
	g := math.Floor(math.Log(1-s.auxUnit()) / s.log1mQ)
	if g < float64(s.m.Steps) {
		return int(g)
	}
	return s.m.Steps
}

// normal is the ziggurat's draw for half h: the fast path's value, or the
// slow path continued on the aux stream.
func (s *poissonSim) normal(h uint32) float64 {
	for {
		i := h & 0xFF
		j := int32(h) >> 8
		x := float64(j) * float64(zigW[i])
		if absInt32(j) < zigK[i] {
			return x
		}
		if i == 0 {
			for {
				x = -math.Log(s.auxUnit()) * (1.0 / zigR)
				y := -math.Log(s.auxUnit())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return zigR + x
			}
			return -zigR - x
		}
		if wedgeBelow64(zigF[i]+s.auxUnit()*(zigF[i-1]-zigF[i]), -.5*x*x) {
			return x
		}
		h = uint32(s.auxWord())
	}
}

// half is step half h of the current iteration's words.
func (s *poissonSim) half(h int) uint32 { return uint32(s.buf[h>>1] >> (32 * (h & 1))) }

// trial simulates one trial with the kernels, block by block: a block is
// the steps of one iteration of main-stream words.
func (s *poissonSim) trial(key [32]byte, random, world bool) (IdealScores, bool) {
	world = s.start(key, random, world)
	h0, T := poissonFirstHalf, s.m.Steps
	for t := 0; t < T; {
		n := min(poissonHalves-h0, T-t)
		zigHalves(&s.buf, h0+n, s.sigma, &s.cand, &s.slow)
		blk := s.cand[h0 : h0+n]
		s.patch(blk, h0, t)
		s.score(blk, t)
		t += n
		h0 = 0
		if t < T {
			s.main.Next(&s.buf)
		}
	}
	return s.scores(), world
}

// patch completes the block's draws in step order: the halves off the
// fast path, and the inclusions.
func (s *poissonSim) patch(blk []float64, h0, t0 int) {
	n := len(blk)
	next := 0 // where the search for slow halves resumes
	for {
		sp := s.nextSlow(h0+next, h0+n) - h0
		ip := s.nextIn - t0
		switch {
		case sp < n && sp <= ip:
			blk[sp] = s.sigma * s.normal(s.half(h0+sp))
			next = sp + 1
		case ip < n:
			blk[ip]++
			s.nextIn = t0 + ip + 1 + s.gap()
		default:
			return
		}
	}
}

// nextSlow is the first half in [from, to) off the fast path, or to.
func (s *poissonSim) nextSlow(from, to int) int {
	for h := from; h < to; h = (h | 63) + 1 {
		if m := s.slow[h>>6] >> (h & 63); m != 0 {
			return min(h+bits.TrailingZeros64(m), to)
		}
	}
	return to
}

// score folds the block's steps (the first at step t0, a multiple of 4)
// into the residues' accumulators: whole groups of four by the kernel
// where the block's exponents are all in [−700, 30] (a block outside
// that is redone step by step), the last steps of the trial one by one.
func (s *poissonSim) score(blk []float64, t0 int) {
	n4 := len(blk) &^ 3
	switch {
	case !s.withLLR:
		poissonSums(blk[:n4], &s.st)
	case s.st.q[0] == 1:
		s.careful(blk[:n4], t0)
	default:
		saved := s.st
		s.st.zmin, s.st.zmax = [4]float64{}, [4]float64{}
		poissonScore(blk[:n4], s.exps[:], &s.st)
		if minOf4(s.st.zmin) < -700 || maxOf4(s.st.zmax) > 30 {
			s.st = saved
			s.careful(blk[:n4], t0)
		}
	}
	s.careful(blk[n4:], t0+n4)
}

// careful is the scoring of steps t0, t0+1, … one at a time, with the
// kernel's operations for every step whose exponent is in [−700, 30].
func (s *poissonSim) careful(ys []float64, t0 int) {
	st := &s.st
	c, c2, nc, q, omq := st.c[0], st.c2[0], st.nc[0], st.q[0], st.omq[0]
	for k, y := range ys {
		r := (t0 + k) & 7
		st.p[r] += y
		d := y - 1
		st.w[r] = math.FMA(-(d * c), d, st.w[r])
		if !s.withLLR {
			continue
		}
		z := math.FMA(y, c2, nc)
		switch {
		case q == 1:
			s.large += z
			continue
		case z > 30:
			s.large += largeStepLLR(z, q, s.logQ)
			continue
		case z < -700:
			st.m[r] *= omq
		default:
			st.m[r] *= math.FMA(q, expPoly(z), omq)
		}
		st.m[r], st.e[r] = renormalize(st.m[r], st.e[r])
	}
}

// scores is the trial's scores from the accumulators.
func (s *poissonSim) scores() IdealScores {
	st := &s.st
	var out IdealScores
	for r := range 8 {
		out.Projection += st.p[r]
		out.Watermark += st.w[r]
	}
	if !s.withLLR {
		return out
	}
	// One log for the eight products: their mantissas' product is below
	// 2⁸.
	mant, exp := 1.0, int64(0)
	for r := range 8 {
		m, e := renormalize(st.m[r], st.e[r])
		mant *= m
		exp += e
	}
	out.LLR = s.large + (math.Log(mant) + float64(exp)*math.Ln2)
	return out
}

// renormalize writes m·2^e as m′·2^e′ with m′ ∈ [1, 2), exactly (m > 0
// and normal).
func renormalize(m float64, e int64) (float64, int64) {
	b := math.Float64bits(m)
	return math.Float64frombits(b&(1<<52-1) | 1023<<52), e + int64(b>>52) - 1023
}

func minOf4(v [4]float64) float64 { return min(v[0], v[1], v[2], v[3]) }
func maxOf4(v [4]float64) float64 { return max(v[0], v[1], v[2], v[3]) }
