package privacy

import "math"

// FFT-based convolution for PMF composition, on the transforms of
// fft_plan.go.

// fftLen returns the real transform length used for n points: the smallest
// of 2^b, 3·2^b, 5·2^b (b ≥ 3) that is ≥ n.
func fftLen(n int) int {
	best := math.MaxInt
	for _, r := range [...]int{1, 3, 5} {
		l := 8 * r
		for l < n {
			l <<= 1
		}
		best = min(best, l)
	}
	return best
}

// directConvolveMax: below this product of lengths the O(n·m) loop beats
// two forward transforms and an inverse (and is exact).
const directConvolveMax = 1 << 15

// convolve returns the full linear convolution of a and b (length
// len(a)+len(b)−1), and a bound on the absolute error of each entry: 0 for
// the direct sum of non-negative products (its relative error, n·u, is far
// below anything that matters), 4·fftUnitError(L)·‖a‖₁‖b‖₁ for the FFT (the
// forward errors of both spectra times the other's modulus, the product's
// rounding, and the inverse transform's own error on ‖ca·cb‖₁/L ≤ ‖a‖₁‖b‖₁).
func convolve(a, b []float64) ([]float64, float64) {
	n := len(a) + len(b) - 1
	out := make([]float64, n)
	if len(a)*len(b) <= directConvolveMax {
		for i, x := range a {
			if x == 0 {
				continue
			}
			o := out[i : i+len(b)]
			for j, y := range b {
				o[j] += x * y
			}
		}
		return out, 0
	}
	L := fftLen(n)
	p := getPlan(L / 2)
	buf := make([]float64, L)
	copy(buf, a)
	ca := p.realForward(buf, make([]complex128, L/2+1))
	clear(buf)
	copy(buf, b)
	cb := p.realForward(buf, make([]complex128, L/2+1))
	for i := range ca {
		ca[i] *= cb[i]
	}
	p.realInverse(ca, buf)
	inv := 1 / float64(L)
	for i := range out {
		out[i] = buf[i] * inv
	}
	var na, nb float64
	for _, x := range a {
		na += math.Abs(x)
	}
	for _, x := range b {
		nb += math.Abs(x)
	}
	return out, 4 * fftUnitError(L) * na * nb
}

// selfConvolveCircular writes into out (length ≤ L) the entries
// start, start+1, … (mod L) of the T-fold circular self-convolution of p
// zero-padded to length L (a power of two ≥ len(p)): entry k holds the mass
// of all index sums ≡ k (mod L). The spectrum is raised to the T-th power in
// polar form; coefficients whose modulus^T underflows are zeroed without the
// trigonometry, which is most of them for large T.
//
// It returns η, a bound on the absolute floating-point error of every
// entry of out (see fftErrorBound for how it is formed).
func selfConvolveCircular(p []float64, L, T, start int, out []float64) float64 {
	plan := getPlan(L / 2)
	z := plan.scratch()
	defer plan.putScratch(z)
	norm1 := 0.0
	for _, x := range p {
		norm1 += math.Abs(x)
	}
	a := fftUnitError(L) * norm1 // componentwise error of each forward coefficient
	c := plan.realForwardPadded(p, z)
	t := float64(T)
	var errSum, absSum float64 // Σ over the full spectrum of the power's error bound, and of |Z|
	negligible := negligiblePower(a, t)
	for i, z := range c {
		re, im := real(z), imag(z)
		r2 := re*re + im*im
		if r2 < negligible {
			c[i] = 0 // what the code below gives, without its two logs
			continue
		}
		weight := 2.0 // each coefficient but DC and Nyquist stands for a conjugate pair
		if i == 0 || i == len(c)-1 {
			weight = 1
		}
		if r2 == 0 {
			errSum += weight * powerErrorBound(math.Log(a), 0, a, t)
			continue
		}
		logAbs := 0.5 * math.Log(r2)
		errSum += weight * powerErrorBound(logAbs, math.Sqrt(r2), a, t)
		lm := t * logAbs
		if lm < -745 {
			c[i] = 0
			continue
		}
		s, co := math.Sincos(t * math.Atan2(im, re))
		m := math.Exp(lm)
		absSum += weight * m
		c[i] = complex(m*co, m*s)
	}
	inv := 1 / float64(L)
	plan.realInverseWindow(c, out, start, inv)
	// Inverse transform: the propagated error of the spectrum plus the
	// transform's own rounding, relative to the ℓ1 norm of its input; the
	// final scaling by 1/L is exact (L is a power of two times 1, 3 or 5,
	// and 1/L is rounded once: one more unit of relative error, covered by
	// the factor 2 in fftUnitError).
	return (errSum + fftUnitError(L)*(absSum+errSum)) * inv
}

// negligiblePower returns a squared modulus below which a coefficient's
// T-th power and its error bound (powerErrorBound) both underflow to 0, so
// selfConvolveCircular may zero it without computing either (0: no such
// shortcut; only T > 128 has one). With |ẑ| < s = 10⁻³, the bound's log m
// is at most log max(s, a) + 1; above s it is at most log|ẑ| + a/s. Both
// are checked against −750 instead of −745 so that the rounding of the
// logs (about 10⁻¹⁰ at T = 10⁶) cannot move a coefficient across. At
// T = 10⁶ nearly every coefficient is below it, and the loop's two logs
// per coefficient were a tenth of the composition.
func negligiblePower(a, t float64) float64 {
	const s = 1e-3
	if !(a > 0) || (t-1)*(math.Log(math.Max(s, a))+1) >= -750 || t*math.Log(s) >= -750 {
		return 0
	}
	return math.Exp(2 * (-750/(t-1) - a/s))
}

// fftUnitError is the componentwise relative error bound of one transform
// of length L: each output of a radix-2 FFT is a sum of inputs times
// twiddles formed along a tree of log₂L butterfly levels, and every level
// adds at most η·(Σ|inputs|) with η = μ + γ₄(√2 + μ) ≈ 7u for twiddles
// accurate to μ ≈ u (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §24.1, stated there in 2-norm; the same argument
// level by level gives the componentwise form |ŷ_k − y_k| ≤ log₂L·η·‖x‖₁).
// We take 16u per level and four extra levels for the real-transform
// split pass, the radix-3/5 pass and the scaling: a factor 2 of safety.
func fftUnitError(L int) float64 {
	return 16 * (math.Log2(float64(L)) + 4) * 0x1p-53
}

// powerErrorBound bounds |ẑ^T − z^T| (including the rounding of the polar
// power: log, atan2, exp and sincos of arguments up to T·π, each a few
// units relative, times T) for a coefficient computed as ẑ with
// |ẑ − z| ≤ a: with m = |ẑ| + a ≥ max(|z|, |ẑ|),
//
//	|ẑ^T − z^T| ≤ T·a·m^{T−1},  rounding ≤ 16·T·u·m^T.
//
// log m ≤ log max(|ẑ|, a) + min/max, so no log of a sum is needed (the
// caller passes log|ẑ|, which it needs anyway), and the (vast) majority of
// coefficients, whose m^{T−1} underflows, cost one comparison.
func powerErrorBound(logAbs, absZ, a, t float64) float64 {
	logM := logAbs + a/absZ // log(|ẑ| + a) ≤ log|ẑ| + a/|ẑ|
	if absZ < a {
		logM = math.Log(a) + absZ/a
	}
	e := (t - 1) * logM
	if e < -745 || a == 0 && absZ == 0 {
		return 0
	}
	mt1 := math.Exp(e)
	return t*a*mt1 + 16*t*0x1p-53*mt1*math.Exp(logM)
}
