package recon

import (
	"errors"
	"math"
	"sort"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

func TestTopSum(t *testing.T) {
	r := rng.New(1, "test", "topsum")
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(40)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(7)) // ties on purpose
		}
		k := 1 + r.IntN(n)
		s := append([]float64(nil), x...)
		sort.Sort(sort.Reverse(sort.Float64Slice(s)))
		var want float64
		for _, v := range s[:k] {
			want += v
		}
		if got := topSum(x, k); got != want {
			t.Fatalf("topSum(%v, %d) = %v, want %v", s, k, got, want)
		}
	}
}

func TestStepLLR(t *testing.T) {
	for _, c := range []struct{ z, q float64 }{{0.3, 0.02}, {-5, 0.5}, {40, 0.01}, {200, 0.3}, {-800, 0.1}} {
		want := math.Log(1 - c.q + c.q*math.Exp(c.z))
		if math.IsInf(want, 1) {
			want = c.z + math.Log(c.q) // e^z overflows; the exact value is z + ln q + O(e^−z)
		}
		if got := stepLLR(c.z, c.q); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("stepLLR(%v, %v) = %v, want %v", c.z, c.q, got, want)
		}
	}
}

// The log-likelihood kept as a folded product equals the plain sum of
// per-step terms (Appendix G's s_z).
func TestEvidenceLogLikelihood(t *testing.T) {
	const n, T, q, sigma = 3, 400, 0.05, 0.3
	e, err := NewEvidence(n, T, q, sigma)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(2, "test", "llr")
	want := make([]float64, n)
	for step := 0; step < T; step++ {
		dots, sq := make([]float64, n), make([]float64, n)
		for i := range dots {
			dots[i], sq[i] = 3*r.NormFloat64(), r.Float64()
			want[i] += math.Log(1 - q + q*math.Exp((2*dots[i]-sq[i])/(2*sigma*sigma)))
		}
		if err := e.Observe(dots, sq); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]float64, n)
	e.Scores(RuleLogLikelihood, got, make([]float64, T))
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
			t.Errorf("candidate %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestDecide(t *testing.T) {
	d := Decide([]float64{1, 3, 2, 3}, 2)
	if d.Guess != 1 || d.Rank != 2 || d.Margin != -1 {
		t.Fatalf("Decide = %+v, want guess 1, rank 2, margin −1", d)
	}
	d = Decide([]float64{1, 5, 2}, 1)
	if d.Guess != 1 || d.Rank != 0 || d.Margin != 3 {
		t.Fatalf("Decide = %+v, want guess 1, rank 0, margin 3", d)
	}
}

// TestIdealSuccessFullBatch checks the closed form against the reference
// note §2.7: n = 10, μ = √T/σ = 2.0004 (ε = 10 at q = 1, T = 100) gives
// 0.6738 against the bound 0.7639; antipodal n = 2 gives Φ(μ).
func TestIdealSuccessFullBatch(t *testing.T) {
	if got := IdealSuccessFullBatch(10, 100, 4.9989, Orthogonal); math.Abs(got-0.6738) > 5e-4 {
		t.Errorf("n = 10, μ = 2.0004: %v, want 0.6738", got)
	}
	if got, want := IdealSuccessFullBatch(2, 100, 10, Antipodal), numeric.NormCDF(1); got != want {
		t.Errorf("antipodal: %v, want Φ(1) = %v", got, want)
	}
	// n = 2 orthogonal: the difference of the two scores is N(T, 2Tσ²).
	if got, want := IdealSuccessFullBatch(2, 100, 10, Orthogonal), numeric.NormCDF(1/math.Sqrt2); math.Abs(got-want) > 1e-9 {
		t.Errorf("n = 2 orthogonal: %v, want Φ(1/√2) = %v", got, want)
	}
}

// successOf counts rule r's correct guesses.
func successOf(out []Outcome, r Rule) int {
	k := 0
	for _, o := range out {
		if o.Decisions[r].Guess == o.Target {
			k++
		}
	}
	return k
}

// inInterval asserts that p lies in the two-sided Clopper–Pearson
// interval of k successes in n at 99.9% confidence.
func inInterval(t *testing.T, what string, k, n int, p float64) {
	t.Helper()
	lo, _ := audit.ClopperPearsonLower(k, n, 0.999, audit.TwoSided)
	hi, _ := audit.ClopperPearsonUpper(k, n, 0.999, audit.TwoSided)
	if p < lo || p > hi {
		t.Errorf("%s: %d/%d = %.4f, interval [%.4f, %.4f] misses %.4f", what, k, n, float64(k)/float64(n), lo, hi, p)
	}
}

