package learn

import "github.com/dpaudit/dpaudit/learn/gemm"

// gramSqNorms computes each example's squared conv-gradient norm by the
// Gram trick, ‖Δ_iᵀU_i‖²_F = ⟨U_iU_iᵀ, Δ_iΔ_iᵀ⟩, plus the bias part
// ‖Σ_p δ_p‖², without materialising the gradient. The trainer does not use
// it (materialising is cheaper at TanhCNN's sizes, see conv); it is kept so
// that BenchmarkConvNorms can measure the alternative and the tests can check
// that both give the same norms. gu and gd are P×P scratch matrices.
func (l *conv) gramSqNorms(cols, dOut []float32, b int, gu, gd []float32, bias []float32, sq []float64) {
	P, K, O := l.positions(), l.kdim(), l.outC
	for i := 0; i < b; i++ {
		u := cols[i*P*K : (i+1)*P*K]
		d := dOut[i*P*O : (i+1)*P*O]
		gemm.Sgemm(false, true, P, P, K, 1, u, K, u, K, 0, gu, P)
		gemm.Sgemm(false, true, P, P, O, 1, d, O, d, O, 0, gd, P)
		s := float64(gemm.Dot(gu[:P*P], gd[:P*P]))
		colSums(d, P, O, bias)
		sq[i] = s + sumSq(bias[:O])
	}
}
