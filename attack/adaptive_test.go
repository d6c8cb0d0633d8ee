package attack

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// handLogReg is a float64 logistic regression (K logits, D features,
// weights class-major then biases; K = 1 is the sigmoid head), written
// independently of package learn to check the poisoner.
type handLogReg struct{ K, D int }

func (h handLogReg) logits(theta []float64, x []float64) []float64 {
	z := make([]float64, h.K)
	for k := range z {
		z[k] = theta[h.K*h.D+k]
		for j, xj := range x {
			z[k] += theta[k*h.D+j] * xj
		}
	}
	return z
}

// residual returns r = ∂ℓ/∂z and the loss.
func (h handLogReg) residual(theta, x []float64, y int) ([]float64, float64) {
	z := h.logits(theta, x)
	if h.K == 1 {
		s := 1 / (1 + math.Exp(-z[0]))
		return []float64{s - float64(y)}, math.Log1p(math.Exp(-math.Abs(z[0]))) + math.Max(z[0], 0) - float64(y)*z[0]
	}
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	var tot float64
	for _, v := range z {
		tot += math.Exp(v - mx)
	}
	r := make([]float64, h.K)
	for k, v := range z {
		r[k] = math.Exp(v-mx) / tot
	}
	loss := -math.Log(r[y])
	r[y]--
	return r, loss
}

func (h handLogReg) grad(theta, x []float64, y int) []float64 {
	r, _ := h.residual(theta, x, y)
	g := make([]float64, len(theta))
	for k := 0; k < h.K; k++ {
		for j, xj := range x {
			g[k*h.D+j] = r[k] * xj
		}
		g[h.K*h.D+k] = r[k]
	}
	return g
}

// objective is L(x) = ℓ(θ − η·c(x)·g(x), x_q, y_q) with c = min(1, C/‖g‖).
func (h handLogReg) objective(theta, x []float64, y int, xq []float64, yq int, eta, C float64, clip bool) float64 {
	g := h.grad(theta, x, y)
	var n float64
	for _, v := range g {
		n += v * v
	}
	c := 1.0
	if clip && math.Sqrt(n) > C {
		c = C / math.Sqrt(n)
	}
	t2 := make([]float64, len(theta))
	for i := range theta {
		t2[i] = theta[i] - eta*c*g[i]
	}
	_, l := h.residual(t2, xq, yq)
	return l
}

// TestAdaptivePoisonGradient checks Crafter 3's double backpropagation
// (note §3.4), ∇_x ℓ(θ − η·clip_C(∇_θ ℓ(θ, x, y)), x_q, y_q), computed by
// the closed form and by finite-difference Hessian-vector products,
// against central differences (step 1e-5) of a float64 logistic
// regression written independently in this test. Softmax (3 classes) and
// sigmoid heads, with the clip active and ignored. Tolerances: 1e-3
// relative (closed form; float32 parameters), 2e-2 (finite differences of
// float32 input gradients).
func TestAdaptivePoisonGradient(t *testing.T) {
	const D = 5
	r := rng.New(1, "test", "adaptive")
	for _, K := range []int{3, 2} {
		m, err := learn.NewModel(learn.Arch{Kind: learn.KindLogReg}, []int{D}, K, 7)
		if err != nil {
			t.Fatal(err)
		}
		theta32 := m.Params()
		for i := range theta32 { // larger weights: a curved loss
			theta32[i] *= 4
		}
		h := handLogReg{K: K, D: D}
		if K == 2 {
			h.K = 1 // a 2-class logreg has the sigmoid head
		}
		theta := make([]float64, len(theta32))
		for i, v := range theta32 {
			theta[i] = float64(v)
		}
		x32, xq32 := make([]float32, D), make(Floats, D)
		x, xq := make([]float64, D), make([]float64, D)
		for j := 0; j < D; j++ {
			x32[j], xq32[j] = float32(r.NormFloat64()), float32(r.NormFloat64())
			x[j], xq[j] = float64(x32[j]), float64(xq32[j])
		}
		y, yq := 0, 1
		for _, clip := range []bool{true, false} {
			const eta, C = 0.7, 0.3
			want := make([]float64, D)
			for j := range x {
				const step = 1e-5
				xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
				xp[j] += step
				xm[j] -= step
				want[j] = (h.objective(theta, xp, y, xq, yq, eta, C, clip) - h.objective(theta, xm, y, xq, yq, eta, C, clip)) / (2 * step)
			}
			for _, method := range []string{MethodClosedForm, MethodFiniteDifference} {
				plan := &AdaptivePlan{InnerSteps: 1, InputStepSize: 0.1, VirtualLR: eta, Label: int32(y), ClipInVirtual: clip, Method: method}
				p, err := newPoisoner(m, plan, &Record{X: xq32, Y: int32(yq)}, learn.DPSGD{ClipNorm: C})
				if err != nil {
					t.Fatal(err)
				}
				if (p.lr != nil) != (method == MethodClosedForm) {
					t.Fatalf("%s: closed form used = %v", method, p.lr != nil)
				}
				got := make([]float64, D)
				after, err := p.objectiveGradient(theta32, x32, int32(y), got)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-3
				if method == MethodFiniteDifference {
					tol = 2e-2
				}
				if l := h.objective(theta, x, y, xq, yq, eta, C, clip); math.Abs(after-l) > 1e-5*math.Max(1, l) {
					t.Errorf("K=%d clip=%v %s: loss after the virtual step %v, want %v", K, clip, method, after, l)
				}
				var scale float64
				for _, v := range want {
					scale = math.Max(scale, math.Abs(v))
				}
				for j := range want {
					if math.Abs(got[j]-want[j]) > tol*scale {
						t.Errorf("K=%d clip=%v %s: ∂L/∂x[%d] = %.6g, want %.6g (scale %.3g)", K, clip, method, j, got[j], want[j], scale)
					}
				}
			}
		}
	}
}

