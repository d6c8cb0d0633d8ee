// Package chacha8 generates the word stream of math/rand/v2's ChaCha8 in
// bulk, bit for bit, faster than calling its Uint64 one word at a time.
//
// The trainer's Gaussian noise (learn/normal.go) reads a ChaCha8 stream per
// block of coordinates and needs ≈ 0.5 words per coordinate per step: for an
// MLP 784-512-10 that is 200k words a step, and the standard library's
// generator (4 blocks at a time in SSE2 registers, 3-instruction rotates at
// GOAMD64=v1) made it ≈ 12% of the step; the ideal-mechanism audit reads
// one word per trial-step. The AVX-512 path here computes all 16 ChaCha8
// blocks of one ChaCha8Rand iteration at once (one block per 32-bit lane,
// one-instruction rotates), the AVX2 path 8 at a time in two passes (byte
// shuffles for the rotates by 16 and 8). Elsewhere it falls back to the
// standard library's generator. Either way the words are exactly those of
// rand.NewChaCha8(seed).Uint64(), in order (TestMatchesStdlib, on every
// path this CPU has).
//
// The algorithm is ChaCha8Rand (https://c2sp.org/chacha8rand; Go's
// internal/chacha8rand): the 32-byte seed keys ChaCha8 with a zero nonce;
// blocks with counters 0…15 give 1024 bytes; each group of four blocks is
// interlaced 32 bits at a time; the last 32 bytes are the next seed and the
// first 992 (124 words) are output.
package chacha8

import (
	"encoding/binary"
	"math/rand/v2"
)

// Words is the number of words one iteration outputs.
const Words = 124

// Stream is a ChaCha8Rand stream read one iteration (Words words) at a time.
type Stream struct {
	seed [4]uint64
	iter func(seed *[4]uint64, out *[128]uint64) // the vector path, or nil
	std  *rand.ChaCha8                           // fallback generator (nil on the vector path)
}

// Buffer receives one iteration: Words words of output, then 4 words of
// scratch (the next seed), so the vector path writes in place.
type Buffer [Words + 4]uint64

// New returns the stream of rand.NewChaCha8(seed).
func New(seed [32]byte) *Stream {
	s := &Stream{}
	s.Seed(seed)
	return s
}

// Seed restarts s as the stream of rand.NewChaCha8(seed), without
// allocating on the vector paths.
func (s *Stream) Seed(seed [32]byte) {
	s.iter = iter
	if iter == nil {
		if s.std == nil {
			s.std = rand.NewChaCha8(seed)
		} else {
			s.std.Seed(seed)
		}
		return
	}
	for i := range s.seed {
		s.seed[i] = binary.LittleEndian.Uint64(seed[8*i:])
	}
}

// Next fills buf[:Words] with the next Words words of the stream.
func (s *Stream) Next(buf *Buffer) {
	if s.std != nil {
		for i := range Words {
			buf[i] = s.std.Uint64()
		}
		return
	}
	s.iter(&s.seed, (*[128]uint64)(buf))
	copy(s.seed[:], buf[Words:])
}

// Vector names the vector generator in use ("avx512", "avx2"), or is ""
// when the standard library's generates the words.
func Vector() string { return iterName }
