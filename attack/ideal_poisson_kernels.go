package attack

import (
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/internal/chacha8"
)

// The Go forms of the Poisson game's kernels (ideal_amd64.s has the
// AVX2 + FMA forms, the same operations on four lanes at once, so the
// same bits): the ziggurat's fast path on 32-bit halves, and the scoring
// of a block with the polynomial exp.

// zigPairs is the 256-strip ziggurat (ideal_zig256.go) as the kernel
// reads it, indexed by a half's strip (its low byte): zigK[i] and
// zigW[i] as float64, exactly.
var zigPairs = sync.OnceValue(func() *[256][2]float64 {
	var t [256][2]float64
	for i := range t {
		t[i] = [2]float64{float64(zigK[i]), float64(zigW[i])}
	}
	return &t
})

// zigHalvesGo sets cand[h] = σ·(float64(j)·float64(zigW[i])) for the
// halves h < n of buf's words, i the half's low byte and j = int32(half)
// >> 8, and bit h of slow when the fast path does not take half h (|j| ≥
// zigK[i]); the other bits of the mask words it writes are 0.
func zigHalvesGo(buf *chacha8.Buffer, n int, sigma float64, cand *[poissonHalves]float64, slow *[4]uint64) {
	for k := range (n + 63) / 64 {
		slow[k] = 0
	}
	for hh := range n {
		h := uint32(buf[hh>>1] >> (32 * (hh & 1)))
		i := h & 0xFF
		j := int32(h) >> 8
		cand[hh] = sigma * (float64(j) * float64(zigW[i]))
		if absInt32(j) >= zigK[i] {
			slow[hh>>6] |= 1 << (hh & 63)
		}
	}
}

// The exp's constants: e^z = 2^k·e^r with k = round(z/ln 2) (rounded by
// adding 1.5·2⁵² in one fused operation), r = z − k·ln 2 in two fused
// steps (ln 2 = poissonLn2Hi + poissonLn2Lo), e^r by its Taylor
// polynomial of degree 12 in Horner's form. (A table of 2^(m/64) and a
// polynomial of degree 5 take half the multiply-adds, but the vector
// kernel's gathers from the table made it 1.8 times slower on AMD Zen 3.)
const (
	poissonRound = 0x1.8p52
	poissonLn2Hi = math.Ln2
	poissonLn2Lo = 2.3190468138462996e-17 // ln 2 − poissonLn2Hi
)

// poissonTaylor are 1/k! for k = 0…12.
var poissonTaylor = [13]float64{
	1, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
	1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600,
}

// expPoly is e^z for z ∈ [−700, 30] within about 3 units in the last
// place (3.03 the largest on 10⁵ random points against a 40-digit
// reference; TestExpPoly bounds it by 4 against math.Exp): |r| ≤ ln 2/2
// + 1e-16, where the Taylor remainder r¹³/13! is 2.4e-16 of e^r at most.
// It is math.Exp's accuracy at a fraction of its cost in the vector
// kernel (no division, no squarings), with the same bits there and here:
// every step is one rounded or fused operation.
func expPoly(z float64) float64 {
	kd := math.FMA(z, math.Log2E, poissonRound)
	k := kd - poissonRound
	r := math.FMA(k, -poissonLn2Hi, z)
	r = math.FMA(k, -poissonLn2Lo, r)
	p := poissonTaylor[12]
	for i := 11; i >= 0; i-- {
		p = math.FMA(p, r, poissonTaylor[i])
	}
	return math.Float64frombits(math.Float64bits(p) + math.Float64bits(kd)<<52)
}

// poissonScoreGo is poissonScore one step at a time: step 4g + l of the
// block in residue l + 4(g mod 2) (the block starts at a multiple of 8
// steps), the exps of every step, the products' exponents moved out every
// 8 groups and after the last.
func poissonScoreGo(ys []float64, st *poissonState) {
	groups := len(ys) / 4
	for g := range groups {
		for l := range 4 {
			r := l + 4*(g&1)
			y := ys[4*g+l]
			st.p[r] += y
			d := y - 1
			st.w[r] = math.FMA(-(d * st.c[l]), d, st.w[r])
			z := math.FMA(y, st.c2[l], st.nc[l])
			st.zmin[l], st.zmax[l] = math.Min(st.zmin[l], z), math.Max(st.zmax[l], z)
			st.m[r] *= math.FMA(st.q[l], expPoly(z), st.omq[l])
		}
		if g%8 == 7 || g == groups-1 {
			for r := range st.m {
				st.m[r], st.e[r] = renormalize(st.m[r], st.e[r])
			}
		}
	}
}

// poissonSumsGo is poissonSums one step at a time.
func poissonSumsGo(ys []float64, st *poissonState) {
	for k, y := range ys {
		r := k & 7
		st.p[r] += y
		d := y - 1
		st.w[r] = math.FMA(-(d * st.c[0]), d, st.w[r])
	}
}
