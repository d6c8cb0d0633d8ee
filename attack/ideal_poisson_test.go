package attack

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/internal/chacha8"
	"github.com/dpaudit/dpaudit/rng"
)

// referenceTrial is the Poisson game's stream read one step at a time, as
// ideal_poisson.go defines it: each step's half from the main stream, its
// slow path and the inclusions from the aux stream, every step scored on
// its own (careful).
func referenceTrial(m IdealMechanism, sigmaD float64, withLLR bool, key [32]byte, random, world bool) (IdealScores, bool) {
	s := newPoissonSim(m, sigmaD, withLLR)
	world = s.start(key, random, world)
	h := poissonFirstHalf
	for t := range m.Steps {
		if h == poissonHalves {
			s.main.Next(&s.buf)
			h = 0
		}
		y := s.sigma * s.normal(s.half(h))
		h++
		if t == s.nextIn {
			y++
			s.nextIn = t + 1 + s.gap()
		}
		s.careful([]float64{y}, t)
	}
	return s.scores(), world
}

// TestPoissonSimMatchesReference: SimulateIdeal, which draws a block of
// steps with the ziggurat kernel, patches the slow halves and inclusions
// in and scores the block with the exp kernel, gives every trial the
// bits of the stream read one step at a time. The cases cover blocks
// past the first iteration, a last group of fewer than four steps,
// q = 1, a single step, blocks with z > 30 (σ_d far below σ) and with
// z < −700 (σ = 0.05), q near 1, random worlds and SkipLLR.
func TestPoissonSimMatchesReference(t *testing.T) {
	cases := []IdealRun{
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 1000, NoiseMultiplier: 0.8256}, Seed: 1, Path: []any{"a"}, Count: 203},
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 301, NoiseMultiplier: 0.8256}, DistinguisherSigma: 0.1, Seed: 3, First: 5, Count: 61, Worlds: IdealRandom},
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 300, NoiseMultiplier: 0.05}, Seed: 3, Count: 41},
		{Mechanism: IdealMechanism{SamplingRate: 1, Steps: 50, NoiseMultiplier: 2}, Seed: 4, Count: 9},
		{Mechanism: IdealMechanism{SamplingRate: 1 - 1e-9, Steps: 600, NoiseMultiplier: 1}, Seed: 4, Count: 9},
		{Mechanism: IdealMechanism{SamplingRate: 0.3, Steps: 7, NoiseMultiplier: 1.5}, Seed: 5, Count: 30, SkipLLR: true},
		{Mechanism: IdealMechanism{SamplingRate: 0.2, Steps: 777, NoiseMultiplier: 1.1}, Seed: 5, Count: 30, SkipLLR: true},
		{Mechanism: IdealMechanism{SamplingRate: 0.5, Steps: 1, NoiseMultiplier: 1}, Seed: 5, Count: 13},
	}
	for c, run := range cases {
		tr, err := SimulateIdeal(run)
		if err != nil {
			t.Fatal(err)
		}
		checkReference(t, c, run, tr)
		// The Go forms of the kernels, as on a CPU without them.
		checkReference(t, c, run, withoutKernels(t, run))
	}
}

// checkReference compares every trial of tr with referenceTrial.
func checkReference(t *testing.T, c int, run IdealRun, tr IdealTrials) {
	t.Helper()
	sigmaD := run.DistinguisherSigma
	if sigmaD == 0 {
		sigmaD = run.Mechanism.NoiseMultiplier
	}
	prefix := rng.NewPrefix(run.Seed, run.Path...)
	for k := range tr.Index {
		i := run.First + k
		want, world := referenceTrial(run.Mechanism, sigmaD, !run.SkipLLR, prefix.Key(i), run.Worlds == IdealRandom, i%2 == 1)
		got := IdealScores{tr.Projection[k], tr.Watermark[k], tr.LLR[k]}
		if tr.World[k] != world || !sameBits(got, want) {
			t.Fatalf("case %d trial %d: %+v (world %v), one step at a time %+v (world %v)", c, i, got, tr.World[k], want, world)
		}
	}
}

