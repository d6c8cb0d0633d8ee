package learn

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/dpaudit/dpaudit/learn/gemm"
	"github.com/dpaudit/dpaudit/learn/internal/chacha8"
)

// wordStream is the ChaCha8 stream rand.NewChaCha8(seed) generated one
// iteration at a time (chacha8: AVX-512, 5–7× faster than the standard
// library's) and read through a buffer, so that the vector ziggurat
// (gemm.ZigguratFast) can look at many words at once. Words leave in stream
// order however they are read, and unread ones stay buffered for the next
// call, so addNormalStream draws exactly what addNormal draws from
// rand.NewChaCha8(seed), call after call (TestAddNormalStream).
type wordStream struct {
	src    *chacha8.Stream
	buf    chacha8.Buffer
	pos, n int // buf[pos:n] are unread

	// The vector scan of buf (gemm.ZigguratScan), valid while scanned and
	// for scale scanScale: vals[2w], vals[2w+1] are word w's two draws
	// times scale when bit w of slow (little-endian) is clear.
	scanned   bool
	scanScale float32
	vals      [2*scanWords + 16]float32 // + 16: gemm.ZigguratAddKept's slack
	slow      [scanWords / 8]uint8

	// skip[w] is 1 when word w of the buffer was consumed by a slow draw
	// (as a uniform or a redrawn layer) rather than giving two draws; set
	// by resolve for the words from pos on, + 8 bytes of slack.
	skip [scanWords + 8]uint8

	// cons[p] for slow word p (valid while scanned): the words its slow
	// draw consumes (1 or 2), when prepareSlow could finish it: one half
	// fast, the other a wedge draw accepted at once or rejected and redrawn
	// on the fast path, its words in the buffer. vals then holds both
	// draws. 0: the scalar path (resolveSlow).
	cons  [scanWords]uint8
	lanes slowLanes
}

// slowLanes are the inputs and outputs of gemm.ZigguratWedge for one
// buffer: lane k is the slow half of the k-th slow word, word[k], and
// flags[k] says which halves are slow (bit 0: low, bit 1: high) and
// whether one is in the base layer (bit 2: the tail, not a wedge test).
type slowLanes struct {
	x, f, d [maxLanes]float64
	u       [maxLanes]uint64
	xs      [maxLanes]float32
	acc     [maxLanes / 8]uint8
	word    [maxLanes]uint8
	flags   [maxLanes]uint8
}

// maxLanes bounds the slow words prepared per buffer (≈ 7 on average;
// the rest, if ever, go the scalar way).
const maxLanes = 32

// expNegConsts are expNeg's constants in the order gemm.ZigguratWedge's
// kernel reads them (the last is the int64 1023).
var expNegConsts = [16]float64{-0.5, math.Log2E, 0.5, math.Ln2, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120,
	1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 0x1p-53, math.Float64frombits(1023)}

// scanWords is how many words of a buffer the scan covers: Words rounded
// up to whole groups of 8, which chacha8.Buffer holds (the words past
// Words are never consumed as draws).
const scanWords = (chacha8.Words + 7) / 8 * 8

func newWordStream(seed [32]byte) *wordStream { return &wordStream{src: chacha8.New(seed)} }

// Uint64 returns the next word of the stream.
func (s *wordStream) Uint64() uint64 {
	if s.pos == s.n {
		s.refill()
	}
	u := s.buf[s.pos]
	s.pos++
	return u
}

// unit is unit64 for the stream, without the generic's dictionary call.
func (s *wordStream) unit() float64 { return float64(s.Uint64()>>11+1) / (1 << 53) }

// refill reads a buffer's worth of words; only called when it is empty.
func (s *wordStream) refill() {
	s.src.Next(&s.buf)
	s.pos, s.n = 0, chacha8.Words
	s.scanned = false
}

