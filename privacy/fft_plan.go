package privacy

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// A hand-written FFT for lengths r·2^k, r ∈ {1, 3, 5}. Why not gonum's
// dsp/fourier: its FFTPACK port took 4–8 ms of CPU for a real transform of
// 2^17 points on the project's machine, against 1.3 ms here (BenchmarkFFT
// compares the two), and the PLD accountant does four such transforms per
// call. The core is iterative radix-2/radix-4 decimation in time with
// per-stage contiguous twiddles; radix 3 and 5 are one extra pass on top,
// which keeps the zero padding of a composed PMF below ~33% instead of up to
// 100%. A real transform of length 2m is a complex one of length m plus a
// split pass.

// fftPlan holds the twiddle factors for complex transforms of length
// m = r·2^k and for the real transform of length 2m built on it.
type fftPlan struct {
	m   int
	tw  []complex128 // stage twiddles: tw[span+k] = e^{−πik/span}, k < span, span = 4, 8, …, m/2
	rtw []complex128 // rtw[k] = e^{−2πik/(2m)}, k ≤ m/2 (real-transform post-processing; see realTwiddles)
	rev []uint32     // bit-reversal permutation

	// For m = r·2^k with r > 1: the power-of-two plan of length 2^k, and the
	// twiddles e^{−2πi·j·k1/m} of the final radix-r pass (index (j−1)·2^k + k1).
	radix int
	sub   *fftPlan
	rtwR  []complex128

	rtwOnce sync.Once

	// spare holds scratch buffers of m+1 points for a plan above
	// maxCachedPlan (see scratch).
	spareMu sync.Mutex
	spare   [][]complex128
}

// smallScratch holds the scratch buffers of plans up to maxCachedPlan.
var smallScratch sync.Pool

// maxSpare is how many scratch buffers a large plan keeps: a
// self-composition uses two at once (the spectrum and the mixed-radix
// sub-transforms).
const maxSpare = 2

// scratch returns a buffer of p.m+1 points, its contents undefined. A
// large plan keeps the buffers returned to it for as long as it is cached
// (at most largePlanSlots plans): in a sync.Pool every garbage collection
// drops them, and an ε(δ) at T = 10⁶ ran four collections among its six
// transforms and allocated five 20 MB buffers where two suffice — 60 MB
// more of fresh pages for the kernel to hand out, a sixth of the process's
// peak. Small plans' buffers stay in a sync.Pool, so that the permanent
// cache of small plans holds no scratch.
func (p *fftPlan) scratch() []complex128 {
	n := p.m + 1
	if p.m <= maxCachedPlan {
		if b, _ := smallScratch.Get().(*[]complex128); b != nil && cap(*b) >= n {
			return (*b)[:n]
		}
		return make([]complex128, n)
	}
	p.spareMu.Lock()
	defer p.spareMu.Unlock()
	if k := len(p.spare); k > 0 {
		b := p.spare[k-1]
		p.spare = p.spare[:k-1]
		return b
	}
	return make([]complex128, n)
}

// putScratch returns a buffer from p.scratch.
func (p *fftPlan) putScratch(b []complex128) {
	if p.m <= maxCachedPlan {
		smallScratch.Put(&b)
		return
	}
	p.spareMu.Lock()
	defer p.spareMu.Unlock()
	if len(p.spare) < maxSpare {
		p.spare = append(p.spare, b[:p.m+1])
	}
}

var fftPlans sync.Map // m → *fftPlan (read-only once built, safe to share)

// maxCachedPlan: plans up to this complex length are kept for reuse (their
// twiddles cost about one transform to compute); larger ones, ~26 bytes per
// point, go to largePlans, which holds only the most recently used few.
const maxCachedPlan = 1 << 19

// largePlans keeps the last largePlanSlots large plans by size: one ε(δ)
// at very many steps transforms both directions of the PLD, and tilts them,
// at one length (six transforms of 2.6M points at T = 10⁶), and rebuilding
// the twiddles each time cost a quarter of the run; holding every size
// ever used would keep tens of megabytes per size in a long-running
// process.
var largePlans struct {
	sync.Mutex
	plans []*fftPlan // most recently used last
}

const largePlanSlots = 2