// withoutKernels simulates run with the kernels' Go forms.
func withoutKernels(t *testing.T, run IdealRun) IdealTrials {
	t.Helper()
	defer func(v bool) { setPoissonKernels(v) }(setPoissonKernels(false))
	tr, err := SimulateIdeal(run)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func sameBits(a, b IdealScores) bool {
	return math.Float64bits(a.Projection) == math.Float64bits(b.Projection) &&
		math.Float64bits(a.Watermark) == math.Float64bits(b.Watermark) &&
		math.Float64bits(a.LLR) == math.Float64bits(b.LLR)
}

// TestPoissonKernels: the ziggurat and scoring kernels give the bits of
// their Go forms (on a CPU without AVX2 and FMA both are the Go form).
func TestPoissonKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var buf chacha8.Buffer
	var gc, wc [poissonHalves]float64
	var gs, ws [4]uint64
	for k := range 400 {
		for i := range buf {
			buf[i] = r.Uint64()
		}
		n := poissonHalves
		if k%2 == 1 {
			n = 4 * (1 + r.IntN(poissonHalves/4)) // as the last block converts them
		}
		sigma := 0.1 + 3*r.Float64()
		gc, wc, gs, ws = [poissonHalves]float64{}, [poissonHalves]float64{}, [4]uint64{}, [4]uint64{}
		zigHalves(&buf, n, sigma, &gc, &gs)
		zigHalvesGo(&buf, n, sigma, &wc, &ws)
		if gs != ws || !slices.Equal(floatBits(gc[:]), floatBits(wc[:])) {
			t.Fatalf("ziggurat kernel differs from its Go form (σ = %v, %d halves)", sigma, n)
		}
	}
	for trial := range 300 {
		n := 4 * (1 + r.IntN(70))
		ys := make([]float64, n)
		for i := range ys {
			ys[i] = 2 * r.NormFloat64()
		}
		sim := newPoissonSim(IdealMechanism{SamplingRate: r.Float64(), Steps: n, NoiseMultiplier: 1}, 0.3+2*r.Float64(), true)
		got, want := sim.st, sim.st
		got.m = [8]float64{1.5, 1e-100, 1e100, 1, 1, 3, 1e-200, 1e200}
		want.m = got.m
		poissonScore(ys, make([]float64, n), &got)
		poissonScoreGo(ys, &want)
		if got != want {
			t.Fatalf("trial %d: score kernel %+v, Go form %+v", trial, got, want)
		}
		poissonSums(ys, &got)
		poissonSumsGo(ys, &want)
		if got != want {
			t.Fatalf("trial %d: sums kernel %+v, Go form %+v", trial, got, want)
		}
	}
}

func floatBits(v []float64) []uint64 {
	b := make([]uint64, len(v))
	for i, x := range v {
		b[i] = math.Float64bits(x)
	}
	return b
}

// TestExpPoly: the polynomial exp is within 3 units in the last place of
// the exact e^z on [−700, 30] (math.Exp is within 1, so the bound is 4
// against it), at the ends and on 10⁶ random points.
func TestExpPoly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	zs := []float64{-700, 30, 0, -0.5 * math.Ln2, 0.5 * math.Ln2, 1e-300, -1e-300, 709.78 - 680}
	for range 1000000 {
		zs = append(zs, -700+730*r.Float64())
	}
	worst := 0.0
	for _, z := range zs {
		got, want := expPoly(z), math.Exp(z)
		ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
		worst = max(worst, ulps)
		if ulps > 4 {
			t.Fatalf("expPoly(%v) = %v, math.Exp %v: %.1f ulp", z, got, want, ulps)
		}
	}
	t.Logf("largest difference from math.Exp: %.2f ulp", worst)
}