// prepareSlow finishes, for the scanned buffer, the slow words whose one
// slow half needs one wedge test (gemm.ZigguratWedge, 8 words at a time,
// with the uniform at p+1 where the scalar path reads it) and, if that
// rejects, a redraw that is on the fast path (the low half of word p+2):
// their draws times scale go into vals and their consumption into cons.
// That is 94% of slow words; those with two slow halves (1.4%), a tail
// draw (2%), a slow redraw or words past the buffer go the scalar way.
// It reports false when gemm has no vector path. Measured: one word in 18
// is slow, and the scalar path took ≈ 35 ns each, mostly branches that no
// predictor gets right (which half, accept or not: 55% of wedge tests
// accept).
func (s *wordStream) prepareSlow(scale float32) bool {
	L := &s.lanes
	k := 0
	// Branch-free where it can be: which half is slow, and whether a
	// test accepts, are coin flips to a branch predictor.
	for p := s.nextSlow(0); p < s.n; p = s.nextSlow(p + 1) {
		if k == maxLanes {
			s.cons[p] = 0
			continue
		}
		u := s.buf[p]
		fl := slowBit(uint32(u)) | slowBit(uint32(u>>32))<<1
		h := uint32(u >> (32 * (fl >> 1))) // the slow half (the high one if both)
		i, j := h&0x7F, int32(h)>>7
		fl |= uint32(int32(i)-1) >> 31 << 2 // base layer: the tail
		L.x[k] = float64(j) * float64(zigW[i])
		L.f[k], L.d[k] = zigF[i], zigD[i]
		L.u[k] = s.buf[p+1] // buf has 4 words past n: in bounds
		L.word[k], L.flags[k] = uint8(p), uint8(fl)
		k++
	}
	n8 := (k + 7) &^ 7
	for l := k; l < n8; l++ { // harmless padding: x = 0, y = 0
		L.x[l], L.f[l], L.d[l], L.u[l] = 0, 0, 0, 0
	}
	if !gemm.ZigguratWedge(L.x[:n8], L.u[:n8], L.f[:n8], L.d[:n8], &expNegConsts, L.acc[:], L.xs[:]) {
		return false
	}
	for m := range k {
		p, fl := int(L.word[m]), uint32(L.flags[m])
		a := uint32(L.acc[m/8]>>(m%8)) & 1 // 1: accepted
		r := uint32(s.buf[p+2])            // the redraw if rejected
		ri, rj := r&0x7F, int32(r)>>7
		c := int(2 - a) // words consumed
		bad := fl&(fl>>1)&1 | fl>>2 | (1-a)&slowBit(r) | uint32(s.n-1-p-c)>>31
		if bad != 0 {
			s.cons[p] = 0
			continue
		}
		// the draw: float32(x) if accepted, else the redraw's fast value
		mask := a - 1
		v := math.Float32bits(L.xs[m])&^mask | math.Float32bits(float32(rj)*zigW[ri])&mask
		s.vals[2*p+int(fl>>1)] = float32(scale * math.Float32frombits(v)) // the other half's is the scan's
		s.cons[p] = uint8(c)
	}
	return true
}

// addNormalStream is addNormal on a buffered stream: runs of words whose
// two draws are both on the ziggurat's fast path (≈ 94.6% of words) are
// turned into draws 16 at a time by AVX-512 (gemm.ZigguratScan, else
// gemm.ZigguratFast), most slow words are finished 8 at a time
// (prepareSlow), and the rest, and an odd last element, take addNormal's
// scalar steps. Measured: the noise took 36% of an MLP
// 784-512-10 step at one thread.
func addNormalStream(s *wordStream, dst []float32, scale float32) bool {
	k, ok, finite := addNormalScanned(s, dst, scale)
	if !ok { // no vector scan: the stopping loop, and a pass to check
		k = addNormalStopping(s, dst, k, scale)
		finite = false
	}
	if k < len(dst) {
		dst[k] += float32(scale * zigDraw(s, uint32(s.Uint64())))
		finite = finite && isFinite32(dst[k])
	}
	if !finite {
		finite, _ = allFinite(dst)
	}
	return finite
}

