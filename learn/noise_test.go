package learn

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/dpaudit/dpaudit/internal/chacha8"
	"github.com/dpaudit/dpaudit/learn/gemm"
	"github.com/dpaudit/dpaudit/rng"
)

// TestNormalDraws checks the ziggurat (addNormal into a zero vector of odd
// length, so both halves of each word and the odd tail are used) against
// the standard normal law on 10⁶ + 1 draws: mean 0 and variance 1 within 5 standard errors (0.005 and
// 0.0071), Kolmogorov–Smirnov distance D below 1.95/√n = 0.00195 (the 0.1%
// critical value), and the two-sided tail mass beyond 3 — 0.0026998
// (Φ tables) — within 5 standard errors (5·√(0.0027/n) = 2.6e−4). The
// tail beyond zigR = 3.44 exercises the slow path.
func TestNormalDraws(t *testing.T) {
	const n = 1000001
	src := rand.NewChaCha8(rng.Key(5, "normal-test"))
	draws := make([]float32, n)
	if !addNormal(src, draws, 1) {
		t.Fatal("addNormal reported a non-finite draw")
	}
	x := make([]float64, n)
	var sum, sumSq float64
	tail := 0
	for i := range x {
		v := float64(draws[i])
		x[i] = v
		sum += v
		sumSq += v * v
		if math.Abs(v) > 3 {
			tail++
		}
	}
	mean := sum / n
	variance := sumSq/n - mean*mean
	if math.Abs(mean) > 5/math.Sqrt(n) {
		t.Errorf("mean %.5f, want 0 ± %.4f", mean, 5/math.Sqrt(n))
	}
	if math.Abs(variance-1) > 5*math.Sqrt(2.0/n) {
		t.Errorf("variance %.5f, want 1 ± %.4f", variance, 5*math.Sqrt(2.0/n))
	}
	if p := float64(tail) / n; math.Abs(p-0.0026998) > 5*math.Sqrt(0.0027/n) {
		t.Errorf("P(|z| > 3) = %.6f, want 0.0026998", p)
	}
	sort.Float64s(x)
	d := 0.0
	for i, v := range x {
		cdf := 0.5 * math.Erfc(-v/math.Sqrt2)
		d = math.Max(d, math.Max(math.Abs(cdf-float64(i)/n), math.Abs(cdf-float64(i+1)/n)))
	}
	if d > 1.95/math.Sqrt(n) {
		t.Errorf("Kolmogorov–Smirnov D = %.5f, want < %.5f", d, 1.95/math.Sqrt(n))
	}
	t.Logf("mean %.5f variance %.5f tail %.6f KS %.5f", mean, variance, float64(tail)/n, d)
}

// TestNoiseScaleWithZeroGradients: a bias-free logistic regression on
// all-zero inputs has zero gradients, so the noisy sum is pure noise,
// N(0, σ²C²·I). Over 60 steps × 20,000 coordinates (two noise blocks) the
// sample mean must be 0 within 5 SE (5·σC/√n) and the variance σ²C²
// within 5 SE (5·σ²C²·√(2/n)). Coordinates j and j + noiseBlock come from
// different streams, so the mean of their products over all such pairs and
// steps must be 0 within 5 SE (5·σ²C²/√pairs).
func TestNoiseScaleWithZeroGradients(t *testing.T) {
	const d, steps = 20000, 60
	const sigma, C = 1.3, 0.7
	m := mustModel(t, Arch{Kind: KindLogReg, NoBias: true}, []int{d}, 2, 1)
	X := make([]float32, 3*d)
	Y := []int32{0, 1, 0}
	var sum, sumSq, cross float64
	var count, pairs float64
	cfg := DPSGD{ClipNorm: C, NoiseMultiplier: sigma, SamplingRate: 1, Steps: steps, LearningRate: 0}
	res := mustTrain(t, m, X, Y, cfg, rng.New(6, "noise"), &Hooks{OnStep: func(s *Step) error {
		for j, v := range s.NoisySum {
			sum += float64(v)
			sumSq += float64(v) * float64(v)
			if j+noiseBlock < len(s.NoisySum) {
				cross += float64(v) * float64(s.NoisySum[j+noiseBlock])
				pairs++
			}
		}
		count += float64(len(s.NoisySum))
		return nil
	}})
	if res.Steps != steps {
		t.Fatalf("ran %d steps", res.Steps)
	}
	sd := sigma * C
	mean := sum / count
	variance := sumSq/count - mean*mean
	if math.Abs(mean) > 5*sd/math.Sqrt(count) {
		t.Errorf("noise mean %.5f, want 0 ± %.5f", mean, 5*sd/math.Sqrt(count))
	}
	if math.Abs(variance-sd*sd) > 5*sd*sd*math.Sqrt(2/count) {
		t.Errorf("noise variance %.5f, want σ²C² = %.5f", variance, sd*sd)
	}
	if c := cross / pairs; math.Abs(c) > 5*sd*sd/math.Sqrt(pairs) {
		t.Errorf("mean product of coordinates j and j+%d = %.5f, want 0 (independent streams)", noiseBlock, c)
	}
	t.Logf("mean %.5f variance %.5f (want %.5f) over %.0f draws", mean, variance, sd*sd, count)
}

