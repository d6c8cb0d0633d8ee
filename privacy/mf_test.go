package privacy

import (
	"errors"
	"math"
	"testing"
)

// jax_privacy's tests (tests/matrix_factorization/toeplitz_test.py): the
// noising coefficients of the optimal strategy, C⁻¹'s first column, are
// 1, −1/2, −1/8, −1/16, −5/128, i.e. the strategy's are 1, 1/2, 3/8, 5/16,
// 35/128; and the identity strategy's min-sep-1 sensitivity² with at most
// k participations in n steps is min(n, k).
func TestToeplitzReference(t *testing.T) {
	c := OptimalToeplitzCoefficients(5)
	want := []float64{1, 0.5, 3.0 / 8, 5.0 / 16, 35.0 / 128}
	inv := []float64{1, -0.5, -1.0 / 8, -1.0 / 16, -5.0 / 128}
	for i := range want {
		if math.Abs(c[i]-want[i]) > 1e-15 {
			t.Errorf("c[%d] = %v, want %v", i, c[i], want[i])
		}
		d := c[i]
		if i > 0 {
			d -= c[i-1]
		}
		if math.Abs(d-inv[i]) > 1e-15 {
			t.Errorf("C⁻¹[%d] = %v, want %v", i, d, inv[i])
		}
	}
	for _, n := range []int{1, 2, 3, 5, 11} {
		for _, k := range []int{1, 4, 11} {
			s := mustF(t)(ToeplitzSensitivity([]float64{1}, n, Participation{MinSep: 1, MaxParticipations: k}))
			if math.Abs(s*s-float64(min(n, k))) > 1e-12 {
				t.Errorf("identity n=%d k=%d: sens² = %v, want %d", n, k, s*s, min(n, k))
			}
		}
	}
}

// The closed form equals the brute-force maximum of ‖C·u‖ over every
// participation vector u the schema allows (n = 12), for non-increasing
// positive strategies, and bounds it from above for others.
func TestToeplitzSensitivityBruteForce(t *testing.T) {
	const n = 12
	strategies := map[string][]float64{
		"optimal, 12 bands": OptimalToeplitzCoefficients(n),
		"optimal, 4 bands":  OptimalToeplitzCoefficients(4),
		"linear, 6 bands":   {1, 0.8, 0.6, 0.4, 0.2, 0.1},
		"not monotone":      {1, -0.7, 0.9, 0.1},
	}
	for name, coef := range strategies {
		monotone := name != "not monotone"
		for _, sep := range []int{1, 2, 3, 4, 6} {
			for _, k := range []int{0, 1, 2, 3} {
				p := Participation{MinSep: sep, MaxParticipations: k}
				got := mustF(t)(ToeplitzSensitivity(coef, n, p))
				brute := bruteSensitivity(coef, n, p)
				if got < brute-1e-12 || (monotone && got > brute+1e-12) {
					t.Errorf("%s sep=%d k=%d: sens = %.12f, brute force %.12f", name, sep, k, got, brute)
				}
			}
		}
	}
}

func bruteSensitivity(coef []float64, n int, p Participation) float64 {
	k := p.participations(n)
	best := 0.0
	var walk func(next, used int, u []int)
	walk = func(next, used int, u []int) {
		if used > 0 {
			s := 0.0
			for i := 0; i < n; i++ {
				v := 0.0
				for _, j := range u {
					if i >= j && i-j < len(coef) {
						v += coef[i-j]
					}
				}
				s += v * v
			}
			best = math.Max(best, math.Sqrt(s))
		}
		if used == k {
			return
		}
		for j := next; j < n; j++ {
			walk(j+p.MinSep, used+1, append(u, j))
		}
	}
	walk(0, 0, nil)
	return best
}

// The accountant takes the sensitivity it is told: the non-amplified
// mechanism is exactly (sens/σ)-GDP, the amplified one is ⌈T/b⌉ steps of
// Poisson DP-SGD at σ/sens (jax_privacy's amplified_bandmf_event), and an
// under-counted sensitivity — one participation claimed for a trainer
// that cycles through the data 8 times — gives a smaller ε (the planted
// bug an audit must catch).
func TestMatrixAccounting(t *testing.T) {
	const T, b = 1024, 64
	coef := OptimalToeplitzCoefficients(b)
	cyclic := mustF(t)(ToeplitzSensitivity(coef, T, Participation{MinSep: T / 8}))
	single := mustF(t)(ToeplitzSensitivity(coef, T, Participation{MinSep: 1, MaxParticipations: 1}))
	m := MatrixMechanism{NoiseMultiplier: 10, Sensitivity: cyclic, Steps: T}
	exact := mustF(t)(GDPEpsilon(cyclic/10, 1e-5))
	for _, acc := range []Accountant{AccountantGDP, AccountantPLD, AccountantBest} {
		r := mustR(t)(MatrixEpsilon(acc, m, 1e-5, Options{}))
		if r.Value < exact-1e-9 || r.Value > exact+1e-3 {
			t.Errorf("%s: ε = %.6f, exact %.6f", acc, r.Value, exact)
		}
	}
	under := m
	under.Sensitivity = single
	eu := mustR(t)(MatrixEpsilon(AccountantGDP, under, 1e-5, Options{}))
	if !(eu.Value < exact/2) {
		t.Errorf("under-counted sensitivity %.3f (true %.3f): ε = %.4f, want well below %.4f", single, cyclic, eu.Value, exact)
	}
	amp := MatrixMechanism{NoiseMultiplier: 1.1, Sensitivity: single, Steps: 1000, Bands: 16, SamplingRate: 0.05}
	got := mustR(t)(MatrixEpsilon(AccountantPLD, amp, 1e-5, Options{}))
	want := mustF(t)(Epsilon(AccountantPLD, SampledGaussian{NoiseMultiplier: 1.1 / single, SamplingRate: 0.05, Steps: 63}, 1e-5, Options{}))
	if got.Value != want {
		t.Errorf("amplified: ε = %v, want DP-SGD's %v", got.Value, want)
	}
	for _, bad := range []MatrixMechanism{
		{NoiseMultiplier: 1, Sensitivity: 0, Steps: 10},
		{NoiseMultiplier: 1, Sensitivity: 1, Steps: 10, Bands: 11, SamplingRate: 0.1},
		{NoiseMultiplier: 1, Sensitivity: 1, Steps: 10, SamplingRate: 0.1},
	} {
		if _, err := MatrixEpsilon(AccountantPLD, bad, 1e-5, Options{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ToeplitzSensitivity(OptimalToeplitzCoefficients(65), 64, Participation{MinSep: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("65 bands over 64 steps: err = %v, want ErrInvalid", err)
	}
}