// isFinite32 reports whether v is neither NaN nor ±Inf.
func isFinite32(v float32) bool { return v-v == 0 }

// addNormalScanned adds draws to dst in pairs while a vector scan is
// available and returns how far it got (the pairs left are fewer than 2
// values, or the scan is not available: ok false). A buffer is scanned
// once, whole (gemm.ZigguratScan). resolve then finishes the slow words'
// draws in place in the scan's values and marks the words they consumed,
// and one gemm.ZigguratAddKept adds all of the buffer's draws that dst
// needs: the plain float32 add dst[k] + float32(scale·x) of addNormal.
// Only a slow word whose draws would read past the buffer takes the
// stream path (addSlowWord). finite reports whether every sum written is
// finite (ZigguratAddKept checks as it stores: no second pass over dst).
// Measured: stopping the vector loop at each slow word (one word in 18)
// made it pay its set-up every ≈ 2 groups, and an Axpy per stretch between
// slow words cost nearly as much.
func addNormalScanned(s *wordStream, dst []float32, scale float32) (k int, ok, finite bool) {
	finite = true // of every sum written so far
	for k+2 <= len(dst) {
		if s.pos == s.n {
			s.refill()
		}
		if !s.scanned || s.scanScale != scale {
			if !gemm.ZigguratScan(s.buf[:scanWords], &zigK, &zigW, scale, s.vals[:2*scanWords], s.slow[:]) {
				return k, false, false
			}
			s.scanned, s.scanScale = true, scale
			if !s.prepareSlow(scale) {
				clear(s.cons[:]) // all by the scalar path
			}
		}
		end, pairs, crossing := s.resolve((len(dst)-k)/2, scale)
		if end > s.pos {
			_, fin := gemm.ZigguratAddKept(s.vals[2*s.pos:], s.skip[s.pos:], end-s.pos, dst[k:])
			finite = finite && fin
			s.pos = end
			k += 2 * pairs
		}
		if crossing {
			k = addSlowWord(s, dst, k, scale)
			finite = finite && isFinite32(dst[k-2]) && isFinite32(dst[k-1])
		}
	}
	return k, true, finite
}

// resolve walks the scanned buffer from pos for at most need pairs of
// draws: the words before end give pairs draws, the slow ones among them
// with their draws (times scale) written into vals and the words they
// consumed marked in skip. crossing reports that the walk stopped at a
// slow word (end) whose draws need words past the buffer.
func (s *wordStream) resolve(need int, scale float32) (end, pairs int, crossing bool) {
	cur := s.pos
	clear(s.skip[cur:s.n]) // a previous walk may have started elsewhere (odd tails)
	for {
		p := min(s.nextSlow(cur), s.n)
		if pairs+p-cur >= need {
			return cur + need - pairs, need, false
		}
		pairs += p - cur
		if p == s.n {
			return p, pairs, false
		}
		if c := int(s.cons[p]); c != 0 { // finished by prepareSlow
			s.skip[p+1] = 1
			s.skip[p+2] = uint8(c - 1) // p+2 < scanWords+8; 0 if it is not consumed
			pairs++
			cur = p + 1 + c
			continue
		}
		q, ok := s.resolveSlow(p, scale)
		if !ok {
			return p, pairs, true
		}
		for w := p + 1; w < q; w++ {
			s.skip[w] = 1
		}
		pairs++
		cur = q
	}
}

// nextSlow returns the first word from w on that the scan flagged slow
// (scanWords or more when none).
func (s *wordStream) nextSlow(w int) int {
	lo := binary.LittleEndian.Uint64(s.slow[0:8])
	hi := binary.LittleEndian.Uint64(s.slow[8:16])
	if w < 64 {
		if m := lo >> w; m != 0 {
			return w + bits.TrailingZeros64(m)
		}
		return 64 + bits.TrailingZeros64(hi)
	}
	if w >= 128 {
		return 128
	}
	return w + bits.TrailingZeros64(hi>>(w-64)) // ≥ 128 when none
}

