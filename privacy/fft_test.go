package privacy

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
	"gonum.org/v1/gonum/dsp/fourier"
)

func TestFFTAgainstGonum(t *testing.T) {
	// The hand-written real FFT must reproduce gonum's dsp/fourier (an
	// FFTPACK port) coefficient by coefficient, for power-of-two and
	// radix-3/5 lengths, and invert back (rounding: 1e-15 relative to the
	// largest coefficient, which is ~n/2 here).
	r := rng.New(3, "fft")
	for _, n := range []int{8, 16, 24, 40, 64, 96, 160, 1024, 1536, 2560, 1 << 14} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.Float64()
		}
		want := fourier.NewFFT(n).Coefficients(nil, x)
		got := getPlan(n/2).realForward(append([]float64(nil), x...), make([]complex128, n/2+1))
		for k := range want {
			if cmplx.Abs(want[k]-got[k]) > 1e-15*float64(n) {
				t.Fatalf("n=%d k=%d: %v, gonum %v", n, k, got[k], want[k])
			}
		}
		back := make([]float64, n)
		getPlan(n/2).realInverse(got, back)
		for i := range x {
			near(t, "inverse", back[i]/float64(n), x[i], 1e-14)
		}
	}
}

func TestFFTLen(t *testing.T) {
	for _, c := range [][2]int{{1, 8}, {9, 16}, {17, 24}, {25, 32}, {33, 40}, {100, 128}, {150, 160}, {170, 192}, {279117, 327680}, {98599, 131072}} {
		if got := fftLen(c[0]); got != c[1] {
			t.Errorf("fftLen(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// BenchmarkFFT compares the package's real FFT with gonum's dsp/fourier at
// the size of the MNIST PLD composition (2^17): this is the measurement
// behind writing our own (see fft_radix2.go).
func BenchmarkFFT(b *testing.B) {
	n := 1 << 17
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i))
	}
	b.Run("own", func(b *testing.B) {
		p := getPlan(n / 2)
		z := make([]complex128, n/2+1)
		buf := make([]float64, n)
		benchCPU(b, func() {
			copy(buf, x)
			p.realForward(buf, z)
		})
	})
	b.Run("gonum", func(b *testing.B) {
		f := fourier.NewFFT(n)
		z := make([]complex128, n/2+1)
		benchCPU(b, func() { f.Coefficients(z, x) })
	})
}

// TestGatherBitReversed: the tiled gathers of transformMixed, one j at a
// time and all r at once (on one and on three workers), put every value
// where the plain loop y[rev[i]] = x[i·r+j] puts it, for lengths below and
// above the tiles' minimum and both radices.
func TestGatherBitReversed(t *testing.T) {
	for _, n := range []int{8, 64, 512, 1 << 10, 1 << 12, 1 << 15} {
		rev := newPlan(n).rev
		for _, r := range []int{3, 5} {
			x := make([]complex128, n*r)
			for i := range x {
				x[i] = complex(float64(i), -float64(i))
			}
			all := make([]complex128, n*r)
			for j := 0; j < r; j++ {
				want, got := make([]complex128, n), make([]complex128, n)
				for i, ri := range rev[:n] {
					want[ri] = x[i*r+j]
				}
				copy(all[j*n:], want)
				gatherBitReversed(got, x, r, j, rev)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("n=%d r=%d j=%d: y[%d] = %v, want %v", n, r, j, i, got[i], want[i])
					}
				}
			}
			for _, workers := range []int{1, 3} {
				got := make([]complex128, n*r)
				gatherAllBitReversed(got, x, r, rev, workers)
				for i := range all {
					if got[i] != all[i] {
						t.Fatalf("all at once, n=%d r=%d, %d workers: y[%d] = %v, want %v", n, r, workers, i, got[i], all[i])
					}
				}
			}
		}
	}
}

// BenchmarkGatherBitReversed: transformMixed's gather at the size of the
// PLD composition at T = 10⁶ (five sub-transforms of 2^19 points), as the
// plain loop and as gatherBitReversed's tiles.
//
//	GOMAXPROCS=1 go test -run '^$' -bench GatherBitReversed ./privacy/
func BenchmarkGatherBitReversed(b *testing.B) {
	n, r := 1<<19, 5
	rev := newPlan(n).rev
	x := make([]complex128, n*r)
	y := make([]complex128, n*r)
	b.Run("plain", func(b *testing.B) {
		benchCPU(b, func() {
			for j := 0; j < r; j++ {
				yj := y[j*n : (j+1)*n]
				for i, ri := range rev[:n] {
					yj[ri] = x[i*r+j]
				}
			}
		})
	})
	b.Run("tiled", func(b *testing.B) {
		benchCPU(b, func() {
			for j := 0; j < r; j++ {
				gatherBitReversed(y[j*n:(j+1)*n], x, r, j, rev)
			}
		})
	})
}

