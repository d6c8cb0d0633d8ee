package privacy

import (
	"fmt"
	"math"
)

// Matrix-factorization (DP-FTRL) mechanisms.
//
// With a lower-triangular strategy C (n×n, one row per step) the trainer
// adds correlated noise z = C⁻¹·w, w's rows i.i.d. N(0, σ²C_clip²·I), to the
// clipped gradient sums G: the released updates are a post-processing of
// C·G + w, the Gaussian mechanism on C·G. One record's participations (a
// set of steps allowed by the participation schema) move C·G by C·u for a
// 0/1 vector u over those steps, times its clipped gradient (norm ≤ C_clip;
// the other records are unchanged, add/remove or zero-out adjacency), so
// the mechanism's ℓ2 sensitivity is sens(C) = max_u ‖C·u‖ per unit clip
// norm and, over all steps together, it is exactly (sens/σ)-GDP
// (Choquette-Choo et al. 2023, "(Amplified) Banded Matrix Factorization";
// jax_privacy accounts it as one GaussianDpEvent of noise multiplier
// σ/sens). The accountant is told the sensitivity — it computes nothing
// about C itself — so a deliberately under-counted sensitivity (a claim
// for one participation when the trainer cycles through the data k
// times) is accounted like any other number.
//
// Amplified banded MF (Choquette-Choo et al. 2023, Theorem 4; jax_privacy's
// amplified_bandmf_event): with b bands, the records split at random into
// b groups, step t sampling each record of group t mod b with probability
// q, the T steps are as private as ⌈T/b⌉ steps of DP-SGD with Poisson rate
// q and noise multiplier σ/‖C‖_col (the largest column norm).

// Participation is the schema of the steps one record may take part in
// (jax_privacy's min-sep participation): any two of its steps are at
// least MinSep apart, and there are at most MaxParticipations of them (0:
// as many as n steps allow, ⌈n/MinSep⌉). Cyclic participation through b
// fixed batches (every record in steps j, j + b, j + 2b, …) is
// MinSep = b; a single pass over the data is MaxParticipations = 1.
type Participation struct {
	MinSep            int
	MaxParticipations int
}

func (p Participation) check() error {
	if p.MinSep < 1 {
		return invalidf("participation: the minimum separation must be ≥ 1 step, got %d", p.MinSep)
	}
	if p.MaxParticipations < 0 {
		return invalidf("participation: the maximum number of participations must be ≥ 0 (0: as many as the steps allow), got %d", p.MaxParticipations)
	}
	return nil
}

// participations is the largest number of participations in n steps.
func (p Participation) participations(n int) int {
	k := (n + p.MinSep - 1) / p.MinSep
	if p.MaxParticipations > 0 {
		k = min(k, p.MaxParticipations)
	}
	return k
}

// ToeplitzSensitivity returns sens(C) = max_u ‖C·u‖ for the n×n
// lower-triangular Toeplitz strategy whose first column starts with coef
// (entries beyond len(coef) are 0: a banded strategy has len(coef) = b
// bands), over the participation vectors u the schema allows. For
// non-negative, non-increasing coefficients the worst record participates
// as often as allowed, exactly MinSep apart, from step 0 (McKenna 2024,
// arXiv 2405.13763, Theorem 2; jax_privacy's minsep_sensitivity_squared,
// whose computation this is); other coefficients are first replaced by
// the smallest non-negative non-increasing sequence above their absolute
// values, which gives an upper bound. Errors: more bands than steps, an
// empty or non-finite strategy, or a schema with no valid separation.
func ToeplitzSensitivity(coef []float64, n int, p Participation) (float64, error) {
	if n < 1 {
		return 0, invalidf("strategy: the number of steps must be ≥ 1, got %d", n)
	}
	if len(coef) == 0 {
		return 0, invalidf("strategy: no Toeplitz coefficients")
	}
	if len(coef) > n {
		return 0, invalidf("strategy: %d bands is more than the %d steps (a banded strategy has at most T bands)", len(coef), n)
	}
	if err := p.check(); err != nil {
		return 0, err
	}
	c := make([]float64, n)
	for i, v := range coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, invalidf("strategy: coefficient %d is %v", i, v)
		}
		c[i] = math.Abs(v)
	}
	for i := len(coef) - 2; i >= 0; i-- { // reverse cumulative max
		c[i] = math.Max(c[i], c[i+1])
	}
	b, k := p.MinSep, p.participations(n)
	// v = Σ_{m<k} shift(c, m·b): C·u for u = e_0 + e_b + … + e_{(k−1)b}.
	v := make([]float64, n)
	for i := range v {
		for m := 0; m < k && m*b <= i; m++ {
			v[i] += c[i-m*b]
		}
	}
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s), nil
}

