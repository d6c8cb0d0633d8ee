package audit

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for i, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		in := append([]float64(nil), c.xs...)
		if got := Median(c.xs); got != c.want {
			t.Errorf("Case %d: Median(%v) = %v, want %v", i, in, got, c.want)
		}
		for j := range in {
			if in[j] != c.xs[j] {
				t.Errorf("Case %d: Median reordered its argument", i)
			}
		}
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(Median([]float64{1, math.NaN(), 2})) {
		t.Error("Median of nothing or of a NaN is not NaN")
	}
}

func TestMeanStd(t *testing.T) {
	m, sd := MeanStd([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	// Sample variance 32/7.
	if m != 5 || math.Abs(sd-math.Sqrt(32.0/7)) > 1e-15 {
		t.Errorf("MeanStd = %v, %v; want 5, √(32/7)", m, sd)
	}
	if m, sd := MeanStd([]float64{3}); m != 3 || sd != 0 {
		t.Errorf("one value: %v, %v", m, sd)
	}
	if m, sd := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(sd) {
		t.Errorf("no value: %v, %v", m, sd)
	}
}

// t_{0.975, 4} = 2.776445105 (any table of Student's t, e.g. NIST/SEMATECH
// e-Handbook 1.3.6.7.2), so five measurements of mean 10 and sd 1 give
// 10 ± 2.776445105/√5.
func TestTInterval(t *testing.T) {
	lo, hi := TInterval(10, 1, 5, 0.95)
	half := 2.776445105 / math.Sqrt(5)
	if math.Abs(lo-(10-half)) > 1e-8 || math.Abs(hi-(10+half)) > 1e-8 {
		t.Errorf("TInterval = [%v, %v], want 10 ∓ %v", lo, hi, half)
	}
	if lo, hi := TInterval(10, 1, 1, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("one measurement: [%v, %v]", lo, hi)
	}
}

func TestBonferroniPValue(t *testing.T) {
	for i, c := range []struct {
		ps   []float64
		want float64
	}{
		{[]float64{0.2}, 0.2},
		{[]float64{0.2, 0.01, 0.5}, 0.03},
		{[]float64{0.6, 0.9}, 1},
	} {
		if got := BonferroniPValue(c.ps); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Case %d: BonferroniPValue(%v) = %v, want %v", i, c.ps, got, c.want)
		}
	}
	if !math.IsNaN(BonferroniPValue([]float64{0.1, math.NaN()})) {
		t.Error("an invalid test's NaN is ignored")
	}
}

func TestFractionAtLeast(t *testing.T) {
	if got := FractionAtLeast([]float64{1, 2, 3, 4}, []float64{1, 3, 2, 5}); got != 0.5 {
		t.Errorf("FractionAtLeast = %v, want 0.5 (equality respects the bound)", got)
	}
	if !math.IsNaN(FractionAtLeast(nil, nil)) {
		t.Error("no measurement is not NaN")
	}
}
