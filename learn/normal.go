package learn

import (
	"math"
	"math/rand/v2"
)

// Standard normal draws by the Marsaglia–Tsang ziggurat (J. Stat. Softw.
// 5(8), 2000) with 128 layers, in a float32 variant: each draw uses 32
// random bits — bits 0–6 pick the layer, bits 7–31 form a signed 25-bit
// abscissa j (24 bits of magnitude, float32's precision) — so one 64-bit
// word gives two draws on the fast path (≈98.8% of draws). The layer and
// abscissa bits are disjoint, unlike the classic 32-bit version where the
// layer index reuses j's low bits. The rejection steps make the output the
// normal law up to float32 rounding (TestNormalDraws).

const zigR = 3.442619855899 // start of the right tail

var (
	zigK [128]uint32  // accept when |j| < zigK[i]
	zigW [128]float32 // abscissa = j·zigW[i]
	zigF [128]float64 // density exp(−x²/2) at the layer edges
	zigD [128]float64 // zigF[i−1] − zigF[i], the wedge test's height (0 for i = 0)
)

func init() {
	const m = 1 << 24 // scale of the 24-bit magnitude
	const v = 9.91256303526217e-3
	dn, tn := zigR, zigR
	q := v / math.Exp(-0.5*dn*dn)
	zigK[0] = uint32(dn / q * m)
	zigK[1] = 0
	zigW[0] = float32(q / m)
	zigW[127] = float32(dn / m)
	zigF[0] = 1
	zigF[127] = math.Exp(-0.5 * dn * dn)
	for i := 126; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(v/dn+math.Exp(-0.5*dn*dn)))
		zigK[i+1] = uint32(dn / tn * m)
		tn = dn
		zigF[i] = math.Exp(-0.5 * dn * dn)
		zigW[i] = float32(dn / m)
	}
	for i := 1; i < 128; i++ {
		zigD[i] = zigF[i-1] - zigF[i]
	}
}

// addNormal adds scale·N(0, 1) draws to every element of dst and reports
// whether every result is finite (one vectorised pass afterwards, cheaper
// than a check per draw). The fast path is spelled out twice, for the low
// and the high half of each word, so that it inlines.
func addNormal(src *rand.ChaCha8, dst []float32, scale float32) bool {
	k := 0
	for ; k+2 <= len(dst); k += 2 {
		u := src.Uint64()
		i0, j0 := uint32(u)&0x7F, int32(uint32(u))>>7
		i1, j1 := uint32(u>>32)&0x7F, int32(uint32(u>>32))>>7
		var x0, x1 float32
		if absInt32(j0) < zigK[i0] {
			x0 = float32(j0) * zigW[i0]
		} else {
			x0 = normalSlow(src, j0, i0)
		}
		if absInt32(j1) < zigK[i1] {
			x1 = float32(j1) * zigW[i1]
		} else {
			x1 = normalSlow(src, j1, i1)
		}
		a, b := dst[k]+float32(scale*x0), dst[k+1]+float32(scale*x1) // no FMA: same bits everywhere
		dst[k], dst[k+1] = a, b
	}
	if k < len(dst) {
		w := uint32(src.Uint64())
		i, j := w&0x7F, int32(w)>>7
		x := float32(j) * zigW[i]
		if absInt32(j) >= zigK[i] {
			x = normalSlow(src, j, i)
		}
		dst[k] += float32(scale * x)
	}
	ok, _ := allFinite(dst)
	return ok
}

// wordSource is where the ziggurat's random words come from: a bare
// ChaCha8 stream or a buffered one (wordStream) — the same words in the same
// order either way.
type wordSource interface{ Uint64() uint64 }

// normalSlow finishes a draw that fell outside layer i's inner rectangle.
func normalSlow[S wordSource](src S, j int32, i uint32) float32 {
	for {
		x := float64(j) * float64(zigW[i])
		if i == 0 {
			// Base layer: sample the tail beyond zigR (Marsaglia 1964).
			for {
				x = -math.Log(unit64(src)) / zigR
				y := -math.Log(unit64(src))
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return float32(zigR + x)
			}
			return float32(-zigR - x)
		}
		if zigF[i]+float64(unit64(src)*(zigF[i-1]-zigF[i])) < expNeg(float64(-0.5*x)*x) {
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

// unit64 returns a uniform draw from (0, 1], safe for logarithms.
func unit64[S wordSource](src S) float64 {
	return float64(src.Uint64()>>11+1) / (1 << 53)
}

func absInt32(j int32) uint32 {
	m := j >> 31
	return uint32((j ^ m) - m)
}

// expNeg returns e^t for t ∈ [−6, 0] (the wedge tests above: t = −x²/2,
// |x| ≤ zigR) to a relative error below 1e−12, about three times faster
// than math.Exp, which dominated the slow path (2.8 % of draws: every draw
// of the top layer and the wedges of the others). t·log₂e is split into an
// integer n and a fraction f ∈ [−½, ½]; 2^f = e^(f·ln 2) comes from its
// degree-10 Taylor polynomial (truncation < 3e−13), evaluated by Estrin's
// scheme (a dependency chain of 4 multiply-adds instead of Horner's 10),
// and 2^n goes into the exponent bits. float64(…) around the products
// forbids FMA fusion: the same bits on every platform, as for exp32.
func expNeg(t float64) float64 {
	v := float64(t * math.Log2E)
	n := math.Floor(v + 0.5)
	u := float64((v - n) * math.Ln2)
	u2 := u * u
	u4 := u2 * u2
	q0 := 1 + u
	q1 := 1.0/2 + float64(u*(1.0/6))
	q2 := 1.0/24 + float64(u*(1.0/120))
	q3 := 1.0/720 + float64(u*(1.0/5040))
	q4 := 1.0/40320 + float64(u*(1.0/362880))
	r0 := q0 + float64(u2*q1)
	r1 := q2 + float64(u2*q3)
	r2 := q4 + float64(u2*(1.0/3628800))
	p := r0 + float64(u4*(r1+float64(u4*r2)))
	return p * math.Float64frombits(uint64(int64(n)+1023)<<52)
}