// resolveSlow finishes the two draws of slow word p from the words after
// it in the buffer, writes them times scale into vals, and returns the
// index after the last word they consumed; ok is false (nothing written)
// when they would need words past the buffer.
func (s *wordStream) resolveSlow(p int, scale float32) (next int, ok bool) {
	u := s.buf[p]
	x0, q, ok := s.drawAt(uint32(u), p+1)
	if !ok {
		return 0, false
	}
	x1, q, ok := s.drawAt(uint32(u>>32), q)
	if !ok {
		return 0, false
	}
	s.vals[2*p], s.vals[2*p+1] = float32(scale*x0), float32(scale*x1) // no FMA: as addSlowWord
	return q, true
}

// drawAt is zigDraw reading further words from buf[q:n] instead of the
// stream: the draw, the index after the words it read, and false if it
// would read past the buffer.
func (s *wordStream) drawAt(h uint32, q int) (float32, int, bool) {
	i, j := h&0x7F, int32(h)>>7
	if absInt32(j) < zigK[i] {
		return float32(j) * zigW[i], q, true
	}
	return s.slowAt(j, i, q)
}

// slowAt is normalSlowStream reading from buf[q:n] (see drawAt): the same
// decisions from the same words.
func (s *wordStream) slowAt(j int32, i uint32, q int) (float32, int, bool) {
	for {
		x := float64(j) * float64(zigW[i])
		if i == 0 {
			for {
				if q+2 > s.n {
					return 0, q, false
				}
				x = -math.Log(unitOf(s.buf[q])) / zigR
				y := -math.Log(unitOf(s.buf[q+1]))
				q += 2
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return float32(zigR + x), q, true
			}
			return float32(-zigR - x), q, true
		}
		if q+2 > s.n { // the uniform, and a redraw if rejected
			return 0, q, false
		}
		y := zigF[i] + float64(unitOf(s.buf[q])*(zigF[i-1]-zigF[i]))
		accept, decided := zigSqueeze(i, x, y)
		if !decided {
			accept = y < expNeg(float64(-0.5*x)*x)
		}
		if accept {
			return float32(x), q + 1, true
		}
		w := uint32(s.buf[q+1])
		q += 2
		i = w & 0x7F
		j = int32(w) >> 7
		if absInt32(j) < zigK[i] {
			return float32(j) * zigW[i], q, true
		}
	}
}

// slowBit is 1 when the half-word h is off the fast path, else 0, without
// a branch.
func slowBit(h uint32) uint32 {
	i, j := h&0x7F, int32(h)>>7
	return uint32(int32(zigK[i])-1-int32(absInt32(j))) >> 31
}

// unitOf is unit64 of the word u.
func unitOf(u uint64) float64 { return float64(u>>11+1) / (1 << 53) }

// addNormalStopping is addNormalScanned with gemm.ZigguratFast, which stops
// at each slow word: the path without the scan, from dst[k] on.
func addNormalStopping(s *wordStream, dst []float32, k int, scale float32) int {
	for k+2 <= len(dst) {
		if s.pos == s.n {
			s.refill()
		}
		lim := min(s.n-s.pos, (len(dst)-k)/2)
		n := gemm.ZigguratFast(s.buf[s.pos:s.pos+lim], &zigK, &zigW, scale, dst[k:k+2*lim])
		s.pos += n
		k += 2 * n
		if n == lim {
			continue
		}
		k = addSlowWord(s, dst, k, scale)
	}
	return k
}

// addSlowWord is addNormal's loop body for a word with a draw off the fast
// path (which reads further words), at dst[k], dst[k+1]; it returns k + 2.
func addSlowWord(s *wordStream, dst []float32, k int, scale float32) int {
	u := s.Uint64()
	x0, x1 := zigDraw(s, uint32(u)), zigDraw(s, uint32(u>>32))
	a, b := dst[k]+float32(scale*x0), dst[k+1]+float32(scale*x1) // no FMA: same bits everywhere
	dst[k], dst[k+1] = a, b
	return k + 2
}

