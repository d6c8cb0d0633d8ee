package privacy

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/rng"
)

// randomPMF returns a PMF with n random masses (total 1 − inf).
func randomPMF(r *rand.Rand, n, offset int, inf float64) *PMF {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = r.Float64()
		s += p[i]
	}
	for i := range p {
		p[i] *= (1 - inf) / s
	}
	return &PMF{interval: 0.01, offset: offset, probs: p, infMass: inf, pessimistic: true}
}

func TestPMFComposeMatchesDirectConvolution(t *testing.T) {
	// Compose must equal the O(n·m) definition of the distribution of a sum
	// (both the direct and the FFT path; FFT rounding ≤ 1e-15 per entry).
	r := rng.New(1, "pmf-compose")
	for _, sizes := range [][2]int{{3, 5}, {50, 70}, {700, 900}} {
		a := randomPMF(r, sizes[0], -7, 0.01)
		b := randomPMF(r, sizes[1], 3, 0.02)
		c, err := a.Compose(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Offset() != -4 || c.Len() != sizes[0]+sizes[1]-1 {
			t.Fatalf("offset %d len %d", c.Offset(), c.Len())
		}
		for k := 0; k < c.Len(); k++ {
			want := 0.0
			for i := 0; i < a.Len(); i++ {
				if j := k - i; j >= 0 && j < b.Len() {
					want += a.Prob(i) * b.Prob(j)
				}
			}
			// The mass carries the FFT rounding bound (0 on the direct
			// path): an upper bound on the exact sum, and within 1e-15 of
			// it once the bound is taken off.
			if c.Prob(k) < want {
				t.Errorf("convolution %d = %v below the exact %v", k, c.Prob(k), want)
			}
			near(t, "convolution", c.Prob(k)-c.RoundingBound(), want, 1e-15)
		}
		near(t, "infinity mass", c.InfinityMass(), 1-0.99*0.98, 1e-15)
	}
}

func TestPMFSelfComposeMatchesRepeatedCompose(t *testing.T) {
	// SelfCompose (one FFT raised to the T-th power, Chernoff window) must
	// agree with T−1 explicit compositions, entry by entry (1e-13), and its
	// infinity mass is 1 − (1 − m)^T plus the truncation allowance.
	r := rng.New(2, "pmf-selfcompose")
	a := randomPMF(r, 40, -20, 1e-3)
	// The reference is built by direct convolution (sums of non-negative
	// products, exact to ~1e-16 relative), not by Compose, whose FFT path
	// adds its own rounding bound.
	want := a.Probs()
	for i := 1; i < 25; i++ {
		next := make([]float64, len(want)+a.Len()-1)
		for j, x := range want {
			for k := 0; k < a.Len(); k++ {
				next[j+k] += x * a.Prob(k)
			}
		}
		want = next
	}
	got := must3(t)(a.SelfCompose(25, 0))
	if got.Offset() != 25*a.Offset() || got.Len() != len(want) {
		t.Fatalf("window: got offset %d len %d, want %d %d", got.Offset(), got.Len(), 25*a.Offset(), len(want))
	}
	for k := 0; k < got.Len(); k++ {
		if got.Prob(k) < want[k]*(1-1e-13) {
			t.Errorf("T-fold convolution %d = %v below the exact %v", k, got.Prob(k), want[k])
		}
		near(t, "T-fold convolution", got.Prob(k)-got.RoundingBound(), want[k], 1e-13)
	}
	near(t, "infinity mass", got.InfinityMass(), 1-math.Pow(1-1e-3, 25), 1e-15)
	// With truncation, the window shrinks and the dropped mass (≤ tail)
	// goes to infinity; δ(ε) can only grow, and by at most the tail.
	tr := must3(t)(a.SelfCompose(25, 1e-10))
	if tr.Len() >= got.Len() {
		t.Errorf("truncated window %d not smaller than %d", tr.Len(), got.Len())
	}
	for _, e := range []float64{-1, 0, 0.5, 1} {
		dg, dt := got.DeltaForEpsilon(e), tr.DeltaForEpsilon(e)
		if dt < dg-1e-13 || dt > dg+1e-10+1e-13 {
			t.Errorf("ε=%v: δ truncated %v vs exact %v", e, dt, dg)
		}
	}
}

func must3(t *testing.T) func(*PMF, error) *PMF {
	return func(p *PMF, err error) *PMF {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func TestPMFQueries(t *testing.T) {
	// A hand-made PMF: losses −0.5, 0, 0.5, 1 (interval 0.5) with masses
	// 0.4, 0.3, 0.2, 0.05 and 0.05 at infinity.
	p := must3(t)(NewPMF(0.5, -1, []float64{0.4, 0.3, 0.2, 0.05}, 0.05, true))
	// δ(ε) = 0.05 + Σ_{l>ε} (1 − e^{ε−l})p_l, by hand.
	want := 0.05 + (1-math.Exp(0.2-0.5))*0.2 + (1-math.Exp(0.2-1))*0.05
	near(t, "δ(0.2)", p.DeltaForEpsilon(0.2), want, 1e-15)
	near(t, "δ(2)", p.DeltaForEpsilon(2), 0.05, 1e-15)
	// ε(δ) inverts δ(ε) on a continuum of targets.
	for _, d := range []float64{0.051, 0.06, 0.1, 0.15} { // all below δ(0) ≈ 0.1603
		e := p.EpsilonForDelta(d)
		near(t, "δ(ε(δ))", p.DeltaForEpsilon(e), d, 1e-14)
	}
	if e := p.EpsilonForDelta(0.04); !math.IsInf(e, 1) {
		t.Errorf("δ below the infinity mass: ε = %v, want +Inf", e)
	}
	if e := p.EpsilonForDelta(0.9); e != 0 {
		t.Errorf("δ ≥ δ(0): ε = %v, want 0", e)
	}
	near(t, "Survival(0)", p.Survival(0), 0.2+0.05+0.05, 1e-15)
	near(t, "DualSurvival(0)", p.DualSurvival(0), 0.2*math.Exp(-0.5)+0.05*math.Exp(-1), 1e-15)
	near(t, "Mass", p.Mass(), 1, 1e-15)
	var losses, probs []float64
	for l, q := range p.All() {
		losses = append(losses, l)
		probs = append(probs, q)
	}
	if len(losses) != 4 || losses[0] != -0.5 || losses[3] != 1 || probs[1] != 0.3 {
		t.Errorf("All() = %v, %v", losses, probs)
	}
	// NewPMF copies and validates.
	src := []float64{0.5, 0.5}
	q := must3(t)(NewPMF(1, 0, src, 0, false))
	src[0] = 9
	if q.Prob(0) != 0.5 {
		t.Error("NewPMF must copy probs")
	}
	for _, bad := range []struct {
		h     float64
		probs []float64
		inf   float64
	}{{0, []float64{1}, 0}, {1, []float64{-0.1, 1}, 0}, {1, []float64{0.7, 0.7}, 0}, {1, []float64{1}, 2}, {1, []float64{math.NaN()}, 0}} {
		if _, err := NewPMF(bad.h, 0, bad.probs, bad.inf, true); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewPMF(%v): err = %v, want ErrInvalid", bad, err)
		}
	}
	// Composition needs equal intervals and rounding.
	o := must3(t)(NewPMF(0.25, 0, []float64{1}, 0, true))
	if _, err := p.Compose(o, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("interval mismatch: err = %v", err)
	}
	if _, err := p.Compose(q, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("rounding mismatch: err = %v", err)
	}
	if _, err := p.SelfCompose(0, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("T = 0: err = %v", err)
	}
}

func TestTruncateTails(t *testing.T) {
	// dp_accounting _truncate_tails semantics: prefix and suffix of mass
	// ≤ tail/2 each; pessimistic moves the left mass up onto the first kept
	// point and the right mass to infinity.
	p := &PMF{interval: 1, offset: 0, probs: []float64{1e-12, 2e-12, 0.5, 0.5 - 6e-12, 3e-12}, pessimistic: true}
	p.truncateTails(1e-11)
	if p.Offset() != 2 || p.Len() != 2 {
		t.Fatalf("kept offset %d len %d", p.Offset(), p.Len())
	}
	near(t, "first kept", p.Prob(0), 0.5+3e-12, 1e-18)
	near(t, "infinity", p.InfinityMass(), 3e-12, 1e-18)
	o := &PMF{interval: 1, offset: 0, probs: []float64{1e-12, 2e-12, 0.5, 0.5 - 6e-12, 3e-12}}
	o.truncateTails(1e-11)
	near(t, "last kept (optimistic)", o.Prob(1), 0.5-3e-12, 1e-18)
	if o.InfinityMass() != 0 {
		t.Error("optimistic truncation must not add infinity mass")
	}
}

func TestMonotoneLossGeneric(t *testing.T) {
	// The Gaussian mechanism with sensitivity 1 and σ = 2 built from the
	// generic pieces (loss, inverse, CDFs; no hockey-stick shortcut), as a
	// caller outside the package would: P = N(−1, σ²), Q = N(0, σ²),
	// L(x) = (−½ − x)/σ². Its δ(ε) is known exactly (μ = 1/σ GDP).
	s := 2.0
	m := MonotoneLoss{
		Loss:        func(x float64) float64 { return (-0.5 - x) / (s * s) },
		InverseLoss: func(l float64) float64 { return -0.5 - s*s*l },
		CDF:         func(x float64) float64 { return numeric.NormCDF((x + 1) / s) },
		LowerLogCDF: func(x float64) float64 { return numeric.LogNormCDF(x / s) },
		XLow:        -12*s - 1, XHigh: 12 * s,
	}
	for _, e := range []float64{0, 0.5, 1, 2} {
		near(t, "generic δ", m.Delta(e), mustF(t)(GDPDelta(0.5, e)), 1e-12)
	}
	ctd, err := m.ConnectDots(1e-3)
	if err != nil {
		t.Fatal(err)
	}
	pessimisticBuckets, err := m.Buckets(1e-3, true)
	if err != nil {
		t.Fatal(err)
	}
	optimisticBuckets, err := m.Buckets(1e-3, false)
	if err != nil {
		t.Fatal(err)
	}
	// Composed 16 times the mechanism is (4/σ = 2)-GDP… here μ = √16/2 = 2.
	exact := mustF(t)(GDPEpsilon(2, 1e-5))
	up := must3(t)(ctd.SelfCompose(16, DefaultTailMass)).EpsilonForDelta(1e-5)
	upB := must3(t)(pessimisticBuckets.SelfCompose(16, DefaultTailMass)).EpsilonForDelta(1e-5)
	lo := must3(t)(optimisticBuckets.SelfCompose(16, DefaultTailMass)).EpsilonForDelta(1e-5)
	if !(lo <= exact && exact <= up && up <= upB) {
		t.Errorf("want optimistic %v ≤ exact %v ≤ connect-dots %v ≤ pessimistic buckets %v", lo, exact, up, upB)
	}
	if up-exact > 16e-3 || exact-lo > 16e-3 {
		t.Errorf("discretisation error beyond T·h: %v, %v", up-exact, exact-lo)
	}
}

func TestLossUnderOtherDistribution(t *testing.T) {
	// The bounds/ use case: the loss L = log(μ/ν) of one Poisson-subsampled
	// Gaussian step, μ = (1−q)N(0,σ²) + qN(1,σ²), ν = N(0,σ²) — mirrored
	// here to x → −x, which is the "remove" pair of the sampled Gaussian —
	// discretised once under μ and once under ν (Buckets with ν's CDF),
	// composed T times. Then P_ν[L > t] from the ν-PMF must match the dual
	// survival Σ e^{−l}P_μ[L = l] of the μ-PMF, which is exact for true
	// distributions; the two differ only by discretisation (≤ T·h in loss).
	q, s, T := 0.05, 1.0, 50
	lossMu := sampledGaussianLoss(q, s, false)
	lossNu := lossMu
	lossNu.CDF = func(x float64) float64 { return numeric.NormCDF(x / s) }
	h := 1e-4
	pmfMu := must3(t)(lossMu.Buckets(h, false))
	pmfNu := must3(t)(lossNu.Buckets(h, false))
	cMu := must3(t)(pmfMu.SelfCompose(T, DefaultTailMass))
	cNu := must3(t)(pmfNu.SelfCompose(T, DefaultTailMass))
	near(t, "ν-PMF mass", cNu.Mass(), 1, 1e-9)
	for _, thr := range []float64{0, 0.5, 1, 2} {
		direct := cNu.Survival(thr)
		dual := cMu.DualSurvival(thr)
		// Rounding every loss down by < h moves e^{−l} by a factor < e^{T·h}.
		if math.Abs(direct-dual) > (math.Exp(float64(T)*h)-1)*direct+1e-12 {
			t.Errorf("t=%v: P_ν[L>t] = %v from the ν-PMF, %v from the μ-PMF", thr, direct, dual)
		}
	}
}

func TestConnectDotsDualIdentity(t *testing.T) {
	// δ_{Q,P}(ε) = 1 − e^ε + e^ε·δ_{P,Q}(−ε) is exact for any pair, and the
	// sampled Gaussian's add pair is its remove pair reversed, so the add
	// PMF built from the remove curve (connectDotsDual) must equal the one
	// built from the add curve directly: same grid, masses to 1e-12
	// absolute (rounding of the two evaluation orders).
	for _, c := range []struct{ q, s float64 }{{mnistQ, 1.1}, {0.04, 1.35}, {0.9, 3}, {0.01, 0.5}} {
		rem := sampledGaussianLoss(c.q, c.s, false)
		_, dual, err := connectDotsDual(1e-3, rem.Loss(rem.XHigh), rem.Loss(rem.XLow), rem.split, MaxPMFLen)
		if err != nil {
			t.Fatal(err)
		}
		direct := must3(t)(sampledGaussianLoss(c.q, c.s, true).ConnectDots(1e-3))
		if dual.Offset() != direct.Offset() || dual.Len() != direct.Len() {
			t.Fatalf("q=%v σ=%v: grids differ: %d+%d vs %d+%d", c.q, c.s, dual.Offset(), dual.Len(), direct.Offset(), direct.Len())
		}
		for i := 0; i < dual.Len(); i++ {
			near(t, "dual add mass", dual.Prob(i), direct.Prob(i), 1e-12)
		}
		near(t, "dual add infinity mass", dual.InfinityMass(), direct.InfinityMass(), 1e-15)
	}
}

// TestMaxZeroIsMathMax: maxZero gives math.Max(v, 0)'s bits for every
// kind of value.
func TestMaxZeroIsMathMax(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 5e-324, -5e-324, 0.5, -0.5, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		if got, want := maxZero(v), math.Max(v, 0); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("maxZero(%v) = %x, math.Max gives %x", v, math.Float64bits(got), math.Float64bits(want))
		}
	}
}
