package membership

import (
	"fmt"
	"math"
	"reflect"

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
	// Groups and Correlated: cyclic sampling and matrix-factorization
	// noise, left out when absent (other configurations keep their keys).
	Groups     int                `json:"groups,omitempty"`
	Correlated *stages.Correlated `json:"correlated,omitempty"`
}

// accountedSigma is the noise multiplier of the sensitivity-C mechanism
// the claim's clipping is equivalent to (stages.AccountedMechanism).
func (m mechanismConfig) accountedSigma() float64 { return m.sampledGaussian().NoiseMultiplier }

// sampledGaussian is the configuration as DP-SGD's accountant takes it.
func (m mechanismConfig) sampledGaussian() privacy.SampledGaussian {
	return stages.AccountedMechanism(m.NoiseMultiplier, m.SamplingRate, m.Steps, m.Sampling, m.Adjacency, m.Clip)
}

// mechanism is the configuration as the accountant takes it: cyclic
// sampling and matrix-factorization noise as the DP-SGD mechanism their
// matrix mechanism is equivalent to (stages.Accounted).
func (m mechanismConfig) mechanism() (privacy.SampledGaussian, error) {
	eq, mf, err := stages.Accounted(m.accountedSigma(), m.SamplingRate, m.Steps, m.Sampling, m.Groups, m.Correlated)
	if mf || err != nil {
		return eq, err
	}
	return m.sampledGaussian(), nil
}

// matrix reports whether the configuration is a matrix mechanism
// (cyclic sampling or correlated noise).
func (m mechanismConfig) matrix() bool { return m.Correlated != nil || m.Sampling == "cyclic" }

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
	s := fmt.Sprintf("%sσ=%.4g, %s sampling q=%.4g, T=%d, %s clip, %s", acc, m.NoiseMultiplier, m.Sampling, m.SamplingRate, m.Steps, m.Clip, m.Adjacency)
	if m.Sampling == "cyclic" {
		s += fmt.Sprintf(", %d groups", m.Groups)
	}
	if c := m.Correlated; c != nil {
		s += fmt.Sprintf(", %s MF noise (%d bands, %s participation", c.Strategy, c.Bands(m.Steps), c.Participation)
		if c.Participation == "min_sep" {
			s += fmt.Sprintf(" %d", c.MinSep)
		}
		if c.MaxParticipations > 0 {
			s += fmt.Sprintf(", at most %d", c.MaxParticipations)
		}
		s += ")"
	}
	return s
}

func (m mechanismConfig) sameMechanism(o mechanismConfig) bool {
	m.Accountant, o.Accountant = "", ""
	return reflect.DeepEqual(m, o)
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
		if cl.Correlated != nil {
			c.Correlated = stages.CorrelatedOf(cl.Correlated)
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
	m, err := c.mechanism()
	if err != nil {
		return 0, err
	}
	return privacy.Epsilon(c.accountant(), m, delta, privacy.Options{})
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
	m, err := claim.mechanism()
	if err == nil {
		err = privacy.CheckAccountable(claim.accountant(), m)
	}
	if err != nil {
		return &stages.PathError{Path: samplingPath, Err: fmt.Errorf("the claim (%s) cannot be accounted: %w", claim, err)}
	}
	return nil
}
