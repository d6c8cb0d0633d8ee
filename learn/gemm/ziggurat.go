package gemm

import (
	"encoding/binary"
	"fmt"
)

// Ziggurat is the vectorisable part of the trainer's Gaussian noise
// (learn/normal.go: a float32 Marsaglia–Tsang ziggurat with 128 layers, two
// draws per 64-bit word). Each 32-bit half h of a word is one draw: layer
// i = h & 0x7F, signed abscissa j = int32(h) >> 7; the draw is on the fast
// path when |j| < kTab[i], and is then x = float32(j)·wTab[i]. The rest of
// the algorithm (the ≈ 1.2% of draws that are not, which consume further
// words) stays in learn.
//
// ZigguratFast consumes words from the front of w while both halves of each
// are on the fast path, adding scale·x to dst: word n gives
// dst[2n] += float32(scale·x_low), dst[2n+1] += float32(scale·x_high), with
// every product rounded to float32 before the add (no fused multiply-add),
// exactly like learn's scalar loop, so the result is bit-identical on every
// path. It stops before the first word with a half off the fast path and
// returns the number of words consumed. dst must hold 2·len(w) values.
func ZigguratFast(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int {
	if len(dst) < 2*len(w) {
		panic(fmt.Sprintf("gemm.ZigguratFast: len(dst) = %d < 2·len(w) = %d", len(dst), 2*len(w)))
	}
	n := 0
	if zigguratVector != nil && current.name == "avx512" && len(w) >= 8 {
		n = zigguratVector(w[:len(w)/8*8], kTab, wTab, scale, dst)
		if n < len(w)/8*8 {
			return n // stopped at a slow word
		}
	}
	return n + zigguratGo(w[n:], kTab, wTab, scale, dst[2*n:])
}

// ZigguratScan is ZigguratFast without the stop, for callers that merge
// the slow draws themselves (learn's addNormalStream): for every word n of
// w (len(w) a multiple of 8) it sets vals[2n], vals[2n+1] to
// float32(scale·x) of the word's two halves, rounded as ZigguratFast
// rounds them, and sets bit n%8 of slow[n/8] when either half is off the
// fast path (vals of such a word are meaningless). It reports false, doing
// nothing, when no vector path is current: the caller then uses
// ZigguratFast. It scans a whole buffer in one call: with 2.8% of draws
// off the fast path, a loop stopping at each slow word ran ≈ 2 groups per
// call and paid its set-up each time.
func ZigguratScan(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, vals []float32, slow []uint8) bool {
	if zigguratScanVector == nil || current.name != "avx512" {
		return false
	}
	if len(w)%8 != 0 || len(vals) < 2*len(w) || len(slow) < len(w)/8 {
		panic(fmt.Sprintf("gemm.ZigguratScan: len(w) = %d (want a multiple of 8), len(vals) = %d, len(slow) = %d", len(w), len(vals), len(slow)))
	}
	if len(w) > 0 {
		zigguratScanVector(w, kTab, wTab, scale, vals, slow)
	}
	return true
}

// ZigguratAddKept adds to dst, in order, the two values vals[2n],
// vals[2n+1] of every word n < words whose skip[n] is 0 (skip bytes are 0
// or 1), and returns the number of such words (dst gets 2 values per word
// and must have room) and whether every sum it stored is finite (so that
// learn needs no second pass over the noisy gradient to check it).
// Each add is the float32 dst + v, as ZigguratFast's. It is the merge step
// of learn's noise: after a ChaCha8 buffer's ZigguratScan, the slow words'
// draws are written into vals and the words they consumed as uniforms are
// marked in skip, and one call adds a whole buffer's draws (one
// Axpy per stretch between slow words cost as much as the slow draws).
// vals must hold 2·words + 16 values and skip words + 8 bytes (the vector
// kernel reads whole groups of 8 words).
func ZigguratAddKept(vals []float32, skip []uint8, words int, dst []float32) (n int, finite bool) {
	if words <= 0 {
		return 0, true
	}
	if len(vals) < 2*words+16 || len(skip) < words+8 {
		panic(fmt.Sprintf("gemm.ZigguratAddKept: len(vals) = %d, len(skip) = %d for %d words (want 2·words + 16, words + 8)", len(vals), len(skip), words))
	}
	if len(dst) < 2*words { // else there is room whatever skip says
		if kept := words - skipped(skip[:words]); len(dst) < 2*kept {
			panic(fmt.Sprintf("gemm.ZigguratAddKept: len(dst) = %d < %d", len(dst), 2*kept))
		}
	}
	if len(dst) == 0 {
		return 0, true // every word skipped (checked above)
	}
	if zigguratAddKeptVector != nil && current.name == "avx512" {
		return zigguratAddKeptVector(vals, skip, words, dst)
	}
	return zigguratAddKeptGo(vals, skip, words, dst)
}

// ZigguratWedge decides, 8 lanes at a time, the ziggurat's wedge tests
// that learn's slow path would otherwise take one by one: lane l accepts
// when y = f[l] + float64(unit·d[l]) < expNeg(float64(−0.5·x[l])·x[l]),
// with unit = float64(u[l]>>11 + 1) / 2⁵³ and learn's expNeg (its range
// reduction and Estrin polynomial) evaluated with the same operations in
// the same order, each rounded to float64 (no fused multiply-add), so the
// decisions are the scalar code's, bit for bit. c holds expNeg's constants
// as the kernel lists them (learn builds it). Bit l%8 of acc[l/8] is set
// when lane l accepts, and xs[l] = float32(x[l]) (the draw if accepted).
// len(x) must be a multiple of 8, and u, f, d, xs at least as long. It
// reports false, doing nothing, when no vector path is current (the
// caller decides the tests itself).
func ZigguratWedge(x []float64, u []uint64, f, d []float64, c *[16]float64, acc []uint8, xs []float32) bool {
	if zigguratWedgeVector == nil || current.name != "avx512" {
		return false
	}
	n := len(x)
	if n%8 != 0 || len(u) < n || len(f) < n || len(d) < n || len(acc) < n/8 || len(xs) < n {
		panic(fmt.Sprintf("gemm.ZigguratWedge: %d lanes (want a multiple of 8), len(u) = %d, len(f) = %d, len(d) = %d, len(acc) = %d, len(xs) = %d", n, len(u), len(f), len(d), len(acc), len(xs)))
	}
	if n > 0 {
		zigguratWedgeVector(x, u, f, d, c, acc, xs)
	}
	return true
}

// skipped counts the ones in s (bytes 0 or 1), eight bytes at a time.
func skipped(s []uint8) int {
	n := 0
	for len(s) >= 8 {
		n += int(binary.LittleEndian.Uint64(s) * 0x0101010101010101 >> 56)
		s = s[8:]
	}
	for _, b := range s {
		n += int(b)
	}
	return n
}

// zigguratAddKeptGo is the portable ZigguratAddKept.
func zigguratAddKeptGo(vals []float32, skip []uint8, words int, dst []float32) (int, bool) {
	k := 0
	var bad float32 // stays 0 while every sum is finite (v − v is NaN otherwise)
	for n, s := range skip[:words] {
		if s == 0 {
			a, b := dst[2*k]+vals[2*n], dst[2*k+1]+vals[2*n+1]
			dst[2*k], dst[2*k+1] = a, b
			bad += (a - a) + (b - b)
			k++
		}
	}
	return k, bad == 0
}

// zigguratGo is the portable ZigguratFast.
func zigguratGo(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int {
	for n, u := range w {
		i0, j0 := uint32(u)&0x7F, int32(uint32(u))>>7
		i1, j1 := uint32(u>>32)&0x7F, int32(uint32(u>>32))>>7
		if absInt32(j0) >= kTab[i0] || absInt32(j1) >= kTab[i1] {
			return n
		}
		x0 := float32(j0) * wTab[i0]
		x1 := float32(j1) * wTab[i1]
		dst[2*n] += float32(scale * x0)
		dst[2*n+1] += float32(scale * x1)
	}
	return len(w)
}

func absInt32(j int32) uint32 {
	m := j >> 31
	return uint32((j ^ m) - m)
}