// OptimalToeplitzCoefficients returns the first n coefficients of the
// square root of the prefix-sum matrix, c_k = C(2k, k)/4^k = 1, 1/2, 3/8,
// 5/16, 35/128, … (Fichtenberger, Henzinger & Upadhyay 2023; optimal for
// the max error under one participation, Dvijotham et al. 2024;
// jax_privacy's optimal_max_error_strategy_coefs). Its first b entries are
// the usual b-banded strategy (BandMF's Toeplitz initialisation).
func OptimalToeplitzCoefficients(n int) []float64 {
	c := make([]float64, n)
	if n > 0 {
		c[0] = 1
	}
	for k := 1; k < n; k++ {
		c[k] = c[k-1] * float64(2*k-1) / float64(2*k)
	}
	return c
}

// BLTCoefficients returns the first n Toeplitz coefficients of a buffered
// linear Toeplitz strategy (Dvijotham et al. 2024): c_0 = 1 and
// c_t = Σ_j ω_j·θ_j^{t−1} for t ≥ 1.
func BLTCoefficients(omega, theta []float64, n int) ([]float64, error) {
	if len(omega) != len(theta) {
		return nil, invalidf("BLT: %d ω and %d θ (want one of each per buffer)", len(omega), len(theta))
	}
	for j := range theta {
		if !(theta[j] >= 0 && theta[j] < 1) || math.IsNaN(omega[j]) || math.IsInf(omega[j], 0) {
			return nil, invalidf("BLT buffer %d: want θ in [0, 1) and a finite ω, got θ = %v, ω = %v", j, theta[j], omega[j])
		}
	}
	c := make([]float64, n)
	if n == 0 {
		return c, nil
	}
	c[0] = 1
	pow := make([]float64, len(theta))
	for j := range pow {
		pow[j] = 1
	}
	for t := 1; t < n; t++ {
		for j := range theta {
			c[t] += omega[j] * pow[j]
			pow[j] *= theta[j]
		}
	}
	return c, nil
}

// MatrixMechanism is a matrix-factorization mechanism as the accountant
// sees it.
type MatrixMechanism struct {
	// NoiseMultiplier is σ: the noise on C·G has standard deviation
	// σ·C_clip per coordinate.
	NoiseMultiplier float64
	// Sensitivity is sens(C) per unit clip norm under the claimed
	// participation schema (ToeplitzSensitivity); for the amplified
	// variant, the largest column norm of C.
	Sensitivity float64
	// Steps is T.
	Steps int
	// Bands and SamplingRate select the amplified banded variant (Bands
	// ≥ 1 and 0 < SamplingRate < 1): b groups, Poisson rate q within the
	// group of the step. Zero values: the Gaussian mechanism on C·G.
	Bands        int
	SamplingRate float64
}

func (m MatrixMechanism) check() error {
	if err := checkNoise(m.NoiseMultiplier, true); err != nil {
		return err
	}
	if !(m.Sensitivity > 0) || math.IsInf(m.Sensitivity, 1) {
		return invalidf("matrix mechanism: the sensitivity must be > 0 and finite, got %v", m.Sensitivity)
	}
	if err := checkSteps(m.Steps); err != nil {
		return err
	}
	if m.amplified() {
		if m.Bands > m.Steps {
			return invalidf("matrix mechanism: %d bands is more than the %d steps", m.Bands, m.Steps)
		}
		return checkSamplingRate(m.SamplingRate)
	}
	if m.Bands < 0 || m.SamplingRate != 0 {
		return invalidf("matrix mechanism: amplification needs bands ≥ 1 and a sampling rate in (0, 1), got %d bands, rate %v", m.Bands, m.SamplingRate)
	}
	return nil
}

func (m MatrixMechanism) amplified() bool { return m.Bands >= 1 && m.SamplingRate > 0 }

// Equivalent returns the DP-SGD mechanism m is accounted as: the
// amplified variant's ⌈T/b⌉ Poisson steps at σ/sens, or one full-batch
// Gaussian step at σ/sens (q = 1, exactly (sens/σ)-GDP).
func (m MatrixMechanism) Equivalent() (SampledGaussian, error) {
	if err := m.check(); err != nil {
		return SampledGaussian{}, err
	}
	sigma := m.NoiseMultiplier / m.Sensitivity
	if m.amplified() {
		return SampledGaussian{NoiseMultiplier: sigma, SamplingRate: m.SamplingRate, Steps: (m.Steps + m.Bands - 1) / m.Bands}, nil
	}
	return SampledGaussian{NoiseMultiplier: sigma, SamplingRate: 1, Steps: 1}, nil
}

// MatrixEpsilon returns the ε for which m is (ε, δ)-DP according to acc.
func MatrixEpsilon(acc Accountant, m MatrixMechanism, delta float64, o Options) (Result, error) {
	eq, err := m.Equivalent()
	if err != nil {
		return Result{}, fmt.Errorf("matrix mechanism: %w", err)
	}
	return EpsilonDetail(acc, eq, delta, o)
}

// MatrixDelta returns the δ for which m is (ε, δ)-DP according to acc.
func MatrixDelta(acc Accountant, m MatrixMechanism, epsilon float64, o Options) (Result, error) {
	eq, err := m.Equivalent()
	if err != nil {
		return Result{}, fmt.Errorf("matrix mechanism: %w", err)
	}
	return DeltaDetail(acc, eq, epsilon, o)
}
