package membership

import (
	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// An audit point becomes: one craft node (the crafter's worlds, shared by
// every distinguisher and trial count), trial shards of a fixed number of
// trials each, and one estimate node over all shards. Trial i's randomness
// is rng.New(seed, "trial", pointKey, i) — it depends on the spec seed, the
// game's configuration and i only, never on the shard or the worker, so
// results are identical for any shard size and any -j. The ideal mechanism
// has no craft node: its trials simulate the scalar observation stream.
const (
	craftVersion  = 1
	trialsVersion = 2 // 2: the repeat column
	// idealTrialsVersion is the ideal mechanism's trials: 3: the Poisson
	// game's trials from its vector stream (attack/ideal_poisson.go).
	idealTrialsVersion = 3
	estimateVersion    = 5 // 2: claim vs trained, estimate families, p-values, repeats; 3: best accountant, PLD rounding bounds; 4: one-run f-DP and order statistics; 5: audit_training_runs, headline_*, audit_cpu_seconds

	craftFile = "crafted.json"

	defaultShard      = 64
	defaultIdealShard = 1 << 16
)

// auditGame is everything a trial depends on besides the crafted worlds.
type auditGame struct {
	Data          stages.DataParams  `json:"data"`
	Arch          learn.Arch         `json:"arch"`
	DPSGD         stages.TrainDPSGD  `json:"dpsgd"` // what training really does (σ_actual)
	Claimed       float64            `json:"claimed_noise_multiplier"`
	Crafter       spec.Crafter       `json:"crafter"`
	Distinguisher spec.Distinguisher `json:"distinguisher"`
	Threat        string             `json:"threat_model"`
	RandomInit    bool               `json:"random_init"`
	Seed          int64              `json:"seed"`
}

// craftParams is what the crafter depends on: the adversary knows the
// configuration as claimed.
type craftParams struct {
	Data    stages.DataParams `json:"data"`
	Arch    learn.Arch        `json:"arch"`
	DPSGD   stages.TrainDPSGD `json:"dpsgd"`
	Crafter spec.Crafter      `json:"crafter"`
	Seed    uint64            `json:"seed"`
	Init    uint64            `json:"init_seed"`
	// WorstCase pre-trains θ_0 on Data's held-out records (absent: the
	// key of a craft without it is unchanged).
	WorstCase *spec.WorstCaseInit `json:"worst_case_init,omitempty"`
}

type shardParams struct {
	Key    string    `json:"point_key"`
	Game   auditGame `json:"game"`
	First  int       `json:"first"`
	Count  int       `json:"count"`
	Repeat int       `json:"repeat,omitempty"` // 0 keeps the key of an audit without repeats
}

// withGame sets the game the ideal mechanism simulates from the trained
// configuration's sampler and adjacency.
func (p idealShardParams) withGame(t mechanismConfig) idealShardParams {
	p.Shuffle = t.Sampling == "shuffle"
	p.BallsInBins = t.Sampling == "balls_in_bins"
	p.FixedSize = t.Sampling == "fixed_size"
	p.ReplaceOne = t.Adjacency == string(privacy.AdjacencyReplaceOne)
	return p
}

// idealMechanism is the mechanism a shard simulates.
func idealMechanism(p idealShardParams) attack.IdealMechanism {
	return attack.IdealMechanism{SamplingRate: p.Sampling, Steps: p.Steps, NoiseMultiplier: p.Sigma,
		Shuffle: p.Shuffle, BallsInBins: p.BallsInBins, FixedSize: p.FixedSize, ReplaceOne: p.ReplaceOne}
}

type idealShardParams struct {
	Key         string  `json:"point_key"`
	Seed        int64   `json:"seed"`
	Sampling    float64 `json:"sampling_rate"`
	Steps       int     `json:"steps"`
	Sigma       float64 `json:"noise_multiplier"`
	SigmaD      float64 `json:"distinguisher_noise_multiplier"`
	RandomWorld bool    `json:"random_worlds"`     // one-run audits: each canary in with probability ½
	Shuffle     bool    `json:"shuffle,omitempty"` // shuffled batches (attack.IdealMechanism.Shuffle)
	// The other games of attack.IdealMechanism, left out when false so
	// that the Poisson add/remove game keeps its key.
	BallsInBins bool `json:"balls_in_bins,omitempty"`
	FixedSize   bool `json:"fixed_size,omitempty"`
	ReplaceOne  bool `json:"replace_one,omitempty"`
	First       int  `json:"first"`
	Count       int  `json:"count"`
	Repeat      int  `json:"repeat,omitempty"`
}
