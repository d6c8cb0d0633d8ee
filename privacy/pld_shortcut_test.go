package privacy

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// The shortcuts of the large-T path (reused plain masses, one tilted
// direction, skipped untilting exps, zeroed negligible coefficients,
// cached plans, cache-blocked stages) must not change a bit of any
// result: each test here compares with the computation they replace.

// TestTiltComposedMatchesSelfComposeAt: refining the plain composition
// gives SelfComposeAt's PMF exactly, in both rounding directions.
func TestTiltComposedMatchesSelfComposeAt(t *testing.T) {
	for _, pess := range []bool{true, false} {
		// q = 0.01, σ = 1, T = 20000 at h = 1e-3: the plain ε(1e-10) is
		// 16.94, the tilt at it moves it to 13.53.
		step, err := sampledGaussianStep(0.01, 1, 1e-3, pess, MaxPMFLen)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []*PMF{step.Remove, step.Add} {
			if p == nil {
				continue
			}
			plain, err := p.SelfCompose(20000, DefaultTailMass)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.SelfComposeAt(20000, DefaultTailMass, 16.94)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.tiltComposed(20000, 16.94, plain)
			if err != nil {
				t.Fatal(err)
			}
			samePMF(t, got, want)
		}
	}
}

// TestSkippedUntiltsCannotWin: the untilting loop without the skip of
// coefficients where the tilted bound cannot win gives the same masses.
func TestSkippedUntiltsCannotWin(t *testing.T) {
	step, err := sampledGaussianStep(0.01, 1, 1e-3, true, MaxPMFLen)
	if err != nil {
		t.Fatal(err)
	}
	got, err := step.Remove.SelfComposeAt(20000, DefaultTailMass, 16.94)
	if err != nil {
		t.Fatal(err)
	}
	skipLosingUntilts = false
	defer func() { skipLosingUntilts = true }()
	want, err := step.Remove.SelfComposeAt(20000, DefaultTailMass, 16.94)
	if err != nil {
		t.Fatal(err)
	}
	samePMF(t, got, want)
}

// TestPLDTiltedSkipsOnlyWhatCannotMatter: pldTilted's value equals the
// value of both directions recomposed and tilted, pessimistic and
// optimistic, for ε(δ) and δ(ε), at a δ where the tilt is taken.
func TestPLDTiltedSkipsOnlyWhatCannotMatter(t *testing.T) {
	// q = 0.01, σ = 1, h = 1e-3. At T = 3000, δ = 1e-9 the add direction's
	// plain ε (3.83) is below the remove direction's tilted one (4.77) and
	// is skipped; at T = 20000, δ = 1e-10 it (14.62) is above it (13.53),
	// and must be tilted too (12.20).
	for _, c := range []struct {
		steps int
		delta float64
	}{{3000, 1e-9}, {20000, 1e-10}} {
		m := SampledGaussian{SamplingRate: 0.01, NoiseMultiplier: 1, Steps: c.steps}
		const h = 1e-3
		for _, opt := range []bool{false, true} {
			o := Options{Optimistic: opt}
			plain, err := pldAt([]SampledGaussian{m}, o, h, pldLimit(o.PLDMemory), nil)
			if err != nil {
				t.Fatal(err)
			}
			step, err := sampledGaussianStep(m.SamplingRate, m.NoiseMultiplier, h, !opt, pldLimit(o.PLDMemory))
			if err != nil {
				t.Fatal(err)
			}
			at := plain.Epsilon(c.delta)
			full, err := step.SelfComposeAt(m.Steps, DefaultTailMass, at)
			if err != nil {
				t.Fatal(err)
			}
			for name, value := range map[string]func(*PMF) float64{
				"eps":   func(p *PMF) float64 { return p.EpsilonForDelta(c.delta) },
				"delta": func(p *PMF) float64 { return p.DeltaForEpsilon(at - 0.5) },
			} {
				got, err := pldTilted(m, h, o, plain, at, c.delta, memoValue(value), nil)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := pldValue(got, value), pldValue(full, value); g != w {
					t.Errorf("T=%d optimistic=%v %s: %v, tilting both directions %v", c.steps, opt, name, g, w)
				}
			}
		}
	}
}