// TestFFTPaddedAndWindowBits: the padded forward transform (which a
// mixed-radix plan scatters straight into its sub-transforms) gives
// realForward's bits on the zero-padded copy, and the windowed inverse
// gives realInverse's bits times the scale at every index of windows that
// start at even and odd points, wrap around the end and are of odd and
// even lengths.
func TestFFTPaddedAndWindowBits(t *testing.T) {
	r := rng.New(5, "fft-window")
	for _, n := range []int{16, 24, 40, 1 << 12, 3 << 11, 5 << 11, 3 << 14, 5 << 17} {
		for _, used := range []int{1, 7, n / 8, n/2 + 1, n} {
			x := make([]float64, n)
			for i := range x[:used] {
				x[i] = r.Float64()
			}
			p := getPlan(n / 2)
			want := p.realForward(append([]float64(nil), x...), make([]complex128, n/2+1))
			got := p.realForwardPadded(x[:used], make([]complex128, n/2+1))
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("n=%d, %d points: coefficient %d = %v, unpadded %v", n, used, k, got[k], want[k])
				}
			}
			full := make([]float64, n)
			p.realInverse(append([]complex128(nil), want...), full)
			const scale = 0.3
			for _, w := range [][2]int{{0, n}, {1, n - 1}, {3, 6}, {n - 3, 7}, {n - 2, 5}, {n/2 + 1, n}} {
				out := make([]float64, w[1])
				p.realInverseWindow(append([]complex128(nil), want...), out, w[0], scale)
				for j, v := range out {
					if e := full[(w[0]+j)%n] * scale; math.Float64bits(v) != math.Float64bits(e) {
						t.Fatalf("n=%d window %v: out[%d] = %v, want %v", n, w, j, v, e)
					}
				}
			}
		}
	}
}

// TestMixedTwiddlesBits: every twiddle of a mixed-radix plan's radix-r
// pass, part of them copied from the real-transform table, is the double
// the formula e^{−2πi·j·k1/m} gives, and so is every entry of that table.
func TestMixedTwiddlesBits(t *testing.T) {
	for _, m := range []int{12, 20, 3 << 10, 5 << 10, 5 << 14} {
		p := newPlan(m)
		n2 := m / p.radix
		for j := 1; j < p.radix; j++ {
			for k1 := 0; k1 < n2; k1++ {
				s, c := math.Sincos(-2 * math.Pi * float64(j*k1) / float64(m))
				if got := p.rtwR[(j-1)*n2+k1]; got != complex(c, s) {
					t.Fatalf("m=%d j=%d k1=%d: %v, formula %v", m, j, k1, got, complex(c, s))
				}
			}
		}
		for k, w := range p.realTwiddles() {
			s, c := math.Sincos(-math.Pi * float64(k) / float64(m))
			if w != complex(c, s) {
				t.Fatalf("m=%d: rtw[%d] = %v, formula %v", m, k, w, complex(c, s))
			}
		}
	}
}

// TestClearParallel: clearParallel zeroes every element of its slice, in
// whole chunks and a short last one, and nothing past it, on one worker
// and on all cores.
func TestClearParallel(t *testing.T) {
	for _, p := range []*fftPlan{{m: 1 << 10}, {m: parallelFFT}} {
		clearParallelCases(t, p)
	}
}

func clearParallelCases(t *testing.T, p *fftPlan) {
	for _, n := range []int{0, 1, clearChunk - 1, clearChunk, 3*clearChunk + 5} {
		buf := make([]complex128, n+3)
		for i := range buf {
			buf[i] = complex(float64(i+1), -1)
		}
		p.clearParallel(buf[:n])
		for i, v := range buf {
			if want := complex(float64(i+1), -1); i >= n && v != want || i < n && v != 0 {
				t.Fatalf("m = %d, n = %d: element %d is %v after the clear", p.m, n, i, v)
			}
		}
	}
}
