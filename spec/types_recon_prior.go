package spec

// ReconPriorAware is the prior-aware reconstruction game of Hayes,
// Mahloujifar & Balle (2023): per trial a uniform prior of prior_size
// candidates, a target drawn from it, DP-SGD on D₋ ∪ {target}, and the
// attack's guess. The summary reports the success rate with a
// Clopper–Pearson interval beside the rero bound of the same (σ, q, T, |π|).
type ReconPriorAware struct {
	PriorSize              int     `yaml:"prior_size" default:"10" check:">=2" doc:"|π|: candidates in the prior (uniform; success = naming the target, so the baseline is 1/|π|)."`
	Trials                 int     `yaml:"trials" default:"1000" check:">=1" doc:"Trials of the reconstruction game (at least 100: fewer leave the success interval wider than ±0.1)."`
	Rule                   string  `yaml:"rule" default:"auto" enum:"auto|sum|top_steps|log_likelihood" doc:"The decision rule whose success is reported (all three are recorded per trial): sum = Algorithm 2; top_steps = Algorithm 3, the ⌈qT⌉ best steps; log_likelihood = Appendix G's exact likelihood ratio; auto = sum at q = 1, top_steps below."`
	Prior                  string  `yaml:"prior" default:"pool" enum:"pool|uniform_noise" doc:"Where candidates come from: pool = records of the test split (same distribution as D₋, never in it); uniform_noise = uniform noise with the pool's mean pairwise distance and random labels (Hayes et al. Fig. 9)."`
	Geometry               string  `yaml:"geometry" default:"orthogonal" enum:"orthogonal|antipodal" doc:"Ideal mechanism only: the candidates' clipped gradients are orthogonal unit vectors, or (prior_size 2) antipodal ones, for which the attack attains the bound."`
	ThreatModel            string  `yaml:"threat_model" default:"gradient" enum:"api_access|final_model|intermediate_models|gradient" doc:"What the adversary sees: gradient = every privatised gradient sum and θ_t; intermediate_models = every θ_t, the sums recovered by inverting the public update. The prior-aware attack needs one of these two."`
	ShardSize              int     `yaml:"shard_size" default:"0" check:">=0" doc:"Trials per pipeline node; 0 = 32 for trained models, 65536 for the ideal mechanism. Results do not depend on it."`
	Confidence             float64 `yaml:"confidence" default:"0.95" check:">0,<1" doc:"Confidence of the two-sided Clopper–Pearson interval on the success rate."`
	ClaimedNoiseMultiplier float64 `yaml:"claimed_noise_multiplier" default:"0" check:">=0" doc:"For testing auditors: train with dpsgd.noise_multiplier but compute the rero bound (and the log-likelihood rule) with this σ (0 = the same). Claiming more noise than was used must be flagged as rero_violation."`
}
