// Package identify is the identifiability game of Bernau, Keller, Eibl,
// Grassal & Kerschbaum (2021), "Quantifying identifiability to choose and
// audit ε in differentially private deep learning" (reference note:
// shared/reference/bernau2021-identifiability.md).
//
// The adversary A_DI knows both neighbouring datasets D and D′, the
// mechanism and every noisy gradient released by full-batch DP-SGD. At
// every step it recomputes the clipped gradient sums of D and D′ at the
// released weights and updates its posterior belief β that D was used
// (Lemma 1), in log space: Λ += (‖r − μ₀‖² − ‖r − μ₁‖²)/(2σ_i²), β =
// logistic(Λ). It guesses D iff β > ½.
//
// The package has three parts, one job each:
//
//   - Craft (craft.go, distance.go): the neighbouring datasets, with the
//     differing record chosen by dataset sensitivity (Def. 6, Eq. 18, 20):
//     the record of D (and, bounded, the pool record) that maximises a
//     dissimilarity — 1 − SSIM for images, Euclidean, Hamming, Manhattan
//     or cosine for tabular data.
//   - Adversary (adversary.go): the belief update of Algorithm 1.
//   - Game (game.go): one repetition of training on D as analysed — noise
//     N(0, σ_i²I) on the clipped sum with σ_i = z·Δf_i, Δf_i the global
//     sensitivity (C unbounded, 2C bounded) or the local sensitivity
//     LS_i = ‖Σ_D ḡ − Σ_D′ ḡ‖ at the current weights — with the adversary
//     watching every step.
//
// As in the paper (§4, and the authors' code), every repetition trains on
// D (b = 1); the advantage is then estimated as 2·P[β_k > ½] − 1, which
// equals TPR − FPR for the symmetric Gaussian game.
package identify