// TestIdealMatchesClosedForm: the simulated success equals the closed
// form within the interval, by the sufficient-statistic path (q = 1) and
// by the per-step path (forced at q = 1), orthogonal and antipodal.
func TestIdealMatchesClosedForm(t *testing.T) {
	const trials = 40000
	for _, c := range []struct {
		n     int
		geo   Geometry
		sigma float64
	}{{10, Orthogonal, 4.9989}, {2, Antipodal, 10.8116}, {32, Orthogonal, 3}} {
		g := Ideal{PriorSize: c.n, Geometry: c.geo, SamplingRate: 1, Steps: 100, NoiseMultiplier: c.sigma}
		want := IdealSuccessFullBatch(c.n, 100, c.sigma, c.geo)
		out, err := SimulateIdeal(g, 7, []any{"test"}, 0, trials, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Rules {
			inInterval(t, "fast "+r.String(), successOf(out, r), trials, want)
		}
		w := g.newWorker()
		w.perStep = true
		k := 0
		const slow = 4000
		for i := 0; i < slow; i++ {
			o := w.trial(rng.New(8, "test", i))
			if o.Decisions[RuleSum].Guess == o.Target {
				k++
			}
		}
		inInterval(t, "per-step", k, slow, want)
	}
}

// TestIdealAntipodalAttainsBound: at n = 2 antipodal and q = 1 the attack's
// success is the ReRo bound Φ(Φ⁻¹(½) + √T/σ) (reference note §2.7).
func TestIdealAntipodalAttainsBound(t *testing.T) {
	sigma := 10.8116 // ε = 4 at q = 1, T = 100: bound 0.8225 at n = 2 (§5.3)
	g := Ideal{PriorSize: 2, Geometry: Antipodal, SamplingRate: 1, Steps: 100, NoiseMultiplier: sigma}
	out, err := SimulateIdeal(g, 3, []any{"anti"}, 0, 100000, 0)
	if err != nil {
		t.Fatal(err)
	}
	inInterval(t, "antipodal", successOf(out, RuleSum), len(out), 0.8225)
}

// TestIdealMinibatchRules: at q < 1 Algorithm 3 and the log-likelihood rule
// beat Algorithm 2, and none exceeds the ReRo bound (0.1867 at ε = 4,
// q = 0.01, σ = 0.5908, n = 10; reference note §5.3).
func TestIdealMinibatchRules(t *testing.T) {
	g := Ideal{PriorSize: 10, SamplingRate: 0.01, Steps: 100, NoiseMultiplier: 0.590762}
	const trials = 20000
	out, err := SimulateIdeal(g, 5, []any{"mb"}, 0, trials, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum, top, llr := successOf(out, RuleSum), successOf(out, RuleTopSteps), successOf(out, RuleLogLikelihood)
	t.Logf("q = 0.01: sum %.4f, top %.4f, llr %.4f (bound 0.1867)", float64(sum)/trials, float64(top)/trials, float64(llr)/trials)
	if !(top > sum && llr > sum) {
		t.Errorf("expected Algorithm 3 (%d) and the log-likelihood rule (%d) to beat Algorithm 2 (%d)", top, llr, sum)
	}
	for _, k := range []int{sum, top, llr} {
		lo, _ := audit.ClopperPearsonLower(k, trials, 0.999, audit.TwoSided)
		if lo > 0.1867+0.002 {
			t.Errorf("success %d/%d above the ReRo bound 0.1867", k, trials)
		}
	}
}

// TestIdealDeterministic: outcomes depend on the trial index only.
func TestIdealDeterministic(t *testing.T) {
	g := Ideal{PriorSize: 5, SamplingRate: 0.3, Steps: 20, NoiseMultiplier: 1}
	a, _ := SimulateIdeal(g, 1, []any{"d"}, 0, 3000, 1)
	b, _ := SimulateIdeal(g, 1, []any{"d"}, 1000, 2000, 3)
	for k := range b {
		x, y := a[1000+k], b[k]
		x.TargetGradNorm, y.TargetGradNorm = 0, 0 // NaN for the ideal game
		if x != y {
			t.Fatalf("trial %d differs between runs: %+v vs %+v", 1000+k, a[1000+k], b[k])
		}
	}
}

func TestIdealValidate(t *testing.T) {
	for _, g := range []Ideal{
		{PriorSize: 1, SamplingRate: 1, Steps: 1, NoiseMultiplier: 1},
		{PriorSize: 3, Geometry: Antipodal, SamplingRate: 1, Steps: 1, NoiseMultiplier: 1},
		{PriorSize: 3, SamplingRate: 0, Steps: 1, NoiseMultiplier: 1},
		{PriorSize: 3, SamplingRate: 1, Steps: 1, NoiseMultiplier: 0},
	} {
		if err := g.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", g, err)
		}
	}
}

// digits returns the embedded digits split, flattened.
func digits(t testing.TB) *datasets.Split {
	t.Helper()
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceDigits, TestFraction: 0.25}, datasets.Options{Flatten: true, Normalize: "auto"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func smallGame(t testing.TB, sigma, q float64, steps, n int, observe attack.Observation) *Game {
	t.Helper()
	s := digits(t)
	D := 64
	g, err := NewGame(Config{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{10}, Activation: learn.ELU}, InShape: s.Train.Shape, Classes: 10,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: sigma, SamplingRate: q, Steps: steps, LearningRate: 0.5, Momentum: 0.5},
		X:     s.Train.X[:199*D], Y: s.Train.Y[:199], PoolX: s.Test.X, PoolY: s.Test.Y,
		PriorSize: n, Observe: observe, InitSeed: 11,
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestTrainedAttack: on a small MLP with little noise the prior-aware
// attack finds the target almost always; with a lot of noise it is near
// the baseline 1/n and never above the ReRo bound; the model-only view
// (inverting the update, with momentum) decides like the gradient view.
func TestTrainedAttack(t *testing.T) {
	const trials, n = 60, 8
	run := func(g *Game) []Outcome {
		out := make([]Outcome, trials)
		for i := range out {
			o, err := g.RunTrialIndex(1, "p", i)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = o
		}
		return out
	}
	low := run(smallGame(t, 0.5, 1, 10, n, attack.ObserveGradients))
	if k := successOf(low, RuleSum); k < trials*9/10 {
		t.Errorf("σ = 0.5: %d/%d correct, want ≥ 90%%", k, trials)
	}
	inv := run(smallGame(t, 0.5, 1, 10, n, attack.ObserveIntermediateModels))
	for i := range inv {
		if inv[i].Decisions[RuleSum].Guess != low[i].Decisions[RuleSum].Guess {
			t.Errorf("trial %d: model-only view guessed %d, gradient view %d", i, inv[i].Decisions[RuleSum].Guess, low[i].Decisions[RuleSum].Guess)
		}
	}
	for _, o := range low {
		if o.TargetSteps != 10 || !(o.TargetGradNorm > 0 && o.TargetGradNorm <= 1+1e-6) {
			t.Fatalf("q = 1: target in %d of 10 steps, mean clipped norm %v", o.TargetSteps, o.TargetGradNorm)
		}
	}
	high := run(smallGame(t, 20, 1, 10, n, attack.ObserveGradients))
	k := successOf(high, RuleSum)
	lo, _ := audit.ClopperPearsonLower(k, trials, 0.999, audit.TwoSided)
	bound := numeric.NormCDF(-1.1503493803760079 + math.Sqrt(10)/20) // Φ(Φ⁻¹(1/8) + √T/σ)
	if lo > bound {
		t.Errorf("σ = 20: %d/%d correct, above the bound %.3f", k, trials, bound)
	}
}

func TestGameBadInput(t *testing.T) {
	s := digits(t)
	base := Config{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{4}}, InShape: s.Train.Shape, Classes: 10,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 1, Steps: 2, LearningRate: 0.1},
		X:     s.Train.X, Y: s.Train.Y, PoolX: s.Test.X, PoolY: s.Test.Y, PriorSize: 4, Observe: attack.ObserveGradients,
	}
	bad := map[string]func(c *Config){
		"prior 1":        func(c *Config) { c.PriorSize = 1 },
		"prior too big":  func(c *Config) { c.PriorSize = len(s.Test.Y) + 1 },
		"final model":    func(c *Config) { c.Observe = attack.ObserveFinalModel },
		"pool shape":     func(c *Config) { c.PoolX = c.PoolX[:len(c.PoolX)-1] },
		"no noise":       func(c *Config) { c.DPSGD.NoiseMultiplier = 0 },
		"frozen, models": func(c *Config) { c.Observe, c.DPSGD.LearningRate = attack.ObserveIntermediateModels, 0 },
		"soft clip":      func(c *Config) { c.DPSGD.Clip = learn.ClipSoft },
	}
	for name, f := range bad {
		c := base
		f(&c)
		if _, err := NewGame(c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
}

// A uniform-noise prior (Hayes et al. Fig. 9) has the pool's mean pairwise
// distance, stays in the pixel range, and the attack still works on it.
func TestUniformNoisePrior(t *testing.T) {
	s := digits(t)
	g, err := NewGame(Config{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{10}, Activation: learn.ELU}, InShape: s.Train.Shape, Classes: 10,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 1, Steps: 10, LearningRate: 0.5},
		X:     s.Train.X[:199*64], Y: s.Train.Y[:199], PoolX: s.Test.X, PoolY: s.Test.Y,
		PriorSize: 8, Prior: PriorUniformNoise, Observe: attack.ObserveGradients, InitSeed: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !(g.noiseSc > 0 && g.noiseMid-g.noiseSc/2 >= -1e-6 && g.noiseMid+g.noiseSc/2 <= 1+1e-6) {
		t.Fatalf("noise prior mid %v scale %v leaves [0, 1]", g.noiseMid, g.noiseSc)
	}
	k := 0
	for i := 0; i < 30; i++ {
		o, err := g.RunTrialIndex(1, "noise", i)
		if err != nil {
			t.Fatal(err)
		}
		if o.Record != -1 {
			t.Fatalf("noise prior has pool record %d", o.Record)
		}
		if o.Decisions[RuleSum].Guess == o.Target {
			k++
		}
	}
	if k < 24 {
		t.Errorf("σ = 0.5: %d/30 correct on a noise prior, want ≥ 80%%", k)
	}
}

// The inversion's input gradient (a central difference of input gradients
// along the parameter direction) matches the directional derivative of
// Eq. 1's loss taken by finite differences of the loss itself.
func TestInversionGradient(t *testing.T) {
	s := digits(t)
	m, err := learn.NewModel(learn.Arch{Kind: learn.KindMLP, Hidden: []int{10}, Activation: learn.ELU}, s.Train.Shape, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(3, "test", "inv")
	iv := newInverter(Inversion{Steps: 1, LearningRate: 0.01, Restarts: 1}, m, 1, 3, 2)
	P := m.NumParams()
	for range 3 {
		th, gb := make([]float32, P), make([]float32, P)
		for k := range th {
			th[k] = float32(0.3 * r.NormFloat64())
			gb[k] = float32(0.05 * r.NormFloat64())
		}
		iv.record(th, gb)
	}
	x, dir := make([]float32, 64), make([]float32, 64)
	for j := range x {
		x[j], dir[j] = float32(0.2+0.6*r.Float64()), float32(r.NormFloat64())
	}
	if _, err := iv.lossGrad(x); err != nil {
		t.Fatal(err)
	}
	var want float64
	for j := range x {
		want += float64(iv.gradX[j]) * float64(dir[j])
	}
	const h = 1e-3
	xp, xm := make([]float32, 64), make([]float32, 64)
	for j := range x {
		xp[j], xm[j] = x[j]+h*dir[j], x[j]-h*dir[j]
	}
	lp, _ := iv.lossGrad(xp)
	lm, _ := iv.lossGrad(xm)
	got := (lp - lm) / (2 * h)
	if math.Abs(got-want) > 0.05*math.Abs(want)+1e-3 {
		t.Fatalf("directional derivative %v by loss differences, %v by the inversion's gradient", got, want)
	}
}

// With little noise the gradient inversion reconstructs well enough to
// name the target among the candidates much more often than 1/n.
func TestInversionAttack(t *testing.T) {
	s := digits(t)
	g, err := NewGame(Config{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{10}, Activation: learn.ELU}, InShape: s.Train.Shape, Classes: 10,
		DPSGD: learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.3, SamplingRate: 1, Steps: 5, LearningRate: 0.5},
		X:     s.Train.X[:99*64], Y: s.Train.Y[:99], PoolX: s.Test.X, PoolY: s.Test.Y,
		PriorSize: 8, Observe: attack.ObserveGradients, InitSeed: 2,
		Inversion: &Inversion{Steps: 60, LearningRate: 0.05, Restarts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	k, mse := 0, 0.0
	const trials = 20
	for i := 0; i < trials; i++ {
		o, err := g.RunTrialIndex(1, "inv", i)
		if err != nil {
			t.Fatal(err)
		}
		if o.Inversion.Decision.Guess == o.Target {
			k++
		}
		mse += o.Inversion.MSE / trials
	}
	t.Logf("gradient inversion: %d/%d nearest-candidate successes, MSE %.4f", k, trials, mse)
	if k < 8 {
		t.Errorf("%d/%d successes, want well above 1/8", k, trials)
	}
}
