package glm

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// The toy problem of the Guo et al. notes §6 (facts F18–F24): four samples
// in R², y = [1, 0, 1, 0], λ = 0.1, objective Σ BCE + (nλ/2)‖θ‖².
var (
	toyX = []float32{0.2, 0.9, 0.8, 0.1, 0.5, 0.5, 0.1, 0.3}
	toyY = []int32{1, 0, 1, 0}
)

const toyLambda = 0.1

func toyData(t *testing.T, bias bool) *Data {
	t.Helper()
	// The notes' numbers are for these float64 values; float32 storage
	// would move θ* by ~1e-8, so rebuild the rows exactly.
	g, err := NewData(toyX, toyY, 4, 2, bias)
	if err != nil {
		t.Fatal(err)
	}
	exact := []float64{0.2, 0.9, 0.8, 0.1, 0.5, 0.5, 0.1, 0.3}
	for i := 0; i < 4; i++ {
		cols, vals := g.Row(i)
		for k, c := range cols {
			if bias && c == 0 {
				continue
			}
			off := 0
			if bias {
				off = 1
			}
			vals[k] = exact[i*2+int(c)-off]
		}
	}
	return g
}

func near(t *testing.T, what string, got, want, abs float64) {
	t.Helper()
	if math.Abs(got-want) > abs {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, abs)
	}
}

func rel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.12g, want %.12g (rel %g)", what, got, want, tol)
	}
}

// F18, F19: θ* with and without the bias column (abs 1e-9).
func TestFitToy(t *testing.T) {
	for _, c := range []struct {
		bias bool
		want []float64
	}{
		{true, []float64{-0.236221219459, -0.204582672039, 0.923138617487}},
		{false, []float64{-0.324806317754, 0.795640256912}},
	} {
		sol, err := Fit(toyData(t, c.bias), toyLambda, 1e-13, 50)
		if err != nil {
			t.Fatal(err)
		}
		if !sol.Converged {
			t.Errorf("bias=%v: not converged, ‖∇F‖ = %g", c.bias, sol.GradNorm)
		}
		for k, w := range c.want {
			near(t, "θ*", sol.Theta[k], w, 1e-9)
		}
	}
}

// F22, F23: per-sample dFIL at σ = 1 (rel 1e-6), and η̄² ∝ σ⁻².
func TestDFILToy(t *testing.T) {
	for _, c := range []struct {
		bias bool
		want []float64
	}{
		{true, []float64{0.4030656538, 0.5967042499, 0.8489745804, 0.985496826}},
		{false, []float64{0.211378652, 0.4614036072, 0.5057262186, 0.8888121028}},
	} {
		g := toyData(t, c.bias)
		sol, err := Fit(g, toyLambda, 1e-13, 50)
		if err != nil {
			t.Fatal(err)
		}
		jn, err := JacobianNorms(g, toyLambda, sol.Theta)
		if err != nil {
			t.Fatal(err)
		}
		op := OutputPerturbation{Noise: NoiseGaussian, Scale: 0.01}
		for i, w := range c.want {
			rel(t, "dFIL", jn[i], w, 1e-6)
			rel(t, "dFIL at σ=0.01", op.FisherScale(g.P)*jn[i], 1e4*w, 1e-6)
			// The closed form equals the dense Jacobian's Frobenius norm.
			j, err := Jacobian(g, toyLambda, sol.Theta, i)
			if err != nil {
				t.Fatal(err)
			}
			var fro float64
			r, cc := j.Dims()
			for a := 0; a < r; a++ {
				for b := 0; b < cc; b++ {
					fro += j.At(a, b) * j.At(a, b)
				}
			}
			rel(t, "dense ‖J‖²/d", fro/float64(cc), jn[i], 1e-12)
		}
	}
}

// F24: ∂θ*/∂x₀ of the no-bias model equals central finite differences.
func TestJacobianToy(t *testing.T) {
	g := toyData(t, false)
	sol, err := Fit(g, toyLambda, 1e-13, 50)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Jacobian(g, toyLambda, sol.Theta, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [2][2]float64{{0.56796089, -0.11694572}, {-0.01146807, 0.29388758}} // [θ index][input coord]
	for r := 0; r < 2; r++ {
		for c := 0; c < 2; c++ {
			near(t, "J", j.At(r, c), want[r][c], 1e-7)
		}
	}
}

// Newton on MNIST-like sparse data with the bias reaches a small gradient.
func TestFitRejectsBadLambda(t *testing.T) {
	g := toyData(t, true)
	for _, l := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := Fit(g, l, 1e-9, 10); err == nil {
			t.Errorf("λ = %v accepted", l)
		}
	}
}

