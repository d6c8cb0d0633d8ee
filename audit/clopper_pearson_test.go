package audit

import (
	"math"
	"testing"
)

// Reference values: /work/shared/reference/nasr2021-adversary-instantiation.md
// ("the note"), §2.5 and §8, recomputed to 12 digits with mpmath at 40-digit
// precision (Beta quantile by root finding on the regularised incomplete
// beta).

func TestClopperPearsonUpperZeroErrors(t *testing.T) {
	// Note §8 item 1: CP_upper(0, 1000) = 1 − 0.025^(1/1000) = 0.00368208 (±1e-7).
	got, err := ClopperPearsonUpper(0, 1000, 0.95, TwoSided)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.00368208389687; math.Abs(got-want) > 1e-12 {
		t.Errorf("CP_upper(0, 1000) = %.12g, want %.12g", got, want)
	}
}

func TestClopperPearsonUpperInterior(t *testing.T) {
	// Note §6.1 item 1 / §8 item 3: FP_hi = 0.0072058 for 2/1000 and
	// FN_hi = 0.9900665 for 983/1000; mpmath gives the digits below.
	for _, c := range []struct {
		x, n int
		want float64
	}{
		{2, 1000, 0.00720583891146},
		{983, 1000, 0.990066487407},
	} {
		got, err := ClopperPearsonUpper(c.x, c.n, 0.95, TwoSided)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CP_upper(%d, %d) = %.12g, want %.12g", c.x, c.n, got, c.want)
		}
	}
}

func TestClopperPearsonSidedness(t *testing.T) {
	// Note §8 item 2: a one-sided 95% bound is the two-sided 90% one
	// (1 − 0.05^(1/1000) for x = 0), and is smaller than the two-sided 95%.
	one, _ := ClopperPearsonUpper(0, 1000, 0.95, OneSided)
	two90, _ := ClopperPearsonUpper(0, 1000, 0.90, TwoSided)
	two95, _ := ClopperPearsonUpper(0, 1000, 0.95, TwoSided)
	if want := 1 - math.Pow(0.05, 1.0/1000); math.Abs(one-want) > 1e-15 || math.Abs(one-two90) > 1e-15 {
		t.Errorf("one-sided 95%% = %.15g, two-sided 90%% = %.15g, want both %.15g", one, two90, want)
	}
	if !(one < two95) {
		t.Errorf("one-sided bound %v should be below two-sided %v", one, two95)
	}
}

func TestClopperPearsonLowerMirrorsUpper(t *testing.T) {
	// Exact identity of the CP interval: lower(x, n) = 1 − upper(n − x, n).
	for _, c := range [][2]int{{0, 10}, {3, 10}, {10, 10}, {17, 1000}, {500, 1000}, {999999, 1000000}} {
		lo, err := ClopperPearsonLower(c[0], c[1], 0.95, TwoSided)
		if err != nil {
			t.Fatal(err)
		}
		up, _ := ClopperPearsonUpper(c[1]-c[0], c[1], 0.95, TwoSided)
		if math.Abs(lo-(1-up)) > 1e-12 {
			t.Errorf("lower(%d, %d) = %.15g, 1 − upper(n−x) = %.15g", c[0], c[1], lo, 1-up)
		}
	}
}

func TestClopperPearsonCoverage(t *testing.T) {
	// Definition of the CP upper bound p_U at miss probability a:
	// P[Bin(n, p_U) ≤ x] = a. Checked by summing the binomial pmf (n = 50).
	n, a := 50, 0.025
	for x := 0; x < n; x++ {
		pU := cpUpper(float64(x), float64(n), a)
		cdf := 0.0
		for k := 0; k <= x; k++ {
			lc, _ := math.Lgamma(float64(n + 1))
			lk, _ := math.Lgamma(float64(k + 1))
			lnk, _ := math.Lgamma(float64(n - k + 1))
			cdf += math.Exp(lc - lk - lnk + float64(k)*math.Log(pU) + float64(n-k)*math.Log1p(-pU))
		}
		if math.Abs(cdf-a) > 1e-9 {
			t.Errorf("x = %d: P[Bin(%d, %.6g) ≤ x] = %.12g, want %v", x, n, pU, cdf, a)
		}
	}
}
