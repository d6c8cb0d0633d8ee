package attack

import (
	"math/rand/v2"
	"sync"
)

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
