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
// the claim is equivalent to (stages.AccountedNoise: σ/2 for replace-one
// adjacency, σ/1.11524 for the soft clip).
func (m mechanismConfig) accountedSigma() float64 {
	return stages.AccountedNoise(m.NoiseMultiplier, m.Adjacency, m.Clip)
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

// claimEpsilon is the claim's ε at δ: its accountant on the
// sensitivity-C equivalent of the claimed mechanism (+Inf without noise).
func claimEpsilon(c mechanismConfig, delta float64) (float64, error) {
	if c.NoiseMultiplier == 0 {
		return math.Inf(1), nil
	}
	acc := privacy.Accountant(c.Accountant)
	if acc == "" {
		acc = privacy.AccountantBest
	}
	return privacy.Epsilon(acc,
		privacy.SampledGaussian{NoiseMultiplier: c.accountedSigma(), SamplingRate: c.SamplingRate, Steps: c.Steps}, delta, privacy.Options{})
}
