package attack

import (
	"math/bits"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

// Trials of the Poisson ideal mechanism side by side. One trial's step is
// a chain of dependent operations (the running sums, the LLR product) with
// an exp in the middle, so a core running one trial at a time mostly
// waits; idealLanes trials in lockstep give it independent work for every
// latency, and fill one AVX2 register with one step of every lane. Each
// lane performs exactly the operations of IdealMechanism.trial, in the
// same order, on the words of its own trial's stream, so the scores are
// the same bits: only the interleaving of independent trials changes.
//
// Per block of steps, a first pass draws each lane's released values y_t
// (normals and inclusion gaps) from its ChaCha8 stream, generated an
// iteration (124 words) at a time by internal/chacha8 with every word's
// ziggurat fast-path value σ·z computed in bulk, so that between the rare
// events (a word off the fast path, an included step) drawing is copying;
// a second pass scores the block across the lanes (ideal_score.go).

// idealLanes is how many trials run side by side: one AVX2 register of
// float64.
const idealLanes = 4

// idealBlock is the number of steps drawn per lane before scoring them
// (4 lanes × 256 float64 = 8 KiB, well inside L1).
const idealBlock = 256

// idealLane is one trial's stream, read as
// rand.New(rand.NewChaCha8(key)) would read it.
type idealLane struct {
	stream chacha8.Stream
	buf    chacha8.Buffer // the current iteration's words
	pos    int            // the next unread word of buf
	// cand[n] is σ·NormFloat64's fast-path value of word n,
	// σ·(float64(j)·float64(wn[i])), and bit n of slowBits says the fast
	// path does not take word n.
	cand     [len(chacha8.Buffer{})]float64
	slowBits [2]uint64
	sigma    float64
	zig      *zigguratTables
	nextIn   int // the next step whose batch includes the canary
}

// seed restarts the lane on the stream of key, releasing σ·Z.
func (l *idealLane) seed(key [32]byte, sigma float64, z *zigguratTables) {
	l.sigma, l.zig = sigma, z
	l.stream.Seed(key)
	l.pos = chacha8.Words
}

// refill reads the next iteration of words and their candidate values.
func (l *idealLane) refill() {
	l.stream.Next(&l.buf)
	zigguratCandidates(l.zig, &l.buf, l.sigma, &l.cand, &l.slowBits)
	l.pos = 0
}

// word is the stream's next word.
func (l *idealLane) word() uint64 {
	if l.pos == chacha8.Words {
		l.refill()
	}
	w := l.buf[l.pos]
	l.pos++
	return w
}

// noise is σ·rand.Rand.NormFloat64() on the lane's stream: the ziggurat's
// fast path (taken by about 97.3% of draws) from the candidates, the rest
// by normalSlow, which re-reads the word.
func (l *idealLane) noise() float64 {
	if l.pos == chacha8.Words {
		l.refill()
	}
	p := l.pos
	if l.slowBits[p>>6]>>(p&63)&1 == 0 {
		l.pos = p + 1
		return l.cand[p]
	}
	return l.sigma * l.normalSlow()
}

// fastRun is the number of words from pos on, in this iteration, that
// the fast path takes.
func (l *idealLane) fastRun() int {
	p := l.pos
	if m := l.slowBits[p>>6] >> (p & 63); m != 0 {
		return bits.TrailingZeros64(m)
	}
	if p < 64 && l.slowBits[1] != 0 {
		return 64 - p + bits.TrailingZeros64(l.slowBits[1])
	}
	return chacha8.Words - p
}

// unit is rand.Rand.Float64 on the lane's stream.
func (l *idealLane) unit() float64 { return float64(l.word()<<11>>11) / (1 << 53) }

// zigguratCandidatesGo is zigguratCandidates one word at a time, for the
// output words of buf.
func zigguratCandidatesGo(z *zigguratTables, buf *chacha8.Buffer, sigma float64, cand *[len(chacha8.Buffer{})]float64, slow *[2]uint64) {
	*slow = [2]uint64{}
	for n, u := range buf[:chacha8.Words] {
		j := int32(u)
		i := u >> 32 & 0x7F
		cand[n] = sigma * (float64(j) * float64(z.wn[i]))
		if absInt32(j) >= z.kn[i] {
			slow[n>>6] |= 1 << (n & 63)
		}
	}
}

// draw writes the released values of steps t0 … t0+b−1 to dst[0],
// dst[stride], …, as trial draws them: σ·NormFloat64(), plus 1 at an
// included step, after which the next gap is drawn.
func (l *idealLane) draw(s *idealScorer, dst []float64, stride, t0, b int) {
	k := 0
	for k < b {
		if l.pos == chacha8.Words {
			l.refill()
		}
		// Up to the next included step, the fast words are copies.
		if run := min(b, l.nextIn-t0) - k; run > 0 {
			if run = min(run, l.fastRun()); run > 0 {
				copyStrided(dst[k*stride:], stride, l.cand[l.pos:l.pos+run])
				l.pos += run
				k += run
				continue
			}
		}
		y := l.noise()
		if t := t0 + k; t == l.nextIn {
			y++
			l.nextIn = t + 1 + s.gap(l)
		}
		dst[k*stride] = y
		k++
	}
}

// copyStridedGo sets dst[i·stride] = src[i].
func copyStridedGo(dst []float64, stride int, src []float64) {
	for i, v := range src {
		dst[i*stride] = v
	}
}
