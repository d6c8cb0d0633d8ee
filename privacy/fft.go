package privacy

import (
	"math"
	"sync"
)

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
// len(a)+len(b)−1).
func convolve(a, b []float64) []float64 {
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
		return out
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
	return out
}

// fftWork is scratch space for one self-convolution, pooled because the
// buffers are megabytes and a calibration run makes dozens of them.
type fftWork struct {
	buf []float64
	z   []complex128
}

var fftWorkPool sync.Pool

func getWork(L int) *fftWork {
	w, _ := fftWorkPool.Get().(*fftWork)
	if w == nil {
		w = &fftWork{}
	}
	if cap(w.buf) < L {
		w.buf = make([]float64, L)
		w.z = make([]complex128, L/2+1)
	}
	w.buf, w.z = w.buf[:L], w.z[:L/2+1]
	return w
}

// selfConvolveCircular writes into out (length ≤ L) the entries
// start, start+1, … (mod L) of the T-fold circular self-convolution of p
// zero-padded to length L (a power of two ≥ len(p)): entry k holds the mass
// of all index sums ≡ k (mod L). The spectrum is raised to the T-th power in
// polar form; coefficients whose modulus^T underflows are zeroed without the
// trigonometry, which is most of them for large T.
func selfConvolveCircular(p []float64, L, T, start int, out []float64) {
	plan := getPlan(L / 2)
	w := getWork(L)
	defer fftWorkPool.Put(w)
	buf := w.buf
	copy(buf, p)
	clear(buf[len(p):])
	c := plan.realForward(buf, w.z)
	t := float64(T)
	for i, z := range c {
		re, im := real(z), imag(z)
		r2 := re*re + im*im
		if r2 == 0 {
			continue
		}
		lm := 0.5 * t * math.Log(r2)
		if lm < -745 {
			c[i] = 0
			continue
		}
		s, co := math.Sincos(t * math.Atan2(im, re))
		m := math.Exp(lm)
		c[i] = complex(m*co, m*s)
	}
	plan.realInverse(c, buf)
	inv := 1 / float64(L)
	for j := range out {
		out[j] = buf[(start+j)%L] * inv
	}
}
