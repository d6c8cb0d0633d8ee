package audit

import "math"

// A violation is raised only by a comparison that rounding cannot tip: the
// empirical side must exceed what the claim allows by more than a stated
// tolerance, so exact equality — and a difference of a few units in the
// last place — never counts as exceeding. Every flag of dpaudit compares
// through Exceeds or Below.

// ClaimTolerance is the relative tolerance of a comparison between an
// audit's bound and a claim computed in float64: an ε lower bound against
// the claim's ε, the lower end of a reconstruction success rate against
// the upper end of the ReRo bound's bracket, the lower end of δ′ against
// δ, a p-value against α. Both sides are closed forms or special functions
// (Clopper–Pearson through the regularised incomplete beta function,
// accountants and bounds that are themselves upper bounds) whose rounding
// is of order 1e-13 relative; 1e-9 leaves a margin of ten thousand and
// moves no verdict of the buggy implementations the tests catch, which
// exceed their claims by percents.
const ClaimTolerance = 1e-9

// BeliefTolerance is the relative tolerance of an identifiability
// repetition's final log-odds Λ against the claim's ε (the belief β
// against ρ_β = 1/(1 + e^{−ε})). The worst-case output
// (identifiability.output: worst_case) makes every Λ equal ε in exact
// arithmetic, but the release it builds is stored in float32 (unit
// roundoff 2^-24 ≈ 6e-8 per coordinate), so Λ lands within rounding of ε
// on either side: measured |Λ − ε|/ε ≤ 1.7e-8 over 1,200 repetitions of a
// digits logistic regression (six seeds) and ≤ 7.4e-10 over 40 of the
// Bernau MNIST CNN. 1e-5 leaves a factor of 500; under Gaussian noise a
// belief within 1e-5·ε of ρ_β is rare, and not counting it can only lower
// δ′ (the flag stays on the claim's side).
const BeliefTolerance = 1e-5

// Exceeds reports whether x exceeds limit by more than the relative
// tolerance tol: x > limit + tol·|limit|. Equality, NaN on either side and
// an infinite limit never exceed.
func Exceeds(x, limit, tol float64) bool {
	return x > limit+tol*math.Abs(limit)
}

// Below reports whether a p-value p is below the significance level alpha
// by more than the relative tolerance tol: p < alpha·(1 − tol). Equality
// and NaN never count.
func Below(p, alpha, tol float64) bool {
	return p < alpha*(1-tol)
}
