package attack

import "math"

// The ziggurat's slow path's helpers (ideal_poisson.go's normal).

func absInt32(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}

// wedgeBelow64 is the ziggurat's wedge test lhs < expPoly(v) for v ∈ [−7,
// 0]. expPoly's chain of dependent operations is long and nothing
// overlaps it here (the branch waits for it), so the test first brackets
// e^v with expApprox, a chain about a third as long, and calls expPoly
// only when lhs falls inside the bracket, 10⁻⁵ of e^v wide;
// expPoly is within 3 units in the last place of e^v, far inside the
// bracket, so the bracket decides as expPoly would (TestWedgeBelow64).
func wedgeBelow64(lhs, v float64) bool {
	e := expApprox(v)
	if lhs < e*(1-expApproxErr) {
		return true
	}
	if lhs >= e*(1+expApproxErr) {
		return false
	}
	return lhs < expPoly(v)
}

// expApproxErr bounds |expApprox(v)/e^v − 1| on [−20, 0] with a wide
// margin: the Taylor remainder of degree 6 at |r| ≤ 0.35 is below
// 0.35⁷/7!·e^0.35 ≈ 1.8e-7 (relative to e^r ≥ e^−0.35, below 2.6e-7),
// the roundings below 1e-14 (TestExpApproxBracket checks a tenth of the
// bound on a dense grid). A wider bracket would call expPoly more often:
// lhs falls inside it with a probability of about its relative width over
// the wedge's.
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
