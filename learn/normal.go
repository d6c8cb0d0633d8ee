package learn

import (
	"math"
	"math/rand/v2"
)

// Standard normal draws by the Marsaglia–Tsang ziggurat (J. Stat. Softw.
// 5(8), 2000) with 128 layers — the algorithm of math/rand/v2's NormFloat64,
// but reading a concrete *rand.ChaCha8 (no interface call per draw) and
// returning float32. Each draw consumes one 64-bit word on the fast path
// (≈98.8% of draws): the low 32 bits give the signed abscissa, bits 32–38
// the layer. The rejection steps make the output exactly the normal law up
// to float rounding.

const zigR = 3.442619855899 // start of the right tail

var (
	zigK [128]uint32  // acceptance thresholds on |j|
	zigW [128]float32 // j·zigW[i] is the abscissa
	zigF [128]float64 // density at the layer edges
)

func init() {
	const m1 = 1 << 31
	const v = 9.91256303526217e-3
	dn, tn := zigR, zigR
	q := v / math.Exp(-0.5*dn*dn)
	zigK[0] = uint32(dn / q * m1)
	zigK[1] = 0
	zigW[0] = float32(q / m1)
	zigW[127] = float32(dn / m1)
	zigF[0] = 1
	zigF[127] = math.Exp(-0.5 * dn * dn)
	for i := 126; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(v/dn+math.Exp(-0.5*dn*dn)))
		zigK[i+1] = uint32(dn / tn * m1)
		tn = dn
		zigF[i] = math.Exp(-0.5 * dn * dn)
		zigW[i] = float32(dn / m1)
	}
}

// addNormal adds scale·N(0, 1) draws to every element of dst.
func addNormal(src *rand.ChaCha8, dst []float32, scale float32) {
	for k := range dst {
		u := src.Uint64()
		j := int32(u)
		i := (u >> 32) & 0x7F
		x := float32(j) * zigW[i]
		if absInt32(j) >= zigK[i] {
			x = normalSlow(src, j, i)
		}
		dst[k] += scale * x
	}
}

// normal32 returns one N(0, 1) draw.
func normal32(src *rand.ChaCha8) float32 {
	u := src.Uint64()
	j := int32(u)
	i := (u >> 32) & 0x7F
	if absInt32(j) < zigK[i] {
		return float32(j) * zigW[i]
	}
	return normalSlow(src, j, i)
}

// normalSlow finishes a draw that fell outside layer i's inner rectangle.
func normalSlow(src *rand.ChaCha8, j int32, i uint64) float32 {
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
		if zigF[i]+unit64(src)*(zigF[i-1]-zigF[i]) < math.Exp(-0.5*x*x) {
			return float32(x)
		}
		u := src.Uint64()
		j = int32(u)
		i = (u >> 32) & 0x7F
		if absInt32(j) < zigK[i] {
			return float32(j) * zigW[i]
		}
	}
}

// unit64 returns a uniform draw from (0, 1], safe for logarithms.
func unit64(src *rand.ChaCha8) float64 {
	return float64(src.Uint64()>>11+1) / (1 << 53)
}

func absInt32(j int32) uint32 {
	m := j >> 31
	return uint32((j ^ m) - m)
}
