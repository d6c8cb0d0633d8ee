// Package numeric holds dpaudit's scalar numerics, one copy each: log-space
// sums (log-add-exp, log(1 − eˣ), log-sum-exp), the standard normal
// distribution with full relative accuracy in the far tails (Φ, 1 − Φ,
// log Φ, Φ⁻¹ including probabilities below the smallest float64, log erfc),
// and Brent's bracketing root finder.
//
// The accountants, the theoretical bounds, the estimators and the
// distinguishers all evaluate these functions, often far in the tails
// (Φ at −40, probabilities of e^{−1000}); keeping one implementation means
// one place where their accuracy is stated and tested. The package sits on
// the lowest floor: it imports nothing of the module, only the standard
// library and gonum.
package numeric
