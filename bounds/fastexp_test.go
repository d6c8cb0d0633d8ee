package bounds

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFastExpAccuracy(t *testing.T) {
	// Against math.Exp over the range the Monte Carlo loop uses
	// ([−700, 300]): within 3 ulp (2⁻⁵² relative per ulp); and 0 below −700.
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for i := 0; i < 1_000_000; i++ {
		x := r.Float64()*1000 - 700
		if i%2 == 0 {
			x = r.NormFloat64() * 5
		}
		e := math.Exp(x)
		worst = math.Max(worst, math.Abs(fastExp(x)-e)/e)
	}
	if worst > 3*0x1p-52 {
		t.Errorf("fastExp worst relative error %.3g = %.2f ulp, want ≤ 3 ulp", worst, worst/0x1p-52)
	}
	for _, x := range []float64{0, 1, -1, math.Ln2, 709} {
		nearRel(t, "fastExp", fastExp(x), math.Exp(x), 3*0x1p-52)
	}
	if fastExp(-701) != 0 {
		t.Errorf("fastExp(−701) = %v, want 0", fastExp(-701))
	}
}