// TestExpNeg compares the ziggurat's wedge-test exponential with math.Exp
// over its domain [−6, 0] (10⁶ points, and the ends). Tolerance: relative
// 1e−12 (Taylor truncation < 3e−13 plus a few float64 roundings).
func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 1000000; i++ {
		x := -6 * float64(i) / 1e6
		want := math.Exp(x)
		if r := math.Abs(expNeg(x)-want) / want; r > worst {
			worst = r
		}
	}
	if worst > 1e-12 {
		t.Errorf("max relative error of expNeg on [−6, 0] = %.3g, want ≤ 1e−12", worst)
	}
	t.Logf("max relative error %.3g", worst)
}

// TestAddNormalStream: the buffered, vectorised noise (addNormalStream, what
// training uses) draws bit for bit what the scalar addNormal draws from the
// bare stream, over consecutive calls of lengths that end mid-buffer, at odd
// sizes (the tail half-word) and across buffer refills, on every gemm path.
// scale 3 and 10⁵ draws per call exercise the slow path (≈ 1.2% of draws).
// This runs on the current gemm path (-tags purego for the portable one);
// gemm's TestZigguratFast compares the paths.
func TestAddNormalStream(t *testing.T) {
	lengths := []int{1, 2, 17, 1000, 16384, 3, 0, 100001, 1025, 16383}
	ref := rand.NewChaCha8(rng.Key(9, "stream-test"))
	buf := newWordStream(rng.Key(9, "stream-test"))
	for call, n := range lengths {
		want, got := make([]float32, n), make([]float32, n)
		for i := range want {
			want[i] = float32(i%7) - 3
			got[i] = want[i]
		}
		okW := addNormal(ref, want, 3)
		okG := addNormalStream(buf, got, 3)
		if okW != okG {
			t.Fatalf("call %d: finite %v, want %v", call, okG, okW)
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("call %d (n = %d): element %d = %v, want %v", call, n, i, got[i], want[i])
			}
		}
	}
}

// TestAddNormalStreamLong: over 2²⁴ draws (8.4 million words and more),
// in calls of random lengths (odd ones too, ending anywhere in a buffer),
// the buffered path (scan, slow words resolved in the buffer, one merged
// add per buffer, the stream path for slow words at a buffer's end) draws
// bit for bit what the scalar addNormal draws. It must see thousands of
// tail draws (|x| > zigR, the base layer's Marsaglia tail) and of wedge
// draws, or it is not a test of the slow path.
func TestAddNormalStreamLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	const total = 1 << 24
	const scale = 1
	r := rand.New(rand.NewChaCha8(rng.Key(12, "lengths")))
	ref := rand.NewChaCha8(rng.Key(12, "stream-long"))
	buf := newWordStream(rng.Key(12, "stream-long"))
	want, got := make([]float32, 40000), make([]float32, 40000)
	tails, done := 0, 0
	for call := 0; done < total; call++ {
		n := r.IntN(len(want) + 1)
		if call%3 == 0 {
			n = r.IntN(300)
		}
		clear(want[:n])
		clear(got[:n])
		addNormal(ref, want[:n], scale)
		addNormalStream(buf, got[:n], scale)
		for i := range n {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("call %d (n = %d, after %d draws): element %d = %v, want %v", call, n, done, i, got[i], want[i])
			}
			if math.Abs(float64(want[i])) > zigR {
				tails++
			}
		}
		done += n
	}
	if tails < 2000 {
		t.Fatalf("%d tail draws in %d: the test does not reach the tail", tails, done)
	}
	t.Logf("%d draws, %d in the tail", done, tails)
}

