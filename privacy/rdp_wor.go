package privacy

import (
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// RDP of sampling without replacement (fixed-size batches) under
// replace-one adjacency: Wang, Balle & Kasiviswanathan (AISTATS 2019,
// "Subsampled Rényi Differential Privacy and Analytical Moments
// Accountant"), Theorem 27, for a base mechanism whose RDP is
// ε(α) = α/(2s²) — the Gaussian with noise multiplier s relative to the
// replace-one sensitivity of the batch sum (s = σ/2 for DP-SGD, whose sum
// moves by up to 2C). At integer α,
//
//	A_α ≤ 1 + γ²·C(α,2)·min(4(e^{ε(2)} − 1), 2e^{ε(2)})
//	        + Σ_{j=3}^{α} γ^j·C(α,j)·min(4·√(Δ_{2⌊j/2⌋}·Δ_{2⌈j/2⌉}), 2e^{(j−1)ε(j)}),
//
// where Δ_k are forward differences of e^{(x)ε(x+1)}; non-integer orders
// interpolate the integer ones' (α−1)·RDP linearly (their Corollary 10).
// The code follows dp_accounting's _compute_rdp_sample_wor_gaussian
// (log-space forward differences up to α = 256, the bound's second term
// alone above), so the numbers are dp_accounting's to rounding.

// RDPSampledWithoutReplacement returns the order-α RDP bound above for
// one step: fixed-size batches with γ = b/n and base noise multiplier s
// relative to the replace-one sensitivity of the batch sum (σ/2 for a sum
// of gradients clipped to norm C with noise σC). s = 0 gives +Inf.
func RDPSampledWithoutReplacement(gamma, s, alpha float64) (float64, error) {
	if err := checkSamplingRate(gamma); err != nil {
		return 0, err
	}
	if err := checkNoise(s, true); err != nil {
		return 0, err
	}
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	if s == 0 {
		return math.Inf(1), nil
	}
	return rdpWithoutReplacement(gamma, s, alpha), nil
}

func rdpWithoutReplacement(gamma, s, alpha float64) float64 {
	if gamma == 1 {
		return alpha / (2 * s * s)
	}
	if alpha == math.Trunc(alpha) {
		return worLogAInt(gamma, s, int(alpha)) / (alpha - 1)
	}
	lo, hi := math.Floor(alpha), math.Ceil(alpha)
	x, y := worLogAInt(gamma, s, int(lo)), worLogAInt(gamma, s, int(hi))
	t := alpha - lo
	return ((1-t)*x + t*y) / (alpha - 1)
}

// worMaxExactOrder: above it the forward differences (O(α²)) are skipped
// and only the second term of each minimum is used, as dp_accounting.
const worMaxExactOrder = 256

// worLogAInt is log A_α of Theorem 27 at integer α ≥ 1.
func worLogAInt(gamma, s float64, alpha int) float64 {
	if alpha <= 1 {
		return 0
	}
	inv2s2 := 1 / (2 * s * s)
	cgf := func(x float64) float64 { return x * (x + 1) * inv2s2 } // x·ε(x+1)
	rdp2 := 2 * inv2s2
	logF2m1 := rdp2 + numeric.Log1mExp(-rdp2) // log(e^{ε(2)} − 1)
	logq := math.Log(gamma)
	logA := 0.0
	var deltas []float64
	if alpha <= worMaxExactOrder {
		deltas = forwardDiffsLog(cgf, alpha)
	}
	for i := 2; i <= alpha; i++ {
		fi := float64(i)
		var s float64
		switch {
		case i == 2:
			s = math.Min(math.Log(4)+logF2m1, rdp2+math.Ln2)
		case deltas != nil:
			dlo := deltas[2*(i/2)-1]
			dhi := deltas[2*((i+1)/2)-1]
			s = math.Min(math.Log(4)+0.5*(dlo+dhi), math.Ln2+cgf(fi-1))
		default:
			s = math.Ln2 + cgf(fi-1)
		}
		logA = numeric.LogAddExp(logA, s+fi*logq+logComb(alpha, i))
	}
	return logA
}

func logComb(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// forwardDiffsLog returns log|Δ^k f(0)| for k = 0 … n+1 of the sequence
// (1, e^{fun(0)}, e^{fun(1)}, …, e^{fun(n)}), as dp_accounting's
// _get_forward_diffs builds it (its first element is e^0 = 1), keeping
// signs and magnitudes in log space.
func forwardDiffsLog(fun func(float64) float64, n int) []float64 {
	vec := make([]float64, n+3)
	pos := make([]bool, n+3)
	for i := range pos {
		pos[i] = true
	}
	for i := 1; i < n+3; i++ {
		vec[i] = fun(float64(i - 1))
	}
	deltas := make([]float64, n+2)
	for i := 0; i < n+2; i++ {
		diffInLog(vec, pos, n+2-i)
		deltas[i] = vec[0]
	}
	return deltas
}

// diffInLog replaces the first m entries of the signed log-magnitude
// vector (vec, pos) by its forward differences vec[j+1] − vec[j].
func diffInLog(vec []float64, pos []bool, m int) {
	for j := 0; j < m; j++ {
		if pos[j] == pos[j+1] {
			// Same sign: |b − a| = ±(|b| − |a|).
			p, mag := logSubSign(vec[j+1], vec[j])
			if !pos[j+1] {
				p = !p
			}
			pos[j], vec[j] = p, mag
		} else {
			vec[j] = numeric.LogAddExp(vec[j], vec[j+1])
			pos[j] = pos[j+1]
		}
	}
}

// logSubSign returns the sign and log|e^x − e^y|.
func logSubSign(x, y float64) (bool, float64) {
	switch {
	case x > y:
		return true, x + numeric.Log1mExp(y-x)
	case x < y:
		return false, y + numeric.Log1mExp(x-y)
	}
	return true, math.Inf(-1)
}