func getPlan(m int) *fftPlan {
	if m <= maxCachedPlan {
		if p, ok := fftPlans.Load(m); ok {
			return p.(*fftPlan)
		}
		actual, _ := fftPlans.LoadOrStore(m, newPlan(m))
		return actual.(*fftPlan)
	}
	if p := takeLargePlan(m); p != nil {
		return p
	}
	p := newPlan(m)
	putLargePlan(p)
	return p
}

// takeLargePlan returns the cached large plan of length m, if any, and
// marks it most recently used.
func takeLargePlan(m int) *fftPlan {
	largePlans.Lock()
	defer largePlans.Unlock()
	ps := largePlans.plans
	for i, p := range ps {
		if p.m == m {
			copy(ps[i:], ps[i+1:])
			ps[len(ps)-1] = p
			return p
		}
	}
	return nil
}

// putLargePlan caches p, evicting the least recently used plan when the
// slots are full (two goroutines may build the same size at once; the
// duplicate only costs a slot until it ages out).
func putLargePlan(p *fftPlan) {
	largePlans.Lock()
	defer largePlans.Unlock()
	if len(largePlans.plans) == largePlanSlots {
		largePlans.plans = append(largePlans.plans[:0], largePlans.plans[1:]...)
	}
	largePlans.plans = append(largePlans.plans, p)
}

func newPlan(m int) *fftPlan {
	if r := m >> bits.TrailingZeros(uint(m)); r != 1 {
		return newMixedPlan(m, r)
	}
	logM := bits.TrailingZeros(uint(m))
	p := &fftPlan{m: m, tw: make([]complex128, max(m, 1)), rev: make([]uint32, m)}
	// Each stage reads its twiddles contiguously (better for the cache than
	// strided reads of one table).
	for span := 4; span < m; span <<= 1 {
		for k := 0; k < span; k++ {
			s, c := math.Sincos(-math.Pi * float64(k) / float64(span))
			p.tw[span+k] = complex(c, s)
		}
	}
	for i := range p.rev {
		p.rev[i] = uint32(bits.Reverse(uint(i)) >> (bits.UintSize - logM))
	}
	if m == 1 {
		p.rev[0] = 0
	}
	return p
}

// realTwiddles returns rtw, built on first use: a power-of-two plan that
// only serves as a mixed-radix plan's sub-transform never needs it (at
// T = 10⁶ that saved 2^17 sines and cosines and 2 MB).
func (p *fftPlan) realTwiddles() []complex128 {
	p.rtwOnce.Do(func() {
		p.rtw = make([]complex128, p.m/2+1)
		for k := range p.rtw {
			s, c := math.Sincos(-math.Pi * float64(k) / float64(p.m))
			p.rtw[k] = complex(c, s)
		}
	})
	return p.rtw
}

// newMixedPlan builds the plan for m = r·2^k (r = 3 or 5).
func newMixedPlan(m, r int) *fftPlan {
	n2 := m / r
	p := &fftPlan{m: m, radix: r, sub: getPlan(n2), rtwR: make([]complex128, (r-1)*n2)}
	rtw := p.realTwiddles()
	for j := 1; j < r; j++ {
		for k1 := 0; k1 < n2; k1++ {
			// e^{−2πi·j·k1/m} is rtw[2·j·k1] where the real table reaches:
			// −2π·x/m and −π·(2x)/m round to the same double (doubling is
			// exact), so only the rest needs sines and cosines
			// (TestMixedTwiddlesBits checks every entry).
			if 2*j*k1 < len(rtw) {
				p.rtwR[(j-1)*n2+k1] = rtw[2*j*k1]
				continue
			}
			s, c := math.Sincos(-2 * math.Pi * float64(j*k1) / float64(m))
			p.rtwR[(j-1)*n2+k1] = complex(c, s)
		}
	}
	return p
}

// transform computes the DFT of x in place. Power-of-two lengths:
// iterative radix-2 decimation in time after a bit-reversal permutation,
// the first two stages (twiddles 1 and −i) fused into one radix-4 pass.
// Lengths r·2^k: r interleaved power-of-two transforms and one radix-r
// pass. (The inverse, conj(DFT(conj x)), is realMerge's: it conjugates
// its input as it writes it and its readers conjugate the output as they
// read it, instead of two more passes over the array.)
func (p *fftPlan) transform(x []complex128) {
	if p.radix > 1 {
		p.transformMixed(x)
	} else {
		p.transform2(x)
	}
}

