package spec

// AuditSource is a table of attack scores computed elsewhere — by the
// user's own pipeline, or a canary plan's canaries scored after training
// elsewhere — that the audit estimates instead of running trials. It is
// what `dpaudit estimate` reads, with the same options, so that a spec can
// sweep over score files (one per training configuration kept in git) and
// draw figures across them; docs/estimate.md.
type AuditSource struct {
	Scores        string  `yaml:"scores" required:"true" doc:"The score table, relative to the spec's folder: Parquet (.parquet or .pq), a folder of Parquet parts (read in name order as one table), or CSV. Columns member (bool or 0/1) and score, optionally canary, run, user and step; the layout of the rows decides which estimators are valid (docs/estimate.md). Its SHA-256 (of a folder: over its parts' names and digests) is part of the estimate's key and of the manifest's data_files."`
	Plan          string  `yaml:"plan" doc:"A canary plan (dpaudit canaries make: the Parquet file, its manifest beside it), relative to the spec's folder: the table is joined to the plan's canaries and inclusion bits by canary id, and refused if they disagree."`
	MemberColumn  string  `yaml:"member_column" default:"member" doc:"Column of the membership bits (with a plan: checked against the plan's bits when the table has it)."`
	ScoreColumn   string  `yaml:"score_column" default:"score" doc:"Column of the scores (higher = more likely a member, unless lower_is_member)."`
	CanaryColumn  string  `yaml:"canary_column" doc:"Column naming each row's canary; absent: canary if the table has it."`
	RunColumn     string  `yaml:"run_column" doc:"Column naming each row's training run; absent: run if the table has it."`
	UserColumn    string  `yaml:"user_column" doc:"Column naming each row's privacy unit; absent: user if the table has it."`
	StepColumn    string  `yaml:"step_column" doc:"Column of the step of per-step samples; absent: step if the table has it. It makes the table a per-step audit."`
	LowerIsMember bool    `yaml:"lower_is_member" default:"false" doc:"Low scores mean member (a loss)."`
	ScoreIsLLR    bool    `yaml:"score_is_llr" default:"false" doc:"The scores are log-likelihood ratios: the order-statistics decoder guesses by their sign (else by the side of the median)."`
	Group         string  `yaml:"group" enum:"user" doc:"user: aggregate each privacy unit's records into one score first (the audit, and the claim's adjacency, are then user-level); needs aggregate."`
	Aggregate     string  `yaml:"aggregate" enum:"max|min|mean|logsumexp" doc:"With group: user, how a unit's record scores become one score."`
	ClaimEpsilon  float64 `yaml:"claim_epsilon" default:"0" check:">=0" doc:"The claimed ε at delta, when the claim is a number rather than the dpsgd block's mechanism; 0 = absent (without a dpsgd block: no claim, estimates only)."`
	Delta         float64 `yaml:"delta" default:"0" check:">=0,<1" doc:"δ of the claim and of every estimate; 0 = dpsgd.delta, or 1e-5 without a dpsgd block."`
	OSFamily      string  `yaml:"os_family" default:"claim" enum:"claim|gaussian|none" doc:"Order-statistics family of the one-run estimate: claim (the dpsgd mechanism's, Gaussian for a number or no claim), gaussian, or none."`
}
