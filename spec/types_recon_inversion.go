package spec

// ReconInversion is the gradient-based, prior-oblivious reconstruction of
// Hayes, Mahloujifar & Balle (2023) §2.1 (their Eq. 1), converted to a
// prior success rate by naming the prior's candidate nearest to the
// reconstruction. The prior-aware rules run on the same trials beside it.
type ReconInversion struct {
	PriorSize              int     `yaml:"prior_size" default:"10" check:">=2" doc:"|π|: candidates of the nearest-candidate conversion (the attack itself uses no prior)."`
	Trials                 int     `yaml:"trials" default:"1000" check:">=1" doc:"Trials of the reconstruction game (at least 100)."`
	Steps                  int     `yaml:"steps" default:"200" check:">=1" doc:"Optimisation budget: Adam steps per restart (the paper runs 10⁶ plain gradient steps; each step costs T per-example gradients and 2T input gradients)."`
	LearningRate           float64 `yaml:"learning_rate" default:"0.05" check:">0" doc:"Adam step size in input units (inputs are kept in [0, 1])."`
	Restarts               int     `yaml:"restarts" default:"1" check:">=1" doc:"Random restarts from uniform noise; the reconstruction of lowest loss is kept (the paper: 5)."`
	ThreatModel            string  `yaml:"threat_model" default:"gradient" enum:"api_access|final_model|intermediate_models|gradient" doc:"The attack reads every privatised gradient sum: only gradient is enough."`
	ShardSize              int     `yaml:"shard_size" default:"0" check:">=0" doc:"Trials per pipeline node; 0 = 8. Results do not depend on it."`
	Confidence             float64 `yaml:"confidence" default:"0.95" check:">0,<1" doc:"Confidence of the two-sided Clopper–Pearson interval on the success rate."`
	ClaimedNoiseMultiplier float64 `yaml:"claimed_noise_multiplier" default:"0" check:">=0" doc:"Compute the rero bound with this σ instead of dpsgd.noise_multiplier (0 = the same)."`
}
