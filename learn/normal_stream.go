package learn

import (
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
	buf    [chacha8.Words]uint64
	pos, n int // buf[pos:n] are unread
}

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

// refill reads a buffer's worth of words; only called when it is empty.
func (s *wordStream) refill() {
	s.src.Next(s.buf[:])
	s.pos, s.n = 0, len(s.buf)
}

// addNormalStream is addNormal on a buffered stream: runs of words whose
// two draws are both on the ziggurat's fast path (≈ 97.6% of words) go
// through gemm.ZigguratFast, 16 draws per AVX-512 instruction sequence; a
// word with a slow draw, and an odd last element, take addNormal's scalar
// steps. Issue 12: the noise took 36% of an MLP 784-512-10 step at one
// thread.
func addNormalStream(s *wordStream, dst []float32, scale float32) bool {
	k := 0
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
		// The next word has a draw off the fast path, which reads further
		// words: addNormal's loop body for that one word.
		u := s.Uint64()
		x0, x1 := zigDraw(s, uint32(u)), zigDraw(s, uint32(u>>32))
		a, b := dst[k]+float32(scale*x0), dst[k+1]+float32(scale*x1) // no FMA: same bits everywhere
		dst[k], dst[k+1] = a, b
		k += 2
	}
	if k < len(dst) {
		dst[k] += float32(scale * zigDraw(s, uint32(s.Uint64())))
	}
	ok, _ := allFinite(dst)
	return ok
}

// zigDraw is one draw from the 32-bit half-word h.
func zigDraw(s *wordStream, h uint32) float32 {
	i, j := h&0x7F, int32(h)>>7
	if absInt32(j) < zigK[i] {
		return float32(j) * zigW[i]
	}
	return normalSlow(s, j, i)
}
