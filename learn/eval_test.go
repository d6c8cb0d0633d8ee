package learn

import (
	"math"
	"strings"
	"sync"
	"testing"
)

// TestEvaluationHelpers: with all-zero parameters every class is equally
// likely, so each example's cross-entropy is ln K exactly (ln 3 for a
// 3-class softmax, ln 2 for the sigmoid head) — tolerance 1e−7 relative
// (float32 logits are exactly 0; the exponentials exactly 1). Loss is the
// mean of PerExampleLoss; Predict agrees with Accuracy.
func TestEvaluationHelpers(t *testing.T) {
	for _, c := range []struct {
		classes int
		want    float64
	}{{3, math.Log(3)}, {2, math.Log(2)}} {
		m := mustModel(t, Arch{Kind: KindLogReg, Init: InitZeros}, []int{5}, c.classes, 1)
		X, Y := randomData(8, 300, 5, c.classes)
		losses := make([]float64, 300)
		if err := m.PerExampleLoss(X, Y, losses); err != nil {
			t.Fatal(err)
		}
		for i, l := range losses {
			if !closeTo(l, c.want, 0, 1e-7) {
				t.Fatalf("%d classes, record %d: loss %.9g, want ln %d = %.9g", c.classes, i, l, c.classes, c.want)
			}
		}
	}

	m := mustModel(t, Arch{Kind: KindMLP, Hidden: []int{7}}, []int{5}, 4, 2)
	X, Y := randomData(9, 600, 5, 4) // 600 > one evaluation chunk of 256
	losses := make([]float64, 600)
	if err := m.PerExampleLoss(X, Y, losses); err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for _, l := range losses {
		mean += l / 600
	}
	if loss, err := m.Loss(X, Y); err != nil || !closeTo(loss, mean, 0, 1e-12) {
		t.Errorf("Loss = %v (%v), mean per-example loss %v", loss, err, mean)
	}
	pred := make([]int32, 600)
	if err := m.Predict(X, pred); err != nil {
		t.Fatal(err)
	}
	correct := 0
	for i := range pred {
		if pred[i] == Y[i] {
			correct++
		}
	}
	if acc, err := m.Accuracy(X, Y); err != nil || acc != float64(correct)/600 {
		t.Errorf("Accuracy = %v (%v), Predict agrees on %d/600", acc, err, correct)
	}

	// Concurrent evaluation shares the model read-only.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float64, 600)
			if err := m.PerExampleLoss(X, Y, out); err != nil {
				t.Error(err)
			}
			for i := range out {
				if out[i] != losses[i] {
					t.Errorf("concurrent loss %d: %g vs %g", i, out[i], losses[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestParamsRoundTrip checks the flat parameter accessors and their errors.
func TestParamsRoundTrip(t *testing.T) {
	m := mustModel(t, TanhCNN(), []int{1, 28, 28}, 10, 3)
	p := m.Params()
	p[0] = 0.25
	if err := m.SetParams(p); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, m.NumParams())
	if err := m.CopyParams(q); err != nil || q[0] != 0.25 {
		t.Errorf("CopyParams: %v, q[0] = %g", err, q[0])
	}
	if err := m.SetParams(p[:10]); err == nil || !strings.Contains(err.Error(), "got 10 values") {
		t.Errorf("short SetParams: %v", err)
	}
	p[26009] = float32(math.NaN())
	if err := m.SetParams(p); err == nil || !strings.Contains(err.Error(), "layer 8 (dense 32→10) bias [9]") {
		t.Errorf("NaN SetParams: %v", err)
	}
	if c := m.Clone(); c.Params()[0] != 0.25 || &c.params[0] == &m.params[0] {
		t.Errorf("Clone does not copy the parameters independently")
	}
}