// TestPoissonNormal: the steps' normals (the 25-bit ziggurat on halves,
// its slow path on the aux stream) are N(0, 1): 4·10⁶ draws from 1000
// trials' streams pass a Kolmogorov–Smirnov test at level 10⁻⁴, their
// moments are those of N(0, 1) within 5 standard errors, and each tail
// beyond ±3.5 (the base strip's tail is the slow path) has its normal
// frequency within 5 standard errors.
func TestPoissonNormal(t *testing.T) {
	if testing.Short() {
		t.Skip("4·10⁶ draws")
	}
	m := IdealMechanism{SamplingRate: 0.01, Steps: 4000, NoiseMultiplier: 1}
	prefix := rng.NewPrefix(7, "normal")
	var xs []float64
	for i := range 1000 {
		s := newPoissonSim(m, 1, true)
		s.start(prefix.Key(i), false, false)
		for h := poissonFirstHalf; len(xs) < 4000*(i+1); h++ {
			if h == poissonHalves {
				s.main.Next(&s.buf)
				h = 0
			}
			xs = append(xs, s.normal(s.half(h)))
		}
	}
	n := float64(len(xs))
	var m1, m2, m4, tail float64
	for _, x := range xs {
		m1 += x
		m2 += x * x
		m4 += x * x * x * x
		if math.Abs(x) > 3.5 {
			tail++
		}
	}
	m1, m2, m4, tail = m1/n, m2/n, m4/n, tail/n
	wantTail := math.Erfc(3.5 / math.Sqrt2)
	if math.Abs(m1) > 5/math.Sqrt(n) || math.Abs(m2-1) > 5*math.Sqrt(2/n) || math.Abs(m4-3) > 5*math.Sqrt(96/n) ||
		math.Abs(tail-wantTail) > 5*math.Sqrt(wantTail/n) {
		t.Fatalf("moments %v %v %v, tail %v (want 0, 1, 3, %v)", m1, m2, m4, tail, wantTail)
	}
	slices.Sort(xs)
	d := 0.0
	for i, x := range xs {
		f := 0.5 * math.Erfc(-x/math.Sqrt2)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	// P[√n·D > 2.3] ≈ 2e-4 (Kolmogorov's limit law).
	if d*math.Sqrt(n) > 2.3 {
		t.Fatalf("Kolmogorov–Smirnov √n·D = %v", d*math.Sqrt(n))
	}
	t.Logf("√n·D = %.3f, moments %.2e %.5f %.4f, tail %.3e (normal %.3e)", d*math.Sqrt(n), m1, m2, m4, tail, wantTail)
}

// TestExpApproxBracket: expApprox is within a tenth of the bracket
// wedgeBelow64 puts around it of e^v (math.Exp), on a dense grid of
// [−20, 0] and at its ends.
func TestExpApproxBracket(t *testing.T) {
	worst := 0.0
	check := func(v float64) {
		if d := math.Abs(expApprox(v)/math.Exp(v) - 1); d > worst {
			worst = d
		}
	}
	for n := range 2000001 {
		check(-20 * float64(n) / 2000000)
	}
	for _, v := range []float64{0, -1e-300, -math.SmallestNonzeroFloat64, -20, math.Nextafter(0, -1)} {
		check(v)
	}
	if worst > expApproxErr/10 {
		t.Errorf("expApprox is %.3g from math.Exp, more than a tenth of its stated bound %g", worst, expApproxErr)
	}
	t.Logf("largest relative error %.3g", worst)
}

// TestWedgeBelow64: the bracketed wedge test decides as lhs < expPoly(v)
// does, for lhs spread around e^v and right at its edges.
func TestWedgeBelow64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000000 {
		v := -7 * r.Float64()
		e := expPoly(v)
		lhs := e * (1 + 2e-5*(r.Float64()-0.5))
		if r.IntN(4) == 0 {
			lhs = math.Nextafter(e, float64(r.IntN(2))*2-1) // just below or above
		}
		if r.IntN(8) == 0 {
			lhs = e
		}
		if got, want := wedgeBelow64(lhs, v), lhs < e; got != want {
			t.Fatalf("wedgeBelow64(%v, %v) = %v, lhs < expPoly(v) = %v", lhs, v, got, want)
		}
	}
}
