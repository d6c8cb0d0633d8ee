package glm

import (
	"errors"
	"math"
	"testing"

	lglm "github.com/dpaudit/dpaudit/learn/glm"
)

// The toy of the Guo et al. notes §6 (F20, F21).
func toy(t *testing.T, bias bool) (*lglm.Data, []float64) {
	t.Helper()
	g, err := lglm.NewData([]float32{0.2, 0.9, 0.8, 0.1, 0.5, 0.5, 0.1, 0.3}, []int32{1, 0, 1, 0}, 4, 2, bias)
	if err != nil {
		t.Fatal(err)
	}
	exact := []float64{0.2, 0.9, 0.8, 0.1, 0.5, 0.5, 0.1, 0.3}
	for i := 0; i < 4; i++ {
		cols, vals := g.Row(i)
		for k, c := range cols {
			if c > 0 {
				vals[k] = exact[2*i+int(c)-1]
			}
		}
	}
	if !bias {
		return g, nil
	}
	sol, err := lglm.Fit(g, 0.1, 1e-14, 50)
	if err != nil {
		t.Fatal(err)
	}
	return g, sol.Theta
}

// F20: at θ* the attack is exact; F21: at θ* + [1e-3, −2e-3, 5e-4] the
// notes' reconstructions, labels and per-sample MSE (rel 1e-6).
func TestGLMAttackToy(t *testing.T) {
	g, theta := toy(t, true)
	a, err := New(g, 0.1, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	a.Prepare(theta)
	exact := []float64{0.2, 0.9, 0.8, 0.1, 0.5, 0.5, 0.1, 0.3}
	for i := 0; i < 4; i++ {
		x, b0, ok := a.Reconstruct(i, nil)
		if !ok {
			t.Fatalf("sample %d: guarded", i)
		}
		for c := range x {
			if math.Abs(x[c]-exact[2*i+c]) > 1e-9 {
				t.Errorf("F20 sample %d: x̂ = %v", i, x)
			}
		}
		if y := LabelEstimate(theta, x, b0); math.Abs(y-g.Y[i]) > 1e-9 {
			t.Errorf("F20 sample %d: ŷ = %v", i, y)
		}
	}
	noisy := []float64{theta[0] + 1e-3, theta[1] - 2e-3, theta[2] + 5e-4}
	a.Prepare(noisy)
	wantX := [][]float64{{0.1973585596, 0.8993983294}, {0.8034319623, 0.0989898247}, {0.4974293126, 0.5002203201}, {0.1017537700, 0.2994741059}}
	wantY := []float64{1.0008064480, 0.0004079133, 1.0009917153, 0.0005967911}
	wantMSE := []float64{3.669607423e-6, 6.399409722e-6, 3.328487205e-6, 1.676136914e-6}
	for i := 0; i < 4; i++ {
		x, b0, ok := a.Reconstruct(i, nil)
		if !ok {
			t.Fatalf("sample %d: guarded", i)
		}
		var mse float64
		for c := range x {
			if math.Abs(x[c]-wantX[i][c]) > 1e-6*math.Abs(wantX[i][c]) {
				t.Errorf("F21 sample %d: x̂[%d] = %.10f, want %.10f", i, c, x[c], wantX[i][c])
			}
			d := x[c] - exact[2*i+c]
			mse += d * d / 2
		}
		if y := LabelEstimate(noisy, x, b0); math.Abs(y-wantY[i]) > 1e-6*math.Abs(wantY[i]) {
			t.Errorf("F21 sample %d: ŷ = %.10f, want %.10f", i, y, wantY[i])
		}
		if math.Abs(mse-wantMSE[i]) > 1e-6*wantMSE[i] {
			t.Errorf("F21 sample %d: MSE = %.10g, want %.10g", i, mse, wantMSE[i])
		}
	}
}

// A model without a bias is not a GLM the attack can invert.
func TestGLMAttackNeedsBias(t *testing.T) {
	g, _ := toy(t, false)
	if _, err := New(g, 0.1, 0); !errors.Is(err, ErrNotGLM) {
		t.Fatalf("err = %v, want ErrNotGLM", err)
	}
}

// A vanishing b[0] is reported, not divided by.
func TestGLMAttackGuard(t *testing.T) {
	g, theta := toy(t, true)
	a, _ := New(g, 0.1, math.Inf(1))
	a.Prepare(theta)
	if _, _, ok := a.Reconstruct(0, nil); ok {
		t.Fatal("guard did not trigger")
	}
}