// TestZigguratWedgeDecisions: the vector wedge tests (gemm.ZigguratWedge
// with expNegConsts) decide as the scalar y < expNeg(−x²/2) does, for
// every layer, random wedge points and uniforms, and uniforms chosen so
// that y lies within a few ulps of expNeg's value (where a rounding
// difference anywhere would show).
func TestZigguratWedgeDecisions(t *testing.T) {
	r := rand.New(rand.NewChaCha8(rng.Key(4, "wedge-vector")))
	const n = 8 * 1024
	x, f, d := make([]float64, n), make([]float64, n), make([]float64, n)
	u := make([]uint64, n)
	acc := make([]uint8, n/8)
	xs := make([]float32, n)
	want := make([]bool, n)
	for l := range n {
		i := uint32(1 + r.IntN(127))
		j := int32(zigK[i]) + int32(r.Uint32N(1<<24-zigK[i]+1))
		if l%2 == 1 {
			j = -j
		}
		x[l] = float64(j) * float64(zigW[i])
		f[l], d[l] = zigF[i], zigF[i-1]-zigF[i]
		u[l] = r.Uint64()
		if l%4 != 0 { // aim y at the curve: unit ≈ (e − f)/d, a few ulps off
			e := expNeg(float64(-0.5*x[l]) * x[l])
			if unit := (e - f[l]) / d[l]; unit > 0 && unit < 1 {
				v := int64(unit*(1<<53)) - 1 + int64(r.IntN(5)) - 2
				u[l] = uint64(max(v, 0))<<11 | r.Uint64()&0x7FF
			}
		}
		y := f[l] + float64(unitOf(u[l])*d[l])
		want[l] = y < expNeg(float64(-0.5*x[l])*x[l])
	}
	if !gemm.ZigguratWedge(x, u, f, d, &expNegConsts, acc, xs) {
		t.Skip("no vector wedge path on this CPU or gemm path")
	}
	accepts := 0
	for l := range n {
		got := acc[l/8]>>(l%8)&1 == 1
		if got != want[l] {
			y := f[l] + float64(unitOf(u[l])*d[l])
			t.Fatalf("lane %d: accept %v, want %v (x = %v, y = %v, expNeg = %v)", l, got, want[l], x[l], y, expNeg(float64(-0.5*x[l])*x[l]))
		}
		if got {
			accepts++
		}
		if math.Float32bits(xs[l]) != math.Float32bits(float32(x[l])) {
			t.Fatalf("lane %d: float32(x) = %v, want %v", l, xs[l], float32(x[l]))
		}
	}
	if accepts < n/8 || accepts > n*7/8 {
		t.Fatalf("%d accepts of %d: the test points do not straddle the curve", accepts, n)
	}
}

// TestAddNormalStreamFinite: addNormalStream's report (taken from the
// vector add as it stores, and from the scalar steps) is allFinite of the
// result, with a NaN or an Inf anywhere in dst: first, last, the odd tail,
// mid-buffer, and in elements that a slow word's scalar step writes.
func TestAddNormalStreamFinite(t *testing.T) {
	r := rand.New(rand.NewChaCha8(rng.Key(13, "finite")))
	buf := newWordStream(rng.Key(13, "finite-stream"))
	for call := range 400 {
		n := 1 + r.IntN(3000)
		dst := make([]float32, n)
		bad := -1
		if call%4 != 0 {
			bad = []int{0, n - 1, r.IntN(n)}[call%3]
			dst[bad] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[call%3]
		}
		got := addNormalStream(buf, dst, 2)
		want, _ := allFinite(dst)
		if got != want || got != (bad < 0) {
			t.Fatalf("call %d (n = %d, non-finite at %d): reported %v, allFinite %v", call, n, bad, got, want)
		}
	}
}

// craftedSource yields the crafted words, then the words of a wordStream
// (the generic normalSlow reads it like any source).
type craftedSource struct {
	words []uint64
	rest  *wordStream
}

func (c *craftedSource) Uint64() uint64 {
	if len(c.words) > 0 {
		u := c.words[0]
		c.words = c.words[1:]
		return u
	}
	return c.rest.Uint64()
}

// addNormalRef is addNormal over any word source, with the plain
// normalSlow (no squeeze, no buffer, no vector code): the reference.
func addNormalRef(src wordSource, dst []float32, scale float32) {
	draw := func(h uint32) float32 {
		i, j := h&0x7F, int32(h)>>7
		if absInt32(j) < zigK[i] {
			return float32(j) * zigW[i]
		}
		return normalSlow(src, j, i)
	}
	k := 0
	for ; k+2 <= len(dst); k += 2 {
		u := src.Uint64()
		x0 := draw(uint32(u))
		x1 := draw(uint32(u >> 32))
		dst[k], dst[k+1] = dst[k]+float32(scale*x0), dst[k+1]+float32(scale*x1)
	}
	if k < len(dst) {
		dst[k] += float32(scale * draw(uint32(src.Uint64())))
	}
}

