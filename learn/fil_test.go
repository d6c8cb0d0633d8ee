package learn

import (
	"math"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// The finite-difference Jacobian of the soft-clipped gradient matches the
// closed form of the Guo notes' toy (fact F25: binary logistic loss, w =
// [0.5, −0.3], x = [1, 2], y = 1, C = 1; J's columns have squared norms
// 0.376449388² + 0.20252365² and 0.108363196² + 0.260984821²), to the
// float32 layers' precision (rel 1e-3). Coordinate sampling is unbiased
// (Q4): many draws average to Tr(I)/d = 0.131292815 within 3 standard errors.
func TestFILToyLogistic(t *testing.T) {
	m, err := NewModel(Arch{Kind: KindLogReg, NoBias: true}, []int{2}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetParams([]float32{0.5, -0.3}); err != nil {
		t.Fatal(err)
	}
	cfg := DPSGD{ClipNorm: 1, NoiseMultiplier: 1, SamplingRate: 1, Steps: 1, Clip: ClipSoft}
	f, err := NewFIL(m, []float32{1, 2}, []int32{1}, cfg, 4000, 1e-2, 1, rng.New(1, "fil"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 2)
	if err := f.columnNorms([]filJob{{0, 0}, {0, 1}}, out); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.376449388*0.376449388 + 0.20252365*0.20252365, 0.108363196*0.108363196 + 0.260984821*0.260984821}
	for c := range want {
		if math.Abs(out[c]-want[c]) > 1e-3*want[c] {
			t.Errorf("‖J e_%d‖² = %.6f, closed form %.6f", c, out[c], want[c])
		}
	}
	if err := f.Observe(&Step{Params: []float32{0.5, -0.3}, Batch: []int{0}}); err != nil {
		t.Fatal(err)
	}
	se := (want[0] - want[1]) / 2 / math.Sqrt(4000)
	if got := f.Eta2[0]; math.Abs(got-0.131292815) > 3*se+1e-3*0.131292815 {
		t.Errorf("Tr/d estimate %.6f, exact 0.131292815 (3 SE = %.2g)", got, 3*se)
	}
}

// Non-smooth layers are refused with the layer and the fix named.
func TestFILRefusesNonSmooth(t *testing.T) {
	if err := CheckSmooth(Arch{Kind: KindMLP, Hidden: []int{8}}, ClipSoft); err == nil || !strings.Contains(err.Error(), "use activation tanh") {
		t.Errorf("ReLU MLP: %v", err)
	}
	if err := CheckSmooth(Arch{Kind: KindLogReg}, ClipHard); err == nil || !strings.Contains(err.Error(), "clip: soft") {
		t.Errorf("hard clip: %v", err)
	}
	if err := CheckSmooth(TanhCNN(), ClipSoft); err != nil {
		t.Errorf("tanh CNN: %v", err)
	}
}
