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