// zigDraw is one draw from the 32-bit half-word h.
func zigDraw(s *wordStream, h uint32) float32 {
	i, j := h&0x7F, int32(h)>>7
	if absInt32(j) < zigK[i] {
		return float32(j) * zigW[i]
	}
	return normalSlowStream(s, j, i)
}

// normalSlowStream is normalSlow for a *wordStream with a squeeze in front
// of the wedge test: it makes the same decisions from the same words (so
// the same draws; TestAddNormalStream, TestWedgeSqueeze), but decides most
// wedge tests from two straight lines instead of an exponential. Measured:
// the exponential was 12% of an MLP 784-128-10 step. It is written out
// rather than shared with the generic normalSlow, whose word reads go
// through a dictionary call that does not inline, and which stays the plain
// reference.
func normalSlowStream(src *wordStream, j int32, i uint32) float32 {
	for {
		x := float64(j) * float64(zigW[i])
		if i == 0 {
			for {
				x = -math.Log(src.unit()) / zigR
				y := -math.Log(src.unit())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return float32(zigR + x)
			}
			return float32(-zigR - x)
		}
		y := zigF[i] + float64(src.unit()*(zigF[i-1]-zigF[i]))
		accept, decided := zigSqueeze(i, x, y)
		if !decided {
			accept = y < expNeg(float64(-0.5*x)*x)
		}
		if accept {
			return float32(x)
		}
		w := uint32(src.Uint64())
		i = w & 0x7F
		j = int32(w) >> 7
		if absInt32(j) < zigK[i] {
			return float32(j) * zigW[i]
		}
	}
}

// wedge holds, for a layer whose wedge a ≤ |x| ≤ b lies where the density
// f(x) = exp(−x²/2) is convex (a ≥ 1) or concave (b ≤ 1), the chord of f
// over [a, b] and its tangent at the midpoint m. On a convex stretch
// tangent ≤ f ≤ chord, on a concave one chord ≤ f ≤ tangent.
type wedge struct {
	kind      int8 // 0: neither (compute f), 1: convex, −1: concave
	a, fa, cs float64
	m, fm, ts float64
}

// squeezeMargin keeps the squeeze's decisions away from the exponential's:
// expNeg is within 1e−12 (relative) of f and the lines are computed to
// ≈ 1e−15, so a point more than 1e−9 below (above) both lines is below
// (above) expNeg as well.
const squeezeMargin = 1e-9

var zigWedges [128]wedge

func init() {
	if zigF[0] != 1 {
		panic("learn: ziggurat tables not initialised before the squeeze") // file order: normal.go first
	}
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	for i := 1; i < 128; i++ {
		// the |x| a wedge draw of layer i can take: |j|·zigW[i] for
		// zigK[i] ≤ |j| ≤ 2²⁴, computed as normalSlowStream does
		a := float64(zigK[i]) * float64(zigW[i])
		b := float64(1<<24) * float64(zigW[i])
		w := wedge{a: a, fa: f(a), m: (a + b) / 2}
		w.cs = (f(b) - w.fa) / (b - a)
		w.fm = f(w.m)
		w.ts = -w.m * w.fm
		switch {
		case a >= 1:
			w.kind = 1
		case b <= 1:
			w.kind = -1
		}
		zigWedges[i] = w
	}
}

// zigSqueeze decides the wedge test y < f(x) of layer i ≥ 1 from the lines
// when y is clear of both by squeezeMargin; decided is false otherwise.
func zigSqueeze(i uint32, x, y float64) (accept, decided bool) {
	w := &zigWedges[i]
	if w.kind == 0 {
		return false, false
	}
	ax := math.Abs(x)
	chord := w.fa + w.cs*(ax-w.a)
	tangent := w.fm + w.ts*(ax-w.m)
	lo, hi := tangent, chord
	if w.kind < 0 {
		lo, hi = chord, tangent
	}
	if y < lo-squeezeMargin {
		return true, true
	}
	if y >= hi+squeezeMargin {
		return false, true
	}
	return false, false
}
