package glm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestInverseSPD: the inverse against gonum's (to rounding, sizes that
// leave partial blocks), and a matrix that is not positive definite is
// refused.
func TestInverseSPD(t *testing.T) {
	for _, n := range []int{1, 3, 8, 13, 64, 101} {
		a := randomSym(n, uint64(n)+7)
		for i := range n { // diagonally dominant: positive definite
			var s float64
			for j := range n {
				s += math.Abs(a[i*n+j])
			}
			a[i*n+i] += s + 1
		}
		n8 := (n + 7) &^ 7
		got := make([]float64, n8*n8)
		if !inverseSPD(padLower(a, n), got, n8) {
			t.Fatalf("n=%d: not positive definite", n)
		}
		var chol mat.Cholesky
		if !chol.Factorize(mat.NewSymDense(n, append([]float64(nil), a...))) {
			t.Fatal("gonum: not positive definite")
		}
		var want mat.SymDense
		if err := chol.InverseTo(&want); err != nil {
			t.Fatal(err)
		}
		for i := range n8 {
			for j := range n8 {
				w := 0.0
				if i < n && j < n {
					w = want.At(i, j)
				} else if i == j {
					w = 1
				}
				if math.Abs(got[i*n8+j]-w) > 1e-12 {
					t.Fatalf("n=%d: H⁻¹[%d][%d] = %v, gonum %v", n, i, j, got[i*n8+j], w)
				}
			}
		}
	}
	if inverseSPD(padLower(randomSym(20, 3), 20), make([]float64, 24*24), 24) {
		t.Error("an indefinite matrix was inverted")
	}
}

// padLower is the n×n matrix a in inverseSPD's layout.
func padLower(a []float64, n int) []float64 {
	n8 := (n + 7) &^ 7
	l := make([]float64, n8*n8)
	for i := range n {
		copy(l[i*n8:][:i+1], a[i*n:][:i+1])
	}
	for i := n; i < n8; i++ {
		l[i*n8+i] = 1
	}
	return l
}

func BenchmarkInverseSPD(b *testing.B) {
	const n = 618
	a := randomSym(n, 1)
	for i := range n {
		a[i*n+i] += 2 * n
	}
	l, m := padLower(a, n), make([]float64, 624*624)
	for b.Loop() {
		copy(l, padLower(a, n))
		if !inverseSPD(l, m, 624) {
			b.Fatal("not positive definite")
		}
	}
}