// TestAddNormalStreamCrafted: buffers far from typical — up to every word
// slow (past maxLanes slow words, the scalar remainder), both halves slow,
// base-layer (tail) halves, wedge draws whose uniform or redraw is past
// the buffer's end — give addNormal's draws, whatever the call lengths.
func TestAddNormalStreamCrafted(t *testing.T) {
	r := rand.New(rand.NewChaCha8(rng.Key(14, "crafted")))
	slowHalf := func() uint32 { // a half off the fast path
		for {
			h := r.Uint32()
			if r.IntN(8) == 0 {
				h &^= 0x7F // base layer
			}
			if absInt32(int32(h)>>7) >= zigK[h&0x7F] {
				return h
			}
		}
	}
	for trial := range 200 {
		seed := rng.Key(uint64(trial), "crafted-stream")
		s := newWordStream(seed)
		s.refill()
		density := []int{1, 2, 4, 16}[trial%4] // one word in density is made slow
		var words [chacha8.Words]uint64
		for w := range words {
			words[w] = r.Uint64()
			if r.IntN(density) == 0 {
				lo, hi := uint64(r.Uint32()), uint64(r.Uint32())
				switch r.IntN(3) {
				case 0:
					lo = uint64(slowHalf())
				case 1:
					hi = uint64(slowHalf())
				default:
					lo, hi = uint64(slowHalf()), uint64(slowHalf())
				}
				words[w] = lo | hi<<32
			}
		}
		copy(s.buf[:chacha8.Words], words[:])
		rest := newWordStream(seed)
		rest.refill() // the crafted buffer's place
		rest.pos = rest.n
		ref := &craftedSource{words: words[:], rest: rest}
		for call := range 6 {
			n := r.IntN(400)
			if call == 5 {
				n = 300 // well past the crafted buffer
			}
			want, got := make([]float32, n), make([]float32, n)
			for i := range want {
				want[i] = float32(i % 5)
				got[i] = want[i]
			}
			addNormalRef(ref, want, 1.5)
			addNormalStream(s, got, 1.5)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("trial %d (one word in %d slow), call %d (n = %d): element %d = %v, want %v", trial, density, call, n, i, got[i], want[i])
				}
			}
		}
	}
}

// TestAddNormalStreamScaleChange: the scan of a buffer (its draws times
// scale) must be redone when the scale changes mid-buffer; calls alternate
// scales and end mid-buffer.
func TestAddNormalStreamScaleChange(t *testing.T) {
	ref := rand.NewChaCha8(rng.Key(10, "stream-test"))
	buf := newWordStream(rng.Key(10, "stream-test"))
	for call := range 40 {
		scale := []float32{3, 0.5, 3, 1e-3}[call%4]
		n := 37 + 50*call
		want, got := make([]float32, n), make([]float32, n)
		addNormal(ref, want, scale)
		addNormalStream(buf, got, scale)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("call %d (scale %v): element %d = %v, want %v", call, scale, i, got[i], want[i])
			}
		}
	}
}

// TestWedgeSqueeze: the squeeze never contradicts the exponential. For every
// layer, points of its wedge with y uniform over the layer's height and y
// within 1e−12…1e−6 of expNeg's value on either side: wherever zigSqueeze
// decides, it decides as y < expNeg(−x²/2) does. It must also decide most
// uniform points (else it would not pay).
func TestWedgeSqueeze(t *testing.T) {
	r := rand.New(rand.NewChaCha8(rng.Key(3, "squeeze-test")))
	decided, total := 0, 0
	for i := uint32(1); i < 128; i++ {
		for n := 0; n < 3000; n++ {
			j := int32(zigK[i]) + int32(r.Uint32N(1<<24-zigK[i]+1))
			if n%2 == 1 {
				j = -j
			}
			x := float64(j) * float64(zigW[i])
			e := expNeg(float64(-0.5*x) * x)
			ys := []float64{zigF[i] + r.Float64()*(zigF[i-1]-zigF[i])}
			for _, d := range []float64{1e-12, 1e-10, 1e-9, 2e-9, 1e-8, 1e-6} {
				ys = append(ys, e-d, e+d)
			}
			ys = append(ys, e, math.Nextafter(e, 0), math.Nextafter(e, 2))
			for k, y := range ys {
				acc, ok := zigSqueeze(i, x, y)
				if k == 0 {
					total++
					if ok {
						decided++
					}
				}
				if ok && acc != (y < e) {
					t.Fatalf("layer %d x %v y %v: squeeze says accept=%v, exp says %v", i, x, y, acc, y < e)
				}
			}
		}
	}
	frac := float64(decided) / float64(total)
	t.Logf("squeeze decided %.1f%% of uniform wedge points", 100*frac)
	if frac < 0.8 {
		t.Errorf("squeeze decided only %.1f%% of wedge points", 100*frac)
	}
}
