package attack

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// TestIdealLanesMatchTrial: SimulateIdeal, which runs trials side by side
// with vector exps, gives every trial exactly the scores of Trial on the
// trial's own stream (rng.New(seed, path…, i)), bit for bit: the same
// draws and the same tables as one trial at a time. The cases cover
// partial lane groups and blocks, q = 1, a single step, steps with
// z > 30 (σ_d far below σ) and exps outside the vector range (σ = 0.05),
// random worlds and SkipLLR.
func TestIdealLanesMatchTrial(t *testing.T) {
	cases := []IdealRun{
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 1000, NoiseMultiplier: 0.8256}, Seed: 1, Path: []any{"a"}, Count: 203},
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 300, NoiseMultiplier: 0.8256}, DistinguisherSigma: 0.1, Seed: 3, First: 5, Count: 61, Worlds: IdealRandom},
		{Mechanism: IdealMechanism{SamplingRate: 0.01, Steps: 300, NoiseMultiplier: 0.05}, Seed: 3, Count: 41},
		{Mechanism: IdealMechanism{SamplingRate: 1, Steps: 50, NoiseMultiplier: 2}, Seed: 4, Count: 9},
		{Mechanism: IdealMechanism{SamplingRate: 0.3, Steps: 7, NoiseMultiplier: 1.5}, Seed: 5, Count: 30, SkipLLR: true},
		{Mechanism: IdealMechanism{SamplingRate: 0.5, Steps: 1, NoiseMultiplier: 1}, Seed: 5, Count: 13},
		{Mechanism: IdealMechanism{SamplingRate: 0.1, Steps: 95, NoiseMultiplier: 1, Shuffle: true}, Seed: 6, Count: 17},
	}
	for c, run := range cases {
		tr, err := SimulateIdeal(run)
		if err != nil {
			t.Fatal(err)
		}
		sigmaD := run.DistinguisherSigma
		if sigmaD == 0 {
			sigmaD = run.Mechanism.NoiseMultiplier
		}
		for k := range tr.Index {
			i := run.First + k
			r := rng.New(run.Seed, append(append([]any(nil), run.Path...), i)...)
			world := i%2 == 1
			if run.Worlds == IdealRandom {
				world = r.Uint64()&1 == 1
			}
			want := run.Mechanism.trial(r, world, sigmaD, !run.SkipLLR)
			got := IdealScores{tr.Projection[k], tr.Watermark[k], tr.LLR[k]}
			if tr.World[k] != world || !sameBits(got, want) {
				t.Fatalf("case %d trial %d: %+v (world %v), one trial at a time %+v (world %v)", c, i, got, tr.World[k], want, world)
			}
		}
	}
}

func sameBits(a, b IdealScores) bool {
	return math.Float64bits(a.Projection) == math.Float64bits(b.Projection) &&
		math.Float64bits(a.Watermark) == math.Float64bits(b.Watermark) &&
		math.Float64bits(a.LLR) == math.Float64bits(b.LLR)
}

// TestIdealNormalMatchesStdlib: the lane's noise draw (the ziggurat
// tables read out of math/rand/v2, the words from internal/chacha8 with
// their fast-path values in bulk, the slow draws by math/rand/v2) returns
// σ·rand.Rand.NormFloat64()'s values and leaves the stream where it does.
func TestIdealNormalMatchesStdlib(t *testing.T) {
	key := rng.Key(9, "normal")
	want := rand.New(rand.NewChaCha8(key))
	var l idealLane
	l.seed(key, 0.8256, ziggurat())
	for i := range 1 << 20 {
		if g, w := l.noise(), 0.8256*want.NormFloat64(); math.Float64bits(g) != math.Float64bits(w) {
			t.Fatalf("draw %d: %v, NormFloat64 %v", i, g, w)
		}
	}
	if l.word() != want.Uint64() {
		t.Fatal("the streams are at different words after the draws")
	}
}

// forcedSource is a ChaCha8 stream whose first words are replaced,
// counting the words read.
type forcedSource struct {
	c      *rand.ChaCha8
	forced []uint64
	n      int
}

func (s *forcedSource) Uint64() uint64 {
	s.n++
	u := s.c.Uint64()
	if s.n <= len(s.forced) {
		return s.forced[s.n-1]
	}
	return u
}

// TestIdealNormalSlowPath: the lane's own slow path (normalSlow) returns
// rand.Rand.NormFloat64's bits and reads the same words, for first words
// off the fast path in every strip — the base strip's tail (strip 0),
// strip 1 (always slow) and every wedge, with j at kn[i], at MinInt32 and
// in between, of both signs — followed by random words (wedge
// rejections retry on them), or, in a quarter of the wedge cases, by a
// uniform draw within a few float32 steps of the wedge's acceptance
// boundary, where one ulp of a strip's density decides, or about where
// wedgeBelow's bracket ends.
func TestIdealNormalSlowPath(t *testing.T) {
	z := ziggurat()
	r := rand.New(rand.NewPCG(3, 4))
	var l idealLane
	for it := range 300000 {
		key := rng.Key(11, "slow", it)
		i := uint64(it % 128)
		span := uint64(1)<<31 - uint64(z.kn[i]) // |j| ∈ [kn[i], 2³¹)
		a := uint64(z.kn[i]) + r.Uint64N(span)
		switch it / 128 % 4 {
		case 0:
			a = uint64(z.kn[i])
		case 1:
			a = 1 << 31 // j = MinInt32
		}
		j := uint32(a)
		if r.IntN(2) == 0 {
			j = -j
		}
		forced := []uint64{r.Uint64()&^(0x7F<<32|0xFFFFFFFF) | i<<32 | uint64(j)}
		if it/128%4 == 3 && i > 0 {
			k := it/512%7 - 3 // float32 steps from the boundary: inside the bracket
			if it/3584%2 == 1 {
				k *= 30 // about at the bracket's edges
			}
			forced = append(forced, wedgeBoundaryWord(z, forced[0], k))
		}
		src := &forcedSource{c: rand.NewChaCha8(key), forced: forced}
		want := rand.New(src).NormFloat64()
		l.seed(key, 1, z)
		l.refill()
		copy(l.buf[:], forced)
		got := l.normalSlow()
		if math.Float64bits(got) != math.Float64bits(want) || l.pos != src.n {
			t.Fatalf("words %#x (strip %d): %v after %d words, NormFloat64 %v after %d", forced, i, got, l.pos, want, src.n)
		}
	}
}

// wedgeBoundaryWord is a word whose uniform draw f puts the wedge test of
// the slow word u, fn[i] + float32(f)·(fn[i−1] − fn[i]) < e^{−x²/2}, k
// float32 steps from its boundary.
func wedgeBoundaryWord(z *zigguratTables, u uint64, k int) uint64 {
	i := u >> 32 & 0x7F
	x := float64(int32(u)) * float64(z.wn[i])
	e := float64(float32(math.Exp(-.5 * x * x)))
	f := float32((e - float64(zigguratFn[i])) / float64(zigguratFn[i-1]-zigguratFn[i]))
	for ; k > 0; k-- {
		f = math.Nextafter32(f, 2)
	}
	for ; k < 0; k++ {
		f = math.Nextafter32(f, -1)
	}
	f = min(max(f, 0), math.Nextafter32(1, 0))
	return uint64(float64(f) * (1 << 53))
}

// TestExpApproxBracket: expApprox is within a tenth of the bracket
// wedgeBelow puts around it of math.Exp, on a dense grid of [−20, 0] and
// at its ends.
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
