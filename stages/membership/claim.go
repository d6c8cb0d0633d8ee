package membership

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// mechanismConfig is a DP-SGD configuration as an accountant sees it: the
// audit's claim, or what was trained (Accountant empty).
type mechanismConfig struct {
	Accountant      string  `json:"accountant,omitempty"`
	NoiseMultiplier float64 `json:"noise_multiplier"`
	Sampling        string  `json:"sampling"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
	Clip            string  `json:"clip"`
	Adjacency       string  `json:"adjacency"`
}

// accountedSigma is the noise multiplier of the sensitivity-C mechanism
// the claim's clipping is equivalent to (stages.AccountedMechanism).
func (m mechanismConfig) accountedSigma() float64 { return m.mechanism().NoiseMultiplier }

// mechanism is the configuration as the accountant takes it.
func (m mechanismConfig) mechanism() privacy.SampledGaussian {
	return stages.AccountedMechanism(m.NoiseMultiplier, m.SamplingRate, m.Steps, m.Sampling, m.Adjacency, m.Clip)
}

// accountant is the claim's accountant (best when none is named).
func (m mechanismConfig) accountant() privacy.Accountant {
	if m.Accountant == "" {
		return privacy.AccountantBest
	}
	return privacy.Accountant(m.Accountant)
}

// String is the configuration in one line, for violation messages.
func (m mechanismConfig) String() string {
	acc := ""
	if m.Accountant != "" {
		acc = m.Accountant + " accountant, "
	}
	return fmt.Sprintf("%sσ=%.4g, %s sampling q=%.4g, T=%d, %s clip, %s", acc, m.NoiseMultiplier, m.Sampling, m.SamplingRate, m.Steps, m.Clip, m.Adjacency)
}

func (m mechanismConfig) sameMechanism(o mechanismConfig) bool {
	m.Accountant, o.Accountant = "", ""
	return m == o
}

// claimOf resolves the audit's claim against the trained configuration:
// every absent key is the trained one.
func claimOf(a *spec.Audit, trained mechanismConfig) mechanismConfig {
	c := trained
	c.Accountant = a.Accountant
	if a.ClaimedNoiseMultiplier > 0 {
		c.NoiseMultiplier = a.ClaimedNoiseMultiplier
	}
	if cl := a.Claim; cl != nil {
		if cl.Accountant != "" {
			c.Accountant = cl.Accountant
		}
		if cl.NoiseMultiplier > 0 {
			c.NoiseMultiplier = cl.NoiseMultiplier
		}
		if cl.Sampling != "" {
			c.Sampling = cl.Sampling
		}
		if cl.SamplingRate > 0 {
			c.SamplingRate = cl.SamplingRate
		}
		if cl.Steps > 0 {
			c.Steps = cl.Steps
		}
		if cl.Clip != "" {
			c.Clip = cl.Clip
		}
		if cl.Adjacency != "" {
			c.Adjacency = cl.Adjacency
		}
	}
	return c
}

// claimEpsilon is the claim's ε at δ: its accountant on the claimed
// mechanism (+Inf without noise).
func claimEpsilon(c mechanismConfig, delta float64) (float64, error) {
	if c.NoiseMultiplier == 0 {
		return math.Inf(1), nil
	}
	return privacy.Epsilon(c.accountant(), c.mechanism(), delta, privacy.Options{})
}

// checkClaim refuses, before any trial runs, a claim the game cannot test
// or no accountant can account. A game's worlds differ by one adjacency;
// an audit of it bounds that adjacency's ε only, so an exact replace-one
// claim needs a replace-one game and an add/remove claim an add/remove
// game (the σ/2 replace-one bound upper-bounds both, so either game tests
// it). adjPath and samplingPath are where the claim's adjacency and
// sampling came from.
func checkClaim(claim, game mechanismConfig, adjPath, samplingPath string) error {
	switch {
	case claim.Adjacency == string(privacy.AdjacencyReplaceOne) && game.Adjacency != claim.Adjacency:
		return &stages.PathError{Path: adjPath, Err: fmt.Errorf("%w: a replace-one claim needs a game whose worlds differ by a replaced record (the ideal mechanism with dpsgd.adjacency replace_one, or crafter swapped_label); this game's worlds differ by %s. Claim replace_one_sigma_half for an upper bound an add/remove game can test", privacy.ErrInvalid, game.Adjacency)}
	case claim.Adjacency == string(privacy.AdjacencyAddRemove) && game.Adjacency != claim.Adjacency:
		return &stages.PathError{Path: adjPath, Err: fmt.Errorf("%w: an add/remove claim needs a game whose worlds differ by an added record; this game's worlds differ by %s", privacy.ErrInvalid, game.Adjacency)}
	}
	if claim.NoiseMultiplier == 0 {
		return nil
	}
	if err := privacy.CheckAccountable(claim.accountant(), claim.mechanism()); err != nil {
		return &stages.PathError{Path: samplingPath, Err: fmt.Errorf("the claim (%s) cannot be accounted: %w", claim, err)}
	}
	return nil
}