// transformMixed: X[k1 + l·n2] = Σ_j e^{−2πi·j·l/r}·(e^{−2πi·j·k1/m}·Y_j[k1]),
// where Y_j is the length-n2 DFT of x[j], x[j+r], x[j+2r], ….
func (p *fftPlan) transformMixed(x []complex128) {
	y := p.scratch()
	defer p.putScratch(y)
	// Each sub-transform's input is gathered straight into bit-reversed
	// order (y_j[rev[i]] = x[i·r+j]): the same array the permutation pass of
	// transform2 would make, without that pass.
	gatherAllBitReversed(y, x, p.radix, p.sub.rev, p.workers())
	p.mixedFinish(y, x)
}

// workers is how many goroutines the passes over a transform of p's
// length use: below parallelFFT points a goroutine hand-off costs more
// than it saves.
func (p *fftPlan) workers() int {
	if p.m >= parallelFFT {
		return runtime.GOMAXPROCS(0)
	}
	return 1
}

// mixedFinish is transformMixed once y holds the r sub-transforms' inputs
// in bit-reversed order (y_j = y[j·n2:(j+1)·n2]): their butterflies, then
// the radix-r pass from y into x.
func (p *fftPlan) mixedFinish(y, x []complex128) {
	p.subButterflies(y)
	p.radixPass(y, x, 0, p.m/p.radix, p.m/p.radix)
}

// subButterflies runs the butterflies of the r sub-transforms in y. They
// are independent: on several cores they run side by side (the same
// operations on the same data, so the same bits).
func (p *fftPlan) subButterflies(y []complex128) {
	n2 := p.m / p.radix
	sub := func(j int) error {
		p.sub.butterflies(y[j*n2 : (j+1)*n2])
		return nil
	}
	if err := parallel.For(context.Background(), p.radix, p.workers(), sub); err != nil {
		panic(err) // sub never fails; a panic inside it is re-raised here
	}
}

// radixPass is the radix-r pass for k1 in [lo, hi): X[k1 + l·n2] goes to
// x[k1 − lo + l·stride] (the whole pass into the transform: lo = 0,
// stride = n2; a block of it into a small buffer: stride = its rows).
func (p *fftPlan) radixPass(y, x []complex128, lo, hi, stride int) {
	n2 := p.m / p.radix
	switch p.radix {
	case 3:
		// e^{−2πi/3} = −1/2 − i√3/2.
		const c = -0.5
		const s = -0.86602540378443864676372317075294
		for k1 := lo; k1 < hi; k1++ {
			a := y[k1]
			b := y[n2+k1] * p.rtwR[k1]
			d := y[2*n2+k1] * p.rtwR[n2+k1]
			sum, diff := b+d, b-d
			t := a + complex(c, 0)*sum
			u := complex(0, s) * diff
			o := k1 - lo
			x[o], x[o+stride], x[o+2*stride] = a+sum, t+u, t-u
		}
	case 5:
		// Radix-5 butterfly with cos/sin of 2π/5 and 4π/5 (Winograd-style
		// pairing of j and 5−j).
		const c1 = 0.30901699437494742410229341718282  // cos 2π/5
		const c2 = -0.80901699437494742410229341718282 // cos 4π/5
		const s1 = 0.95105651629515357211643933337938  // sin 2π/5
		const s2 = 0.58778525229247312916870595463907  // sin 4π/5
		for k1 := lo; k1 < hi; k1++ {
			a := y[k1]
			b1 := y[n2+k1] * p.rtwR[k1]
			b2 := y[2*n2+k1] * p.rtwR[n2+k1]
			b3 := y[3*n2+k1] * p.rtwR[2*n2+k1]
			b4 := y[4*n2+k1] * p.rtwR[3*n2+k1]
			p14, m14 := b1+b4, b1-b4
			p23, m23 := b2+b3, b2-b3
			r1 := a + complex(c1, 0)*p14 + complex(c2, 0)*p23
			r2 := a + complex(c2, 0)*p14 + complex(c1, 0)*p23
			// −i·(s1·m14 + s2·m23) and −i·(s2·m14 − s1·m23)
			i1 := complex(s1, 0)*m14 + complex(s2, 0)*m23
			i2 := complex(s2, 0)*m14 - complex(s1, 0)*m23
			j1 := complex(imag(i1), -real(i1))
			j2 := complex(imag(i2), -real(i2))
			o := k1 - lo
			x[o] = a + p14 + p23
			x[o+stride] = r1 + j1
			x[o+4*stride] = r1 - j1
			x[o+2*stride] = r2 + j2
			x[o+3*stride] = r2 - j2
		}
	}
}

