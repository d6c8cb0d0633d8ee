package attack

import (
	"math"
	"math/rand/v2"
	"sync"
)

// zigguratTables are math/rand/v2's ziggurat tables for NormFloat64's fast
// path: a draw u with j = int32(u), i = u>>32 & 0x7F returns
// float64(j)·float64(wn[i]) when |j| < kn[i]. knwn[i] is
// kn[i] | bits(wn[i])<<32, both in one word for the vector kernel's
// loads.
type zigguratTables struct {
	kn   [128]uint32
	wn   [128]float32
	knwn [128]uint64
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
		z.knwn[i] = uint64(z.kn[i]) | uint64(math.Float32bits(z.wn[i]))<<32
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

// wedgeBelow is the wedge test lhs < float32(math.Exp(v)) for v ≤ 0.
// math.Exp is a chain of some 70 cycles of dependent operations that
// nothing overlaps here (the branch waits for it), so the test first
// brackets e^v with expApprox, a chain about a third as long, and calls
// math.Exp only when lhs falls inside the bracket (3 wedge tests in 10⁴
// in the benchmark's audit). Rounding to
// float32 is monotone, so a bracket [a, b] ∋ math.Exp(v) decides
// exactly: float32(a) > lhs implies float32(math.Exp(v)) > lhs, and
// float32(b) ≤ lhs the contrary.
func wedgeBelow(lhs float32, v float64) bool {
	if v >= -20 {
		e := expApprox(v)
		if lhs < float32(e*(1-expApproxErr)) {
			return true
		}
		if lhs >= float32(e*(1+expApproxErr)) {
			return false
		}
	}
	return lhs < float32(math.Exp(v))
}

// expApproxErr bounds |expApprox(v)/math.Exp(v) − 1| on [−20, 0] with a
// wide margin: the Taylor remainder of degree 6 at |r| ≤ 0.35 is below
// 0.35⁷/7!·e^0.35 ≈ 1.8e-7 (relative to e^r ≥ e^−0.35, below 2.6e-7),
// the roundings below 1e-14 (TestExpApproxBracket checks a tenth of the
// bound on a dense grid). A wider bracket would call math.Exp more
// often: it falls inside it with a probability of about its relative
// width over the wedge's.
const expApproxErr = 5e-6

// expApprox is e^v for v ∈ [−20, 0] to about 3e-7: v = k·ln 2 + r with
// |r| ≤ 0.35, e^r by its Taylor polynomial of degree 6 in Estrin's form
// (three dependent fused multiply-adds after r², r⁴ instead of six
// multiplications and additions in turn), 2^k exactly.
func expApprox(v float64) float64 {
	ki := int64(v*math.Log2E - 0.5) // rounds v/ln 2, to within 0.5 + 1e-15
	r := math.FMA(-float64(ki), math.Ln2, v)
	r2 := r * r
	r4 := r2 * r2
	lo := math.FMA(r2, math.FMA(r, 1.0/6, 0.5), r+1)
	hi := math.FMA(r2, 1.0/720, math.FMA(r, 1.0/120, 1.0/24))
	return math.FMA(r4, hi, lo) * math.Float64frombits(uint64(1023+ki)<<52)
}

// zigguratR is the start of the base strip's tail and zigguratFn the
// density at each strip's edge, copied from math/rand/v2
// ($GOROOT/src/math/rand/v2/normal.go, BSD licence: The Go Authors),
// whose slow path needs them; TestIdealNormalSlowPath checks the copy
// against NormFloat64 in every strip.
const zigguratR = 3.442619855899

var zigguratFn = [128]float32{
	1, 0.9635997, 0.9362827, 0.9130436, 0.89228165, 0.87324303,
	0.8555006, 0.8387836, 0.8229072, 0.8077383, 0.793177,
	0.7791461, 0.7655842, 0.7524416, 0.73967725, 0.7272569,
	0.7151515, 0.7033361, 0.69178915, 0.68049186, 0.6694277,
	0.658582, 0.6479418, 0.63749546, 0.6272325, 0.6171434,
	0.6072195, 0.5974532, 0.58783704, 0.5783647, 0.56903,
	0.5598274, 0.5507518, 0.54179835, 0.5329627, 0.52424055,
	0.5156282, 0.50712204, 0.49871865, 0.49041483, 0.48220766,
	0.4740943, 0.46607214, 0.4581387, 0.45029163, 0.44252872,
	0.43484783, 0.427247, 0.41972435, 0.41227803, 0.40490642,
	0.39760786, 0.3903808, 0.3832238, 0.37613547, 0.36911446,
	0.3621595, 0.35526937, 0.34844297, 0.34167916, 0.33497685,
	0.3283351, 0.3217529, 0.3152294, 0.30876362, 0.30235484,
	0.29600215, 0.28970486, 0.2834622, 0.2772735, 0.27113807,
	0.2650553, 0.25902456, 0.2530453, 0.24711695, 0.241239,
	0.23541094, 0.22963232, 0.2239027, 0.21822165, 0.21258877,
	0.20700371, 0.20146611, 0.19597565, 0.19053204, 0.18513499,
	0.17978427, 0.17447963, 0.1692209, 0.16400786, 0.15884037,
	0.15371831, 0.14864157, 0.14361008, 0.13862377, 0.13368265,
	0.12878671, 0.12393598, 0.119130544, 0.11437051, 0.10965602,
	0.104987256, 0.10036444, 0.095787846, 0.0912578, 0.08677467,
	0.0823389, 0.077950984, 0.073611505, 0.06932112, 0.06508058,
	0.06089077, 0.056752663, 0.0526674, 0.048636295, 0.044660863,
	0.040742867, 0.03688439, 0.033087887, 0.029356318,
	0.025693292, 0.022103304, 0.018592102, 0.015167298,
	0.011839478, 0.008624485, 0.005548995, 0.0026696292,
}
