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
}

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

// addNormalStream is addNormal on a buffered stream: runs of words whose
// two draws are both on the ziggurat's fast path (≈ 97.6% of words) are
// turned into draws 16 at a time by AVX-512 (gemm.ZigguratScan, else
// gemm.ZigguratFast); a word with a slow draw, and an odd last element,
// take addNormal's scalar steps. Issue 12: the noise took 36% of an MLP
// 784-512-10 step at one thread.
func addNormalStream(s *wordStream, dst []float32, scale float32) bool {
	k, ok := addNormalScanned(s, dst, scale)
	if !ok {
		k = addNormalStopping(s, dst, k, scale)
	}
	if k < len(dst) {
		dst[k] += float32(scale * zigDraw(s, uint32(s.Uint64())))
	}
	ok, _ = allFinite(dst)
	return ok
}

// addNormalScanned adds draws to dst in pairs while a vector scan is
// available and returns how far it got (the pairs left are fewer than 2
// values, or the scan is not available: ok false). A buffer is scanned
// once, whole (gemm.ZigguratScan). resolve then finishes the slow words'
// draws in place in the scan's values and marks the words they consumed,
// and one gemm.ZigguratAddKept adds all of the buffer's draws that dst
// needs: the plain float32 add dst[k] + float32(scale·x) of addNormal.
// Only a slow word whose draws would read past the buffer takes the
// stream path (addSlowWord). Issue 12: stopping the vector loop at each
// slow word (one word in 18) made it pay its set-up every ≈ 2 groups, and
// an Axpy per stretch between slow words cost nearly as much.
func addNormalScanned(s *wordStream, dst []float32, scale float32) (int, bool) {
	k := 0
	for k+2 <= len(dst) {
		if s.pos == s.n {
			s.refill()
		}
		if !s.scanned || s.scanScale != scale {
			if !gemm.ZigguratScan(s.buf[:scanWords], &zigK, &zigW, scale, s.vals[:2*scanWords], s.slow[:]) {
				return k, false
			}
			s.scanned, s.scanScale = true, scale
		}
		end, pairs, crossing := s.resolve((len(dst)-k)/2, scale)
		if end > s.pos {
			gemm.ZigguratAddKept(s.vals[2*s.pos:], s.skip[s.pos:], end-s.pos, dst[k:])
			s.pos = end
			k += 2 * pairs
		}
		if crossing {
			k = addSlowWord(s, dst, k, scale)
		}
	}
	return k, true
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
// wedge tests from two straight lines instead of an exponential. Issue 12:
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
