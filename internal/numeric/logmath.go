package numeric

import "math"

// LogAddExp returns log(eᵃ + eᵇ) without overflow; a or b may be −Inf.
func LogAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Log1mExp returns log(1 − eˣ) for x ≤ 0, choosing the form that avoids
// cancellation (Mächler 2012, "Accurately computing log(1 − exp(−|a|))").
func Log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// LogSumExp returns log Σᵢ e^{xᵢ} without overflow: the largest term is
// factored out, so terms hundreds of orders of magnitude apart neither
// overflow nor vanish, and the rest is added with log1p, so terms far below
// the largest still count (log(e⁰ + e⁻⁴⁰) is e⁻⁴⁰, not 0). It is −Inf for an
// empty slice or when every term is −Inf, +Inf when a term is +Inf, and
// NaN when a term is NaN.
func LogSumExp(xs []float64) float64 {
	top, at := math.Inf(-1), -1
	for i, x := range xs {
		if math.IsNaN(x) {
			return x
		}
		if x > top {
			top, at = x, i
		}
	}
	if at < 0 || math.IsInf(top, 1) {
		return top
	}
	rest := 0.0
	for i, x := range xs {
		if i != at {
			rest += math.Exp(x - top)
		}
	}
	return top + math.Log1p(rest)
}