// The ℓ2-Laplace radius is Gamma(P, s): mean P·s, variance P·s².
func TestLaplaceRadius(t *testing.T) {
	r := rng.New(1, "laplace-test")
	op := OutputPerturbation{Noise: NoiseLaplace, Scale: 0.5}
	p := 7
	theta := make([]float64, p)
	const n = 40000
	var s, ss float64
	buf := make([]float64, p)
	for k := 0; k < n; k++ {
		op.Release(theta, r, buf)
		var n2 float64
		for _, v := range buf {
			n2 += v * v
		}
		x := math.Sqrt(n2)
		s += x
		ss += x * x
	}
	mean := s / n
	vr := ss/n - mean*mean
	// 5 standard errors of the mean (sd √P·s/√n).
	near(t, "E‖b‖", mean, float64(p)*0.5, 5*math.Sqrt(float64(p))*0.5/math.Sqrt(n))
	rel(t, "Var‖b‖", vr, float64(p)*0.25, 0.05)
}

// Notes fact 16 (Mukherjee): σ²(n−t+1)/G² ≥ 96.06176384 at ε = 1,
// δ = 1e-5; PNSGDEpsilon inverts PNSGDCalibrate.
func TestPNSGDAccounting(t *testing.T) {
	for _, c := range []struct{ eps, want float64 }{{0.5, 376.3711036}, {1, 96.06176384}, {1.5, 43.56070126}, {2, 24.98582824}} {
		s := PNSGDCalibrate(1, c.eps, 1, 1, 1e-5)
		rel(t, "σ²", s*s, c.want, 1e-8)
		rel(t, "ε", PNSGDEpsilon(1, s, 1, 1, 1e-5), c.eps, 1e-10)
	}
	// Later positions are less private.
	s := PNSGDCalibrate(2, 1, 100, 1, 1e-5)
	if e := PNSGDEpsilon(2, s, 100, 50, 1e-5); !(e > 1) {
		t.Errorf("position 50 has ε = %g, want > 1", e)
	}
}

// PNSGD with no noise and a large radius approaches θ* of the same
// (per-sample) objective after many passes; here one pass must at least
// stay in the ball and be deterministic for a seed.
func TestPNSGDProjection(t *testing.T) {
	g := toyData(t, true)
	c := PNSGD{Lambda: 0.1, LearningRate: 0.5, NoiseStd: 10, Radius: 0.3}
	a := c.Run(g, rng.New(3, "p"), nil)
	b := c.Run(g, rng.New(3, "p"), nil)
	var n2 float64
	for k := range a {
		n2 += a[k] * a[k]
		if a[k] != b[k] {
			t.Fatal("not deterministic")
		}
	}
	if math.Sqrt(n2) > 0.3+1e-12 {
		t.Errorf("‖w‖ = %g outside the ball", math.Sqrt(n2))
	}
}

// F25–F28 of the Guo notes: the soft-clipped per-step FIM of binary
// logistic loss at w = [0.5, −0.3], x = [1, 2], y = 1, σ = 1 (rel 1e-6).
func TestSoftClipFILToy(t *testing.T) {
	w, x := []float64{0.5, -0.3}, []float64{1, 2}
	trace := func(f interface{ At(int, int) float64 }) float64 { return (f.At(0, 0) + f.At(1, 1)) / 2 }
	spectral := func(f interface{ At(int, int) float64 }) float64 {
		a, b, d := f.At(0, 0), f.At(0, 1), f.At(1, 1)
		return (a+d)/2 + math.Sqrt((a-d)*(a-d)/4+b*b)
	}
	g, j, fim := SoftClipFIL(w, x, 1, 1, 1, GELUTanh)
	rel(t, "F25 g̃[0]", g[0], -0.477711213, 1e-6)
	rel(t, "F25 g̃[1]", g[1], -0.955422427, 1e-6)
	wantJ := [2][2]float64{{-0.376449388, 0.108363196}, {0.20252365, -0.260984821}}
	for r := 0; r < 2; r++ {
		for c := 0; c < 2; c++ {
			rel(t, "F25 J", j.At(r, c), wantJ[r][c], 1e-6)
		}
	}
	rel(t, "F25 Tr/d", trace(fim), 0.131292815, 1e-6)
	rel(t, "F25 ‖I‖₂", spectral(fim), 0.238137981, 1e-6)
	_, _, fim = SoftClipFIL(w, x, 1, 1, 1, GELUErf)
	rel(t, "F26 Tr/d", trace(fim), 0.131291993, 1e-6)
	rel(t, "F26 ‖I‖₂", spectral(fim), 0.238137369, 1e-6)
	g, _, fim = SoftClipFIL(w, x, 1, 0.5, 1, GELUTanh)
	rel(t, "F27 ‖g̃‖", math.Hypot(g[0], g[1]), 0.526933503, 1e-6)
	rel(t, "F27 Tr/d", trace(fim), 0.116909486, 1e-6)
	rel(t, "F27 ‖I‖₂", spectral(fim), 0.225263324, 1e-6)
	g, _, fim = SoftClipFIL(w, x, 1, 10, 1, GELUTanh)
	rel(t, "F28 ‖g̃‖", math.Hypot(g[0], g[1]), 1.408690468, 1e-6)
	rel(t, "F28 Tr/d", trace(fim), 0.004959577, 1e-6)
}