// gatherBitReversed sets y[rev[i]] = x[i·r+j] for i < len(y) (a power of
// two, rev its bit-reversal permutation). Written one i after the other,
// every store of a large transform went to a different cache line
// (transformMixed's gather took a quarter of a PLD ε at T = 10⁶); here the
// index bits split into a top and a bottom part of gatherBits bits around
// the middle ones, and for each middle value a gatherTile×gatherTile tile is
// read with the bottom bits running (x in order) and written with the top
// bits running, which rev maps to gatherTile consecutive entries of y. The
// same values land in the same places.
func gatherBitReversed(y, x []complex128, r, j int, rev []uint32) {
	n := len(y)
	k := bits.TrailingZeros(uint(n))
	if k < 2*gatherBits {
		for i, ri := range rev[:n] {
			y[ri] = x[i*r+j]
		}
		return
	}
	const B = gatherTile
	var tile [B * B]complex128
	top := k - gatherBits // shift of the top bits
	for m := 0; m < 1<<top; m += B {
		// i = a<<top | m | c: rev(i) = rev(m|c) | rev(a<<top), the first
		// a multiple of B, the second below B.
		for a := 0; a < B; a++ {
			base, ra := a<<top|m, int(rev[a<<top])
			src := x[base*r+j : (base+B-1)*r+j+1]
			for c := 0; c < B; c++ {
				tile[c*B+ra] = src[c*r]
			}
		}
		for c := 0; c < B; c++ {
			d := int(rev[m|c])
			copy(y[d:d+B], tile[c*B:(c+1)*B])
		}
	}
}

// gatherAllBitReversed is gatherBitReversed for every j < r at once:
// y[j·n + rev[i]] = x[i·r+j] for i < n = len(y)/r. Gathering one j at a
// time read every cache line of x r times over (r passes over a 20 MB
// array at T = 10⁶, each using a fifth of what it loads); here each
// tile's rows of x are read once, contiguously, and dealt out to r tiles.
// The tiles' middle bits are split among the workers (the same values land
// in the same places, whoever moves them).
func gatherAllBitReversed(y, x []complex128, r int, rev []uint32, workers int) {
	n := len(y) / r
	k := bits.TrailingZeros(uint(n))
	if k < 2*gatherBits {
		for j := 0; j < r; j++ {
			gatherBitReversed(y[j*n:(j+1)*n], x, r, j, rev)
		}
		return
	}
	const B = gatherTile
	top := k - gatherBits
	tiles := make([][]complex128, parallel.Workers(1<<top/B, workers))
	gather := func(w, lo, hi int) error {
		if tiles[w] == nil {
			tiles[w] = make([]complex128, r*B*B)
		}
		tile := tiles[w]
		for mb := lo; mb < hi; mb++ {
			m := mb * B
			// i = a<<top | m | c: rev(i) = rev(m|c) | rev(a<<top), as in
			// gatherBitReversed; x[i·r : i·r+r] holds every j's value.
			for a := 0; a < B; a++ {
				base, ra := a<<top|m, int(rev[a<<top])
				src := x[base*r : (base+B)*r]
				for c := 0; c < B; c++ {
					for j, v := range src[c*r : c*r+r] {
						tile[j*B*B+c*B+ra] = v
					}
				}
			}
			for j := 0; j < r; j++ {
				yj, tj := y[j*n:(j+1)*n], tile[j*B*B:(j+1)*B*B]
				for c := 0; c < B; c++ {
					d := int(rev[m|c])
					copy(yj[d:d+B], tj[c*B:(c+1)*B])
				}
			}
		}
		return nil
	}
	// Chunks of 64 tiles (4 MiB of x at r = 5) keep the hand-off rare.
	if err := parallel.Chunks(context.Background(), 1<<top/B, 64, workers, gather); err != nil {
		panic(err) // gather never fails; a panic inside it is re-raised here
	}
}

