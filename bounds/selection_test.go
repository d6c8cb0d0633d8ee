package bounds

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopSorted(t *testing.T) {
	// Definition: the k largest values in decreasing order, equal to the
	// head of a full descending sort, for data with and without ties.
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 10, 1000, 20000} {
		for _, ties := range []bool{false, true} {
			x := make([]float64, n)
			for i := range x {
				x[i] = r.NormFloat64()
				if ties {
					x[i] = float64(r.IntN(5))
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			slices.Reverse(want)
			for _, k := range []int{0, 1, n / 3, n - 1, n} {
				if k < 0 {
					continue
				}
				y := slices.Clone(x)
				got := topSorted(y, k)
				if !slices.Equal(got, want[:k]) {
					t.Fatalf("n=%d ties=%v k=%d: top values differ", n, ties, k)
				}
			}
		}
	}
}
