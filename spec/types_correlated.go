package spec

// Correlated is matrix-factorization (DP-FTRL / BandMF / BLT) noise: the
// trainer adds σ·C·(C⁻¹w)_t at step t instead of independent noise, C a
// lower-triangular Toeplitz strategy, and the accountant charges the
// Gaussian mechanism on C·G with C's sensitivity under the participation
// schema (docs/mechanisms.md). The names follow jax_privacy's: num_bands,
// min_sep, max_participations, buffered (BLT) Toeplitz.
type Correlated struct {
	Strategy          string    `yaml:"strategy" default:"banded" enum:"banded|blt" doc:"banded: a b-banded lower-triangular Toeplitz C (BandMF); its first column is coefficients, or the first bands coefficients of the square root of the prefix-sum matrix (1, 1/2, 3/8, …: jax_privacy's optimal_max_error_strategy_coefs). blt: a buffered linear Toeplitz C (Dvijotham et al. 2024), c_0 = 1, c_t = Σ_j ω_j·θ_j^(t−1), from omega and theta."`
	Bands             int       `yaml:"bands" default:"0" check:">=0" doc:"b: bands of a banded strategy (at most dpsgd.steps); 0 = as many as coefficients has."`
	Coefficients      []float64 `yaml:"coefficients" doc:"The first column c_0, …, c_{b−1} of a banded strategy (c_0 > 0); absent: the optimal max-error coefficients truncated to bands."`
	Omega             []float64 `yaml:"omega" doc:"blt: one weight ω_j per buffer."`
	Theta             []float64 `yaml:"theta" doc:"blt: one decay θ_j ∈ [0, 1) per buffer."`
	Participation     string    `yaml:"participation" default:"cyclic" enum:"cyclic|min_sep|amplified" doc:"The participation schema the accountant assumes. cyclic: every record takes part in at most one step in dpsgd.groups (min_sep = groups; needs sampling cyclic). min_sep: any two of a record's steps are at least min_sep apart, at most max_participations of them (any sampler covers min_sep 1). amplified: amplified banded MF (Choquette-Choo et al. 2023, jax_privacy's amplified_bandmf_event): sampling cyclic with groups ≥ bands, Poisson rate dpsgd.sampling_rate within the step's group, accounted as ⌈T/groups⌉ DP-SGD steps at σ/‖c‖."`
	MinSep            int       `yaml:"min_sep" default:"0" check:">=0" doc:"min_sep participation: the smallest gap between two steps of one record (≥ 1)."`
	MaxParticipations int       `yaml:"max_participations" default:"0" check:">=0" doc:"The most steps one record takes part in (0: as many as the steps and the separation allow). Telling the accountant fewer than were trained under-counts the sensitivity: an audit should catch it."`
}
