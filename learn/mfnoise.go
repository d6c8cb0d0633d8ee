package learn

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// CorrelatedNoise turns DP-SGD's independent noise into matrix-
// factorization (DP-FTRL) noise: step t adds σ·C·(C⁻¹W)_t instead of
// σ·C·W_t, where W's rows are the independent N(0, I) draws DP-SGD would
// have used and C is a lower-triangular Toeplitz strategy. The updates are
// then a post-processing of C·G + σ·C·W (G the clipped sums): the
// Gaussian mechanism on C·G, accounted by privacy.MatrixMechanism with
// C's sensitivity under the participation schema (Choquette-Choo et al.
// 2023; Kairouz et al. 2021 for DP-FTRL). C⁻¹W is never formed: each step
// solves one row of C·z = w from the previous rows,
//
//	banded Toeplitz (b bands):  z_t = (w_t − Σ_{i=1}^{b−1} c_i·z_{t−i}) / c_0,
//	BLT (d buffers):            z_t = w_t − Σ_j ω_j·S_j,   S_j ← θ_j·S_j + z_t,
//
// keeping b − 1 past noise vectors (banded) or d buffers (BLT) per
// parameter: (b−1)·P or d·P multiply-adds a step.
type CorrelatedNoise struct {
	// Toeplitz is the first column c_0, …, c_{b−1} of a b-banded
	// lower-triangular Toeplitz strategy (c_0 > 0; privacy.
	// OptimalToeplitzCoefficients(b) is the usual choice).
	Toeplitz []float64
	// Omega and Theta give a buffered linear Toeplitz strategy instead,
	// c_0 = 1, c_t = Σ_j ω_j·θ_j^{t−1} (θ_j ∈ [0, 1)); used when Toeplitz
	// is empty.
	Omega, Theta []float64
}

// Validate checks the strategy against the run's number of steps.
func (c *CorrelatedNoise) Validate(steps int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("dpsgd: correlated noise: %s", fmt.Sprintf(format, args...))
	}
	if len(c.Toeplitz) > 0 {
		if !(c.Toeplitz[0] > 0) || math.IsInf(c.Toeplitz[0], 1) {
			return bad("c_0 = %v must be > 0 and finite (C must be invertible)", c.Toeplitz[0])
		}
		for i, v := range c.Toeplitz {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("coefficient %d is %v", i, v)
			}
		}
		if len(c.Toeplitz) > max(steps, 1) {
			return bad("%d bands is more than the %d steps (a banded strategy has at most T bands)", len(c.Toeplitz), steps)
		}
		return nil
	}
	if len(c.Omega) == 0 || len(c.Omega) != len(c.Theta) {
		return bad("want Toeplitz coefficients, or one ω and one θ per BLT buffer (got %d and %d)", len(c.Omega), len(c.Theta))
	}
	for j := range c.Theta {
		if !(c.Theta[j] >= 0 && c.Theta[j] < 1) || math.IsNaN(c.Omega[j]) || math.IsInf(c.Omega[j], 0) {
			return bad("BLT buffer %d: want θ in [0, 1) and a finite ω, got θ = %v, ω = %v", j, c.Theta[j], c.Omega[j])
		}
	}
	return nil
}

// corrState is the per-block state of the recurrence: the past noise
// vectors (banded, a ring of b−1) or the BLT buffers, and a scratch row.
type corrState struct {
	c     *CorrelatedNoise
	hist  [][]float32 // banded: hist[(t−i) mod (b−1)] = z_{t−i}; BLT: S_j
	step  int
	z     []float32
	coefs []float32 // c_1 … c_{b−1} divided by c_0, or ω
	inv0  float32   // 1/c_0
}

func newCorrState(c *CorrelatedNoise, n int) *corrState {
	s := &corrState{c: c, z: make([]float32, n)}
	if len(c.Toeplitz) > 0 {
		s.inv0 = float32(1 / c.Toeplitz[0])
		for _, v := range c.Toeplitz[1:] {
			s.coefs = append(s.coefs, float32(v/c.Toeplitz[0]))
		}
	} else {
		s.inv0 = 1
		for _, v := range c.Omega {
			s.coefs = append(s.coefs, float32(v))
		}
	}
	s.hist = make([][]float32, len(s.coefs))
	for i := range s.hist {
		s.hist[i] = make([]float32, n)
	}
	return s
}

// add draws this step's w from the block's stream, turns it into z_t and
// adds scale·z_t to dst; it reports whether dst stayed finite.
func (s *corrState) add(stream *wordStream, dst []float32, scale float32) bool {
	z := s.z[:len(dst)]
	clear(z)
	addNormalStream(stream, z, 1)
	if len(s.c.Toeplitz) > 0 {
		// z_t = w_t/c_0 − Σ_i (c_i/c_0)·z_{t−i}; rows before 0 are 0.
		if s.inv0 != 1 {
			gemm.Scal(s.inv0, z)
		}
		for i := 1; i <= len(s.coefs) && i <= s.step; i++ {
			gemm.Axpy(-s.coefs[i-1], s.hist[(s.step-i)%len(s.hist)], z)
		}
		if len(s.hist) > 0 {
			copy(s.hist[s.step%len(s.hist)], z)
		}
	} else {
		for j, w := range s.coefs {
			gemm.Axpy(-w, s.hist[j], z)
		}
		for j, th := range s.c.Theta {
			gemm.Scal(float32(th), s.hist[j])
			gemm.Axpy(1, z, s.hist[j])
		}
	}
	s.step++
	gemm.Axpy(scale, z, dst)
	finite, _ := allFinite(dst)
	return finite
}