// TestNegligiblePowerIsNegligible: below the threshold, the power and its
// error bound both underflow, as selfConvolveCircular's slow path finds.
func TestNegligiblePowerIsNegligible(t *testing.T) {
	for _, T := range []float64{129, 1000, 1e5, 1e6} {
		for _, a := range []float64{1e-16, 4e-14, 1e-9} {
			thr := negligiblePower(a, T)
			if thr <= 0 {
				t.Fatalf("T=%v a=%v: no threshold", T, a)
			}
			for _, r2 := range []float64{0, 1e-300, a * a / 4, a * a, 1e-12, 1e-6, thr / 2, math.Nextafter(thr, 0)} {
				if r2 >= thr {
					continue
				}
				logAbs := 0.5 * math.Log(r2)
				if r2 == 0 {
					logAbs = math.Log(a) // the slow path's argument for r2 = 0
				}
				if e := powerErrorBound(logAbs, math.Sqrt(r2), a, T); e != 0 {
					t.Errorf("T=%v a=%v r2=%v: error bound %v, want 0", T, a, r2, e)
				}
				if r2 > 0 && T*logAbs >= -745 {
					t.Errorf("T=%v a=%v r2=%v: power does not underflow", T, a, r2)
				}
			}
		}
	}
	if negligiblePower(1e-14, 100) != 0 {
		t.Error("T = 100 has no shortcut (the bound's log m near a may not underflow)")
	}
}

// TestLargePlanCache: large plans are reused by size and only the most
// recent few are kept.
func TestLargePlanCache(t *testing.T) {
	m := 3 * maxCachedPlan // a mixed-radix length past the permanent cache
	if getPlan(m) != getPlan(m) {
		t.Fatal("a large plan is rebuilt on its second use")
	}
	first := getPlan(m)
	for k := 1; k <= largePlanSlots; k++ {
		getPlan(m + 8*maxCachedPlan*k)
	}
	if getPlan(m) == first {
		t.Fatal("the least recently used large plan was not evicted")
	}
}

// TestBlockedTransformBitIdentical: transform2's cache blocking performs
// the stages of the plain iterative transform in another order of blocks,
// which must give the same bits.
func TestBlockedTransformBitIdentical(t *testing.T) {
	r := rng.New(5, "fft-blocked")
	for _, m := range []int{fftBlock / 2, fftBlock, 4 * fftBlock, 8 * fftBlock} {
		x := make([]complex128, m)
		for i := range x {
			x[i] = complex(r.Float64(), r.Float64())
		}
		want := append([]complex128(nil), x...)
		p := newPlan(m)
		unblockedTransform2(p, want)
		p.transform2(x)
		for i := range x {
			if x[i] != want[i] && !(cmplx.IsNaN(x[i]) && cmplx.IsNaN(want[i])) {
				t.Fatalf("m=%d i=%d: %v, unblocked %v", m, i, x[i], want[i])
			}
		}
	}
}

// unblockedTransform2 is transform2 without the blocking: every stage over
// the whole array in turn.
func unblockedTransform2(p *fftPlan, x []complex128) {
	m := p.m
	for i, r := range p.rev {
		if j := int(r); i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	firstRadix4(x)
	span := 4
	for ; 4*span <= m; span <<= 2 {
		p.radix4Stage(x, span)
	}
	for ; span < m; span <<= 1 {
		for start := 0; start < m; start += 2 * span {
			for k := 0; k < span; k++ {
				tw := p.tw[span+k] * x[start+span+k]
				x[start+k], x[start+span+k] = x[start+k]+tw, x[start+k]-tw
			}
		}
	}
}

func samePMF(t *testing.T, got, want *PMF) {
	t.Helper()
	if got.offset != want.offset || len(got.probs) != len(want.probs) || got.infMass != want.infMass ||
		got.roundingBound != want.roundingBound || got.pessimistic != want.pessimistic {
		t.Fatalf("PMF header differs: offset %d/%d len %d/%d inf %v/%v", got.offset, want.offset,
			len(got.probs), len(want.probs), got.infMass, want.infMass)
	}
	for i := range got.probs {
		if got.probs[i] != want.probs[i] {
			t.Fatalf("mass %d: %v, want %v", i, got.probs[i], want.probs[i])
		}
	}
}