// gatherBits is the width of the tiles of gatherBitReversed: 32×32
// complex128 values (16 KiB) on the stack. BenchmarkGatherBitReversed
// (2^19 points, r = 5, one core, CPU time): the plain loop 51–59 ms,
// tiles of 8² 26–27 ms, 16² 23–25 ms, 32² 17–18 ms.
const (
	gatherBits = 5
	gatherTile = 1 << gatherBits
)

// transform2 is the power-of-two forward transform. After the bit-reversal
// permutation, the stages whose butterflies stay within blocks of
// fftBlock points run block by block (each block stays in cache through
// all of them), then the wider stages run over the whole array: the same
// butterflies in the same stages, so the same bits, with a third fewer
// passes over memory at 2^18 points.
func (p *fftPlan) transform2(x []complex128) {
	for i, r := range p.rev {
		if j := int(r); i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	p.butterflies(x)
}

// butterflies is transform2 after the bit-reversal permutation.
func (p *fftPlan) butterflies(x []complex128) {
	m := p.m
	if m < 4 {
		if m == 2 {
			x[0], x[1] = x[0]+x[1], x[0]-x[1]
		}
		return
	}
	block := min(m, fftBlock)
	span := 4
	for start := 0; start < m; start += block {
		b := x[start : start+block]
		firstRadix4(b)
		span = 4
		for ; 4*span <= block; span <<= 2 {
			p.radix4Stage(b, span)
		}
	}
	// Remaining stages two at a time (radix 4: half the passes over memory,
	// the same multiplications): spans L and 2L on blocks of 4L.
	for ; 4*span <= m; span <<= 2 {
		p.radix4Stage(x, span)
	}
	for ; span < m; span <<= 1 {
		tw := p.tw[span : 2*span]
		for start := 0; start < m; start += 2 * span {
			lo := x[start : start+span]
			hi := x[start+span : start+2*span]
			hi = hi[:len(lo)]
			tw := tw[:len(lo)]
			for k, a := range lo {
				t := tw[k] * hi[k]
				lo[k], hi[k] = a+t, a-t
			}
		}
	}
}

// parallelFFT is the complex length from which transformMixed runs its
// sub-transforms on all cores (2^18 points: a few milliseconds each).
const parallelFFT = 1 << 18

// fftBlock is the block (in complex points, 256 KiB) within which
// transform2 runs its narrow stages: it fits the per-core L2 cache.
const fftBlock = 1 << 14

// firstRadix4 runs the first two radix-2 stages (twiddles 1 and −i) as one
// radix-4 pass over x (len(x) a multiple of 4).
func firstRadix4(x []complex128) {
	for i := 0; i+3 < len(x); i += 4 {
		a, b, c, d := x[i], x[i+1], x[i+2], x[i+3]
		s0, d0 := a+b, a-b
		s1, d1 := c+d, c-d
		d1 = complex(imag(d1), -real(d1)) // −i·d1
		x[i], x[i+2] = s0+s1, s0-s1
		x[i+1], x[i+3] = d0+d1, d0-d1
	}
}

// radix4Stage runs the radix-2 stages of spans L and 2L as one radix-4
// pass over x (len(x) a multiple of 4L).
func (p *fftPlan) radix4Stage(x []complex128, L int) {
	tw1 := p.tw[L : 2*L]
	tw2 := p.tw[2*L : 4*L]
	for start := 0; start < len(x); start += 4 * L {
		radix4Block(x[start:start+L], x[start+L:start+2*L], x[start+2*L:start+3*L], x[start+3*L:start+4*L], tw1, tw2[:L])
	}
}

// radix4BlockGo is one block of radix4Stage: x0…x3 are its quarters, w1
// and w2 the twiddles of spans L and 2L (the first L of the latter).
func radix4BlockGo(x0, x1, x2, x3, w1s, w2s []complex128) {
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	w1s, w2s = w1s[:len(x0)], w2s[:len(x0)]
	for k, a := range x0 {
		w1, w2 := w1s[k], w2s[k]
		t1 := w1 * x1[k]
		a1, b1 := a+t1, a-t1
		t2 := w1 * x3[k]
		c1, d1 := x2[k]+t2, x2[k]-t2
		t3 := w2 * c1
		t4 := w2 * d1
		t4 = complex(imag(t4), -real(t4)) // −i·w2·d1 = W_{4L}^{k+L}·d1
		x0[k], x2[k] = a1+t3, a1-t3
		x1[k], x3[k] = b1+t4, b1-t4
	}
}

// realForward computes the m+1 non-redundant DFT coefficients of the real
// sequence x (length 2m) into z (length m+1) and returns z.
func (p *fftPlan) realForward(x []float64, z []complex128) []complex128 {
	m := p.m
	z = z[:m+1]
	for k := 0; k < m; k++ {
		z[k] = complex(x[2*k], x[2*k+1])
	}
	p.transform(z[:m])
	return p.realSplit(z)
}

// realSplit finishes realForward once z[:m] holds the complex transform of
// the packed input: the split into the transforms of even and odd samples,
// E and O, combined as X[k] = E[k] + e^{−2πik/2m}·O[k].
func (p *fftPlan) realSplit(z []complex128) []complex128 {
	m, rtw := p.m, p.realTwiddles()
	z0 := z[0]
	z[m] = complex(real(z0)-imag(z0), 0)
	z[0] = complex(real(z0)+imag(z0), 0)
	for k := 1; k <= m/2; k++ {
		z[k], z[m-k] = splitPair(z[k], z[m-k], rtw[k]) // at k = m/2 the second write is the one that stays
	}
	return z
}

// splitPair is realSplit's step for the pair (k, m−k), k ≤ m/2: from
// a = Z[k], b = Z[m−k] and w = rtw[k], the coefficients X[k] and X[m−k].
func splitPair(a, b, w complex128) (xk, xmk complex128) {
	cb := complex(real(b), -imag(b))
	ca := complex(real(a), -imag(a))
	e1, o1 := 0.5*(a+cb), complex(0, -0.5)*(a-cb)        // E[k], O[k]
	e2, o2 := 0.5*(b+ca), complex(0, -0.5)*(b-ca)        // E[m−k], O[m−k]
	return e1 + w*o1, e2 - complex(real(w), -imag(w))*o2 // e^{−2πi(m−k)/2m} = −conj(rtw[k])
}

// radixSplit is mixedFinish's radix pass into z followed by realSplit,
// without writing the transform into z and reading it back: the radix
// pass runs a block of residues k1 (index mod n2) and the block of their
// mirror images n2 − k1 at a time into small buffers, and every pair
// (k, m−k) of the split has one member in each (residues 0 and n2/2 are
// their own mirrors and go first). The same pairs, operations and
// twiddles as the two passes, so the same bits.
func (p *fftPlan) radixSplit(y, z []complex128) {
	r, n2, m := p.radix, p.m/p.radix, p.m
	rtw := p.realTwiddles()
	var self [2 * 5]complex128
	p.radixPass(y, self[:r], 0, 1, 1)            // X[l·n2]
	p.radixPass(y, self[r:2*r], n2/2, n2/2+1, 1) // X[n2/2 + l·n2]
	z0 := self[0]
	z[m] = complex(real(z0)-imag(z0), 0)
	z[0] = complex(real(z0)+imag(z0), 0)
	for l := 1; 2*l <= r-1; l++ { // the pairs (l·n2, (r−l)·n2)
		z[l*n2], z[(r-l)*n2] = splitPair(self[l], self[r-l], rtw[l*n2])
	}
	half := self[r : 2*r]
	for l := 0; 2*l <= r-1; l++ { // (n2/2 + l·n2, n2/2 + (r−1−l)·n2), the last one k = m/2
		k := n2/2 + l*n2
		z[k], z[m-k] = splitPair(half[l], half[r-1-l], rtw[k])
	}
	const B = windowBlock
	bufs := make([]complex128, 2*r*B)
	low, mirror := bufs[:r*B], bufs[r*B:]
	for lo := 1; lo < n2/2; lo += B {
		hi := min(lo+B, n2/2)
		p.radixPass(y, low, lo, hi, B)
		p.radixPass(y, mirror, n2-hi+1, n2-lo+1, B) // residue n2 − k1 at hi − 1 − k1
		for l := 0; l < r; l++ {
			for k1 := lo; k1 < hi; k1++ {
				k, xk, xm := k1+l*n2, low[k1-lo+l*B], mirror[hi-1-k1+(r-1-l)*B]
				if km := m - k; k < km {
					z[k], z[km] = splitPair(xk, xm, rtw[k])
				} else {
					z[km], z[k] = splitPair(xm, xk, rtw[km])
				}
			}
		}
	}
}

// realForwardPadded is realForward of x zero-padded to length 2m, read
// from x directly (no padded copy: at T = 10⁶ that copy and its clearing
// were two extra passes over 21 MB). A mixed-radix plan deals x's points
// straight into the sub-transforms' bit-reversed inputs: x is a few
// percent of 2m there, and packing it into z first cost a pass that
// cleared z and one that gathered it.
func (p *fftPlan) realForwardPadded(x []float64, z []complex128) []complex128 {
	m := p.m
	z = z[:m+1]
	if p.radix > 1 {
		y := p.scratch()
		defer p.putScratch(y)
		p.scatterPadded(y[:m], x)
		if m/p.radix < 2*windowBlock {
			p.mixedFinish(y[:m], z[:m])
			return p.realSplit(z)
		}
		p.subButterflies(y[:m])
		p.radixSplit(y[:m], z)
		return z
	}
	n := len(x) / 2
	for k := 0; k < n; k++ {
		z[k] = complex(x[2*k], x[2*k+1])
	}
	if len(x)%2 == 1 {
		z[n] = complex(x[len(x)-1], 0)
		n++
	}
	p.clearParallel(z[n:m])
	p.transform(z[:m])
	return p.realSplit(z)
}

// scatterPadded sets y to what gatherAllBitReversed makes of the packed,
// zero-padded input z[k] = x[2k] + i·x[2k+1] (a mixed-radix plan): point k
// = i·r + j goes to y[j·n2 + rev[i]], and every other point is zero.
func (p *fftPlan) scatterPadded(y []complex128, x []float64) {
	r, n2, rev := p.radix, p.m/p.radix, p.sub.rev
	p.clearParallel(y)
	point := func(k int) complex128 {
		if 2*k+1 < len(x) {
			return complex(x[2*k], x[2*k+1])
		}
		return complex(x[2*k], 0)
	}
	points := (len(x) + 1) / 2
	for i := 0; i*r < points; i++ {
		ri := int(rev[i])
		for j := 0; j < r && i*r+j < points; j++ {
			y[j*n2+ri] = point(i*r + j)
		}
	}
}

// clearChunk is how many elements clearParallel clears per call of clear:
// 1 MiB, so that the goroutine reaches a preemption point every few
// hundred page faults.
const clearChunk = 1 << 16

// clearParallel zeroes y a chunk at a time on the plan's workers. One
// clear of the tens of megabytes a large padded transform scatters into
// is a single runtime call that cannot be preempted, and on fresh memory
// it is also a page fault per 4 KiB: a collection that started meanwhile
// waited the whole clear for this goroutine's stack, its idle worker
// spinning on the other core (about 0.1 s of CPU at T = 10⁶).
func (p *fftPlan) clearParallel(y []complex128) {
	chunks := (len(y) + clearChunk - 1) / clearChunk
	part := func(i int) error {
		clear(y[i*clearChunk : min(len(y), (i+1)*clearChunk)])
		return nil
	}
	if err := parallel.For(context.Background(), chunks, p.workers(), part); err != nil {
		panic(err) // part never fails; a panic inside it is re-raised here
	}
}

// realInverse writes into out (length 2m) the real sequence whose DFT has
// the non-redundant coefficients c (length m+1), unnormalised (times 2m).
// c is overwritten.
func (p *fftPlan) realInverse(c []complex128, out []float64) {
	m := p.m
	p.realMerge(c)
	for k, v := range c[:m] {
		out[2*k], out[2*k+1] = 2*real(v), 2*-imag(v)
	}
}

// realMerge is realInverse up to the unzipping: it leaves in c[:m] the
// conjugate of the inverse complex transform whose real and imaginary
// parts are the even and odd samples (halved); the reader conjugates.
func (p *fftPlan) realMerge(c []complex128) {
	p.mergePass(c)
	p.transform(c[:p.m])
}

// mergePass is realMerge before its transform: E[k] = (X[k] + conj X[m−k])/2,
// O[k] = (X[k] − conj X[m−k])/(2·e^{−2πik/2m}), Z[k] = E[k] + i·O[k],
// computed for the pair (k, m−k) at once so that c can be overwritten in
// place; conj Z is stored, whose DFT, conjugated, is the inverse of Z.
func (p *fftPlan) mergePass(c []complex128) {
	m := p.m
	p.realTwiddles() // for twReal
	for k := 0; k <= m/2; k++ {
		a, b := c[k], c[m-k]
		ca, cb := complex(real(a), -imag(a)), complex(real(b), -imag(b))
		wk, wmk := p.twReal(k), p.twReal(m-k)
		zk := 0.5*(a+cb) + complex(0, 0.5)*(a-cb)*complex(real(wk), -imag(wk))
		zmk := 0.5*(b+ca) + complex(0, 0.5)*(b-ca)*complex(real(wmk), -imag(wmk))
		c[k], c[m-k] = complex(real(zk), -imag(zk)), complex(real(zmk), -imag(zmk))
	}
}

// realInverseWindow is realInverse followed by out[j] = x[(start+j) mod 2m]·scale
// for j < len(out), without the full-length intermediate (the same
// products, so the same bits). A mixed-radix plan unzips its radix pass a
// block at a time from a small buffer instead of writing the whole
// transform back into c and reading it again.
func (p *fftPlan) realInverseWindow(c []complex128, out []float64, start int, scale float64) {
	L := 2 * p.m
	start %= L
	if p.radix <= 1 { // a power of two
		p.realMerge(c)
		unzipWindow(out, c[:p.m], 0, start, L, scale)
		return
	}
	p.mergePass(c)
	y := p.scratch()
	defer p.putScratch(y)
	y = y[:p.m]
	gatherAllBitReversed(y, c[:p.m], p.radix, p.sub.rev, p.workers())
	p.subButterflies(y)
	n2 := p.m / p.radix
	const B = windowBlock
	block := make([]complex128, p.radix*B)
	for lo := 0; lo < n2; lo += B {
		hi := min(lo+B, n2)
		p.radixPass(y, block, lo, hi, B)
		for l := 0; l < p.radix; l++ {
			unzipWindow(out, block[l*B:l*B+hi-lo], 2*(lo+l*n2), start, L, scale)
		}
	}
}

// windowBlock is how many points of each of the r rows realInverseWindow
// takes from its radix pass at a time (r·16 KiB).
const windowBlock = 1 << 10

// unzipWindow writes the points x[a], …, x[a+2·len(z)−1] that z holds
// conjugated (as unzipConj reads them; a + 2·len(z) ≤ L) into the window
// out[j] = x[(start+j) mod L]·scale, wherever they fall in it.
func unzipWindow(out []float64, z []complex128, a, start, L int, scale float64) {
	n := 2 * len(z)
	d := ((a-start)%L + L) % L // the window position of x[a]
	if d < len(out) {
		unzipConj(out[d:d+min(n, L-d, len(out)-d)], z, 0, scale)
	}
	if n > L-d { // the rest wraps around to the window's start
		unzipConj(out[:min(n-(L-d), len(out))], z, L-d, scale)
	}
}

// unzipConj sets out[t] = x[i+t]·scale, where x[2k] = 2·Re z[k] and
// x[2k+1] = −2·Im z[k] (z conjugated, as realMerge leaves it).
func unzipConj(out []float64, z []complex128, i int, scale float64) {
	if len(out) > 0 && i%2 == 1 {
		out[0] = 2 * -imag(z[i/2]) * scale
		out, i = out[1:], i+1
	}
	pairs := z[i/2 : i/2+len(out)/2]
	for k, v := range pairs {
		out[2*k], out[2*k+1] = 2*real(v)*scale, 2*-imag(v)*scale
	}
	if len(out)%2 == 1 {
		out[len(out)-1] = 2 * real(z[i/2+len(pairs)]) * scale
	}
}

// twReal returns e^{−2πik/2m} for 0 ≤ k ≤ m from the half table (built
// by realTwiddles before).
func (p *fftPlan) twReal(k int) complex128 {
	if k <= p.m/2 {
		return p.rtw[k]
	}
	w := p.rtw[p.m-k] // e^{−2πi(m−k)/2m} = −conj(e^{−2πik/2m})
	return complex(-real(w), imag(w))
}
