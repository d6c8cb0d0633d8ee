package attack

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// canaryInput is a small MLP game on a Gaussian blob.
func canaryInput(C float64) CraftInput {
	X, Y := blob(1, 200, 10, 2)
	return CraftInput{
		Arch: learn.Arch{Kind: learn.KindMLP, Hidden: []int{16}}, InShape: []int{10}, Classes: 2,
		DPSGD: learn.DPSGD{ClipNorm: C, NoiseMultiplier: 1, SamplingRate: 0.1, Steps: 50, LearningRate: 0.5},
		X:     X, Y: Y, Seed: 3, InitSeed: 4,
	}
}

// TestCanaryNormIsExactlyC checks the note's §8 item 13 (Crafter 4): the
// malicious gradient has 2n non-zero coordinates of ±C/√(2n), alternating,
// so ‖g‖₂ = C and clip_C(g) = g; Σ_p s_p·g[p] = √(2n)·C; every other
// coordinate is 0. Tolerance: float32 rounding of C/√(2n) (relative 1e-6;
// the value is rounded DOWN, so ‖g‖ ≤ C holds exactly).
func TestCanaryNormIsExactlyC(t *testing.T) {
	for _, C := range []float64{1, 0.05, 3.7} {
		for _, k := range []int{2, 10, 64, 210} { // 210: every parameter of the MLP
			in := canaryInput(C)
			cr, err := GradientCanary{Coordinates: k}.Craft(in)
			if err != nil {
				t.Fatalf("C=%v 2n=%d: %v", C, k, err)
			}
			c := cr.Canary
			g := c.Dense()
			var sq, proj float64
			nonzero := 0
			for _, v := range g {
				sq += float64(v) * float64(v)
				if v != 0 {
					nonzero++
				}
			}
			for i, p := range c.Coords {
				proj += float64(c.Signs[i]) * float64(g[p])
				if want := int8(1 - 2*(i%2)); c.Signs[i] != want {
					t.Errorf("C=%v 2n=%d: sign %d is %d, want alternating %d", C, k, i, c.Signs[i], want)
				}
			}
			norm := math.Sqrt(sq)
			if norm > C {
				t.Errorf("C=%v 2n=%d: ‖g‖ = %.10g > C: clipping would change it", C, k, norm)
			}
			if math.Abs(norm-C) > 1e-6*C {
				t.Errorf("C=%v 2n=%d: ‖g‖ = %.10g, want C within 1e-6", C, k, norm)
			}
			// clip_C(g) = g·min(1, C/‖g‖) (learn's hard clip): the factor is 1.
			if f := math.Min(1, C/norm); f != 1 {
				t.Errorf("C=%v 2n=%d: clip factor %v, want 1", C, k, f)
			}
			if want := math.Sqrt(float64(k)) * C; math.Abs(proj-want) > 1e-6*want {
				t.Errorf("C=%v 2n=%d: Σ s_p g[p] = %.10g, want √(2n)·C = %.10g", C, k, proj, want)
			}
			if nonzero != k {
				t.Errorf("C=%v 2n=%d: %d non-zero coordinates, want %d", C, k, nonzero, k)
			}
		}
	}
}

// TestCanaryEntersTheSumUnchanged runs DP-SGD with σ = 0 and the canary
// hook: on every step that includes it, NoisySum − ClippedSum equals the
// canary bit for bit (learn adds it after clipping, as Protocol 4 does;
// note §3.5), and it is included on about q·T steps.
func TestCanaryEntersTheSumUnchanged(t *testing.T) {
	in := canaryInput(1)
	cr, err := GradientCanary{Coordinates: 6}.Craft(in)
	if err != nil {
		t.Fatal(err)
	}
	g := cr.Canary.Dense()
	m, err := learn.NewModel(in.Arch, in.InShape, in.Classes, in.InitSeed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := in.DPSGD
	cfg.NoiseMultiplier = 0
	cfg.Steps = 400
	included := 0
	h := &learn.Hooks{Canary: g, CleanSum: true, OnStep: func(s *learn.Step) error {
		if !s.CanaryIncluded {
			return nil
		}
		included++
		for p := range g {
			if d := s.NoisySum[p] - s.ClippedSum[p]; d != g[p] && math.Abs(float64(d-g[p])) > 1e-6*math.Abs(float64(s.ClippedSum[p]))+1e-7 {
				t.Fatalf("step %d coordinate %d: sum − clean = %v, canary %v", s.Index, p, d, g[p])
			}
		}
		return nil
	}}
	if _, err := learn.Train(m, in.X, in.Y, cfg, rng.New(5), h); err != nil {
		t.Fatal(err)
	}
	// Binomial(400, 0.1): mean 40, sd 6; 5 sd either side.
	if included < 10 || included > 70 {
		t.Errorf("canary included on %d of 400 steps, want ≈ q·T = 40", included)
	}
}

// TestCanaryPicksCoordinatesThatNeverMove makes features 3 and 7 zero in
// every record: a logistic regression's weights on them get no gradient,
// so they are the 2 coordinates of least cumulative change (Crafter 4,
// line 2) under both measures (σ = 0 for param_change, whose updates
// would otherwise be noise).
func TestCanaryPicksCoordinatesThatNeverMove(t *testing.T) {
	in := canaryInput(1)
	in.Arch = learn.Arch{Kind: learn.KindLogReg}
	X := append([]float32(nil), in.X...)
	for i := 0; i < len(in.Y); i++ {
		X[i*10+3], X[i*10+7] = 0, 0
	}
	in.X = X
	in.DPSGD.NoiseMultiplier = 0
	for _, measure := range []string{MeasureCleanGradient, MeasureParamChange} {
		cr, err := GradientCanary{Coordinates: 2, Measure: measure}.Craft(in)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		for _, p := range cr.Canary.Coords {
			got[p] = true
		}
		if !got[3] || !got[7] {
			t.Errorf("%s: chose %v, want weights 3 and 7 (their features are always 0)", measure, cr.Canary.Coords)
		}
		for i, v := range cr.Canary.Measure {
			if v != 0 {
				t.Errorf("%s: chosen coordinate %d has measure %v, want 0", measure, cr.Canary.Coords[i], v)
			}
		}
	}
}

func TestCanaryBadInput(t *testing.T) {
	in := canaryInput(1)
	for name, c := range map[string]GradientCanary{
		"odd":      {Coordinates: 3},
		"negative": {Coordinates: -2},
		"measure":  {Measure: "largest"},
		"too many": {Coordinates: 10000},
	} {
		if _, err := c.Craft(in); !isInvalid(err) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	in.DPSGD.ClipNorm = math.Inf(1)
	in.DPSGD.NoiseMultiplier = 0
	if _, err := (GradientCanary{}).Craft(in); !isInvalid(err) {
		t.Errorf("infinite clip norm: err = %v, want ErrInvalid", err)
	}
}
