// Package learn holds dpaudit's models and its DP-SGD trainer: logistic
// regression (sigmoid or softmax), MLPs (relu, tanh, elu, sigmoid) and small
// CNNs (convolution with stride and padding, average pooling), trained in
// float32 with per-example clipping and Gaussian noise exactly as the
// privacy analysis assumes, and observable step by step through hooks.
//
// # Models
//
// [NewModel] builds a model from an [Arch], an input shape ([D] or
// [C, H, W]) and a class count, and initialises it from a seed (see the
// Init constants; default PyTorch's U(±1/√fan_in)). All parameters live in
// one flat float32 vector ([Model.Params], [Model.SetParams]; layout in
// [Model.Layers]). [TanhCNN] is Guo et al.'s / Papernot et al.'s MNIST CNN
// (26,010 parameters). Losses are cross-entropies: softmax over the classes,
// or one logit with a sigmoid for a 2-class logistic regression.
//
// Every architecture is a layer list ([LayerSpec]: dense, conv2d, maxpool,
// avgpool, flatten, activations): Arch kind "layers" takes the user's own
// list, and the presets logreg, mlp and cnn are names for lists
// ([Arch.LayerList]) that train to the same bits (TestPresetsAreLayerLists).
// A list that does not fit its input shape is a *[LayerError] naming the
// layer, the shape it got and the layer that produced it.
//
// # DP-SGD
//
// [Train] runs the algorithm of Abadi et al. (2016) as the accountants
// analyse it; see [DPSGD] for the exact update. Per step:
//
//   - Poisson sampling with rate q (default): each record is in the batch
//     independently with probability q, drawn in O(batch) with geometric
//     gaps; empty batches are noise-only steps. Other samplers —
//     shuffled epochs, fixed-size batches without replacement,
//     balls-in-bins (random allocation) and cyclic groups (the
//     participation of matrix-factorization training) — are available and
//     flagged (Result.MatchesAccountant = false: the Poisson accountants
//     do not cover them; privacy.SampledGaussian's Sampling does).
//   - Correlated noise (DPSGD.Correlated): matrix-factorization / DP-FTRL
//     noise C⁻¹w with a banded Toeplitz or BLT strategy, solved row by
//     row from the same noise stream.
//   - Per-example gradients g_i are clipped to norm C (hard clip, or Guo et
//     al.'s soft clip), summed, and N(0, σ²C²·I) is added to the sum, which
//     is divided by the expected batch size q·N.
//   - SGD with optional momentum and weight decay (PyTorch's semantics).
//
// Per-example gradients are not materialised for dense layers: example i's
// weight gradient is δ_i·a_iᵀ (output delta times input activation), whose
// norm is ‖δ_i‖·‖a_i‖ (‖δ_i‖²(‖a_i‖²+1) squared, with the bias), and the
// clipped sum Σ c_i δ_i a_iᵀ = (c∘Δ)ᵀA is one GEMM over the chunk.
// Convolutions are im2col + one GEMM forward; for their norms each
// example's small gradient Δ_iᵀU_i is materialised (cheaper than the Gram
// trick ⟨U_iU_iᵀ, Δ_iΔ_iᵀ⟩ at these sizes; BenchmarkConvNorms measures
// both), and the clipped sum is Σ c_i G_i. Behind a ReLU and max
// pooling, and as a first layer of one channel, a convolution reads its
// images in place instead (conv_direct.go), applies the ReLU in the same
// pass, and its backward pass sums only the non-zero output deltas
// (conv_sparse.go) — the GEMMs' FMA chains, so the same bits.
//
// # Determinism and threads
//
// All randomness comes from the *rand.Rand given to Train (one uint64 is
// drawn and every stream derived from it with package rng). A batch is cut
// into chunks of [DPSGD.ChunkSize] examples; chunks run on [DPSGD.Threads]
// goroutines and their sums are added in chunk order, and the noise comes
// from fixed blocks of coordinates with their own streams, so the result is
// bit-identical for any thread count. The default for audits is one thread
// per run and runs in parallel; more threads help when a batch spans several
// chunks or the model has more than 16,384 parameters (several noise blocks).
//
// # Hooks
//
// [Hooks] observe every step — parameters before the update, batch indices,
// the noisy gradient sum, per-example norms and losses, and on request the
// clipped per-example gradients and the noise-free sum — and let an
// adversary take part: a gradient canary added with probability q, a target
// record (index N) that may be rewritten before every step. Unused hooks
// cost nothing. For attacks on a trained model: [Model.PerExampleLoss],
// [Model.InputGradient], [Model.PerExampleGradients], [Model.Accuracy],
// [Model.Loss].
//
// # Errors
//
// Bad shapes, labels or configuration, NaN or ±Inf in the data, gradients
// or parameters, and hook errors stop a run with an error naming the step,
// the record or the layer; Train then returns no result.
//
// # Kernels
//
// Matrix products and the vector bookkeeping around them (bias adds and
// gradients, per-example norms and scaling, tanh, the SGD update, NaN/Inf
// checks, pooling's shifted sums) go through package learn/gemm; see
// kernels.go for which results are the same bits on every path. The
// exponentials of the softmax head and ELU run four at a time with AVX2
// (exp_amd64.s, the same bits as the scalar exp32). The plain-Go loops that
// remain hot are the activation derivatives (activation.go), im2col/col2im's
// run copies (im2col.go), the softmax head's logarithm and the ziggurat
// (normal.go): candidates for vector kernels.
package learn
