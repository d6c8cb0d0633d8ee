package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// clippedToyGradient trains one step on Guo et al.'s toy (binary logistic
// loss without bias, w = [0.5, −0.3], x = [1, 2], y = 1; reference note §6
// "Toy soft-clipped per-step FIM") and returns the clipped per-example
// gradient the trainer used and the unclipped norm it reported.
func clippedToyGradient(t *testing.T, clip string, C float64) ([]float32, float64) {
	t.Helper()
	m := mustModel(t, Arch{Kind: KindLogReg, NoBias: true}, []int{2}, 2, 1)
	mustSet(t, m, []float32{0.5, -0.3})
	var g []float32
	var norm float64
	cfg := DPSGD{ClipNorm: C, SamplingRate: 1, Steps: 1, LearningRate: 0, Clip: clip}
	mustTrain(t, m, []float32{1, 2}, []int32{1}, cfg, rng.New(1, "toy"), &Hooks{PerExample: true, CleanSum: true,
		OnStep: func(s *Step) error {
			g = append([]float32(nil), s.PerExample...)
			norm = s.Norms[0]
			for j := range g {
				if s.ClippedSum[j] != g[j] {
					t.Errorf("clipped sum %v differs from the single clipped gradient %v", s.ClippedSum, g)
				}
			}
			return nil
		}})
	return g, norm
}

func norm32(v []float32) float64 { return math.Sqrt(sumSq(v)) }

// TestSoftClipMatchesGuoToy checks the soft clip g/(GELU(‖g‖/C − 1) + 1)
// (tanh-form GELU) against the Guo reference note, facts F25, F27, F28:
// ‖g‖ = 1.1738891499755164; C = 1 → g̃ = [−0.477711213, −0.955422427],
// ‖g̃‖ = 1.068194746; C = 0.5 → ‖g̃‖ = 0.526933503; C = 10 → 1.408690468
// (the soft clip amplifies small gradients). Tolerance: relative 1e−6, as
// the note states for these values (float32 arithmetic reaches ~3e−7).
func TestSoftClipMatchesGuoToy(t *testing.T) {
	g, norm := clippedToyGradient(t, ClipSoft, 1)
	if !closeTo(norm, 1.1738891499755164, 0, 1e-6) {
		t.Errorf("‖g‖ = %.10g, want 1.1738891499755164", norm)
	}
	want := []float64{-0.477711213, -0.955422427}
	for j := range want {
		if !closeTo(float64(g[j]), want[j], 0, 1e-6) {
			t.Errorf("g̃ = %v, want %v", g, want)
		}
	}
	for _, c := range []struct{ C, norm float64 }{{1, 1.068194746}, {0.5, 0.526933503}, {10, 1.408690468}} {
		g, _ := clippedToyGradient(t, ClipSoft, c.C)
		if got := norm32(g); !closeTo(got, c.norm, 0, 1e-6) {
			t.Errorf("C = %g: ‖g̃‖ = %.9g, want %.9g", c.C, got, c.norm)
		}
	}
}

// TestHardClip: g·min(1, C/‖g‖) has norm exactly C when ‖g‖ > C (relative
// 1e−6 in float32) and leaves smaller gradients untouched (bit for bit).
func TestHardClip(t *testing.T) {
	g, norm := clippedToyGradient(t, ClipHard, 0.25)
	if got := norm32(g); !closeTo(got, 0.25, 0, 1e-6) {
		t.Errorf("clipped norm %.9g, want 0.25", got)
	}
	raw, _ := clippedToyGradient(t, ClipHard, math.Inf(1))
	for j := range g {
		if !closeTo(float64(g[j]), float64(raw[j])*0.25/norm, 0, 1e-6) {
			t.Errorf("clipped %v is not %v scaled by C/‖g‖", g, raw)
		}
	}
	big, _ := clippedToyGradient(t, ClipHard, 10)
	for j := range big {
		if big[j] != raw[j] {
			t.Errorf("C = 10 > ‖g‖ changed the gradient: %v vs %v", big, raw)
		}
	}
}

// TestSoftClipMaximum: max_{u ≥ 0} u/(GELU(u − 1) + 1) = 1.115238 at
// u ≈ 1.5489 for the tanh-form GELU (Guo reference note F13; tolerance 1e−5).
func TestSoftClipMaximum(t *testing.T) {
	best, at := 0.0, 0.0
	for u := 0.0; u < 5; u += 1e-5 {
		if v := u / (geluTanh(u-1) + 1); v > best {
			best, at = v, u
		}
	}
	if math.Abs(best-1.115238) > 1e-5 || math.Abs(at-1.5489) > 1e-3 {
		t.Errorf("max %.7f at u = %.5f, want 1.115238 at 1.5489", best, at)
	}
}
