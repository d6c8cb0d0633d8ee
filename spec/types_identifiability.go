package spec

// Identifiability is the identifiability audit of Bernau et al. (2021): the
// adversary A_DI, who knows both neighbouring datasets D and D′, tracks its
// posterior belief through every step of full-batch DP-SGD on D (the point's
// dataset, model and dpsgd block; dpsgd.sampling_rate must be 1 and
// dpsgd.noise_multiplier is z, e.g. "=bernau_noise(0.9, dpsgd.delta,
// dpsgd.steps)"). Reported beside the belief bound of the same point.
type Identifiability struct {
	Adjacency              string  `yaml:"adjacency" required:"true" enum:"bounded|unbounded" doc:"Neighbouring datasets: bounded = D′ replaces one record of D by a pool (test-split) record; unbounded = D′ is D without one record."`
	Sensitivity            string  `yaml:"sensitivity" default:"local" enum:"local|global" doc:"Noise std σ_i = z·Δf_i: local = the local sensitivity LS_i = ‖Σ_D ḡ − Σ_D′ ḡ‖ recomputed at every step (Sec. 5.1; the bounds become tight); global = C (unbounded) or 2C (bounded)."`
	Repetitions            int     `yaml:"repetitions" required:"true" check:">=1" doc:"n: independent trainings on D with fresh noise (the paper uses 250–1000)."`
	ShardSize              int     `yaml:"shard_size" default:"0" check:">=0" doc:"Repetitions per pipeline node; 0 = 50. Results do not depend on it."`
	Confidence             float64 `yaml:"confidence" default:"0.95" check:">0,<1" doc:"Confidence of the two-sided Clopper–Pearson intervals of the advantage and δ′."`
	Optimizer              string  `yaml:"optimizer" default:"sgd" enum:"sgd|adam" doc:"How the released noisy mean gradient updates θ: sgd (the paper's θ ← θ − η·g̃) or adam (TF1 Adam, the authors' code). The adversary reads the weights, so it is unaffected."`
	Output                 string  `yaml:"output" default:"gaussian" enum:"gaussian|worst_case" doc:"gaussian: the DP-SGD release μ₁ + N(0, σ_i²I); worst_case: the authors' deterministic release whose every step has likelihood ratio exactly ε/k, so β_k = ρ_β (a check of the chain)."`
	RandomInit             bool    `yaml:"random_init" default:"true" doc:"A fresh θ₀ per repetition (the authors' code); false: one fixed θ₀ for all."`
	Differing              string  `yaml:"differing" default:"max" enum:"max|min|random|index" doc:"Which record differs: max = dataset sensitivity (Def. 6), the record of D with the rank-th largest dissimilarity (unbounded: summed to the rest of D, Eq. 18; bounded: to its most dissimilar pool record, Eq. 20); min = the rank-th smallest; random = a seeded uniform record (bounded: and pool record); index = record index (bounded: pool record candidate, or the most dissimilar one)."`
	Rank                   int     `yaml:"rank" default:"1" check:">=1" doc:"With differing max or min: which of the ordered records (1 = the extreme one; the paper's Fig. 4 uses 1–3)."`
	Distance               string  `yaml:"distance" default:"auto" enum:"auto|ssim|euclidean|hamming|manhattan|cosine" doc:"Dissimilarity of the crafter: ssim = 1 − SSIM (skimage defaults; images), euclidean, hamming, manhattan, cosine; auto = ssim for images, euclidean otherwise."`
	Index                  int     `yaml:"index" default:"-1" check:">=-1" doc:"With differing index: the record of D (training split order)."`
	ClaimedNoiseMultiplier float64 `yaml:"claimed_noise_multiplier" default:"0" check:">=0" doc:"For testing auditors: train (and let the adversary compute its likelihoods) with dpsgd.noise_multiplier, but account ε, ρ_β and δ′'s threshold with this z (0 = the same). A smaller true z must be reported as a violation."`
	Candidate              int     `yaml:"candidate" default:"-1" check:">=-1" doc:"With differing index and bounded adjacency: the pool record that replaces it (-1: the most dissimilar)."`
}
