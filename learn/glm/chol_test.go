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
		got, ok := inverseSPD(a, n)
		if !ok {
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
		n8 := (n + 7) &^ 7
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
	a := randomSym(20, 3)
	if _, ok := inverseSPD(a, 20); ok {
		t.Error("an indefinite matrix was inverted")
	}
}

func BenchmarkInverseSPD(b *testing.B) {
	const n = 618
	a := randomSym(n, 1)
	for i := range n {
		a[i*n+i] += 2 * n
	}
	for b.Loop() {
		if _, ok := inverseSPD(a, n); !ok {
			b.Fatal("not positive definite")
		}
	}
}