// TestJacobianProductOnMLP checks the finite-difference Hessian-vector
// product Jᵀw = ∇_x⟨∇_θ ℓ(θ, x, y), w⟩ on a tanh MLP (no closed form) by a
// second, independent route: central differences in x (step 1e-2) of
// ⟨g(x), w⟩ with g from learn's per-example gradients. Both are float32
// finite differences; tolerance 3e-2 of the largest component.
func TestJacobianProductOnMLP(t *testing.T) {
	const D = 6
	m, err := learn.NewModel(learn.Arch{Kind: learn.KindMLP, Hidden: []int{7}, Activation: learn.Tanh}, []int{D}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(2, "test", "jac")
	P := m.NumParams()
	w := make([]float32, P)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	x := make([]float32, D)
	for j := range x {
		x[j] = float32(r.NormFloat64())
	}
	plan := &AdaptivePlan{InnerSteps: 1, InputStepSize: 0.1, VirtualLR: 0.1, Method: MethodFiniteDifference}
	p, err := newPoisoner(m, plan, &Record{X: make(Floats, D)}, learn.DPSGD{ClipNorm: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, D)
	if err := p.jacTVec(m.Params(), w, x, 1, got); err != nil {
		t.Fatal(err)
	}
	g := make([]float32, P)
	dot := func(xx []float32) float64 {
		if err := m.PerExampleGradients(xx, []int32{1}, g, nil); err != nil {
			t.Fatal(err)
		}
		var s float64
		for i := range g {
			s += float64(g[i]) * float64(w[i])
		}
		return s
	}
	want := make([]float64, D)
	var scale float64
	for j := range x {
		const step = 1e-2
		xp, xm := append([]float32(nil), x...), append([]float32(nil), x...)
		xp[j] += step
		xm[j] -= step
		want[j] = (dot(xp) - dot(xm)) / (2 * step)
		scale = math.Max(scale, math.Abs(want[j]))
	}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 3e-2*scale {
			t.Errorf("Jᵀw[%d] = %.5g by θ-differences, %.5g by x-differences", j, got[j], want[j])
		}
	}
}

// TestAdaptivePoisonGame: the adaptive poison (Crafter 3, §IV-D) lowers
// the query's loss over the intermediate models when it is trained on, so
// the mean-loss Distinguisher 2 scores world 1 lower. Logistic regression
// (closed form), 40 trials: AUC of "world 1 higher" ≤ 0.25 (40 trials of a
// no-signal game give 0.5 ± 0.09).
func TestAdaptivePoisonGame(t *testing.T) {
	X, Y := blob(1, 100, 10, 2)
	PX, PY := blob(2, 100, 10, 2)
	arch := learn.Arch{Kind: learn.KindLogReg}
	cfg := learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 0.2, Steps: 100, LearningRate: 0.5}
	in := CraftInput{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y, PoolX: PX, PoolY: PY, Seed: 3, InitSeed: 4}
	cr, err := AdaptivePoison{Static: StaticPoison{Shadows: 2, Steps: 20}}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Adaptive == nil || cr.Adaptive.VirtualLR != 0.5/(0.2*100) {
		t.Fatalf("plan %+v: want the default virtual lr η/(q·N) = 0.025", cr.Adaptive)
	}
	g, err := NewGame(GameConfig{Arch: arch, InShape: []int{10}, Classes: 2, DPSGD: cfg, X: X, Y: Y,
		Crafted: cr, Distinguisher: IntermediateLoss{Reduce: ReduceMean}, Threat: ThreatModels["adaptive_poison"]})
	if err != nil {
		t.Fatal(err)
	}
	res := runTrials(t, g, 9, 40)
	m0, m1 := meanScore(res)
	if a := auc(res); a > 0.25 {
		t.Errorf("AUC %.3f (mean query loss %.3f without, %.3f with the poison), want ≤ 0.25", a, m0, m1)
	}
}

// TestAdaptivePoisonRewritesEveryStep: in world 1 the differing record is
// regenerated before every step from θ_t, so different steps see different
// poisons; in world 0 no record is added.
func TestAdaptivePoisonRewritesEveryStep(t *testing.T) {
	X, Y := blob(1, 60, 4, 2)
	m, err := learn.NewModel(learn.Arch{Kind: learn.KindLogReg}, []int{4}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	plan := &AdaptivePlan{InnerSteps: 3, InputStepSize: 0.5, VirtualLR: 0.05, Label: 1, Normalize: true, ClipInVirtual: true, Method: MethodAuto}
	p, err := newPoisoner(m, plan, &Record{X: Floats{1, 1, 1, 1}, Y: 1}, learn.DPSGD{ClipNorm: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[4]float32]bool{}
	h := &learn.Hooks{Target: &learn.Record{X: make([]float32, 4), Y: 1}, BeforeStep: func(s int, params []float32, tg *learn.Record) error {
		if err := p.beforeStep(s, params, tg); err != nil {
			return err
		}
		seen[[4]float32(tg.X)] = true
		return nil
	}}
	cfg := learn.DPSGD{ClipNorm: 1, NoiseMultiplier: 0.5, SamplingRate: 0.2, Steps: 20, LearningRate: 0.5}
	if _, err := learn.Train(m, X, Y, cfg, rng.New(1), h); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Errorf("%d distinct poisons over 20 steps, want one per step (parameters change every step)", len(seen))
	}
}
