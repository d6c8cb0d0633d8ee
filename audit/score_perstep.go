package audit

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/privacy"
)

// LayoutPerStep: the rows are per-step samples of white-box canaries
// (Nasr et al., USENIX Security 2023) — each row one canary's projection
// at one step, member meaning the canary was inserted at that step — as
// a step column says. The fresh Gaussian noise of every step and
// coordinate makes the samples independent given the model, which is
// what PerStep needs; it bounds the per-step μ, which the claim's
// accountant composes over its steps.
const LayoutPerStep Layout = "per_step"

// PerStepClaim is the claimed DP-SGD mechanism a per-step μ is composed
// over: T steps at the claimed sampling rate, and the claim's per-step μ
// (1/σ of the sensitivity-C mechanism).
type PerStepClaim struct {
	NoiseMultiplier, SamplingRate float64
	Steps                         int
	// Accountant composes at q < 1 ("" is best).
	Accountant string
}

// PerStepEstimate is the per-step audit of a table, composed over the
// claim when there is one.
type PerStepEstimate struct {
	PerStepResult
	Samples int
	// Claim is the mechanism composed over (nil: none, and the ε
	// columns are NaN).
	Claim *PerStepClaim
	// EpsilonLB, EpsilonPoint, EpsilonUB: MuLower, MuPoint and MuUpper
	// composed over the claim's T steps at its q.
	EpsilonLB, EpsilonPoint, EpsilonUB float64
	// ClaimMu is the claim's per-step μ, ClaimStepEpsilon its one-step ε
	// at δ (q = 1, T = 1).
	ClaimMu, ClaimStepEpsilon float64
	Composition, Tests        string
}

// ComposePerStep is the ε at δ of T steps of the per-step family with
// parameter mu: μ-GDP composed exactly (√T·μ) at q = 1, else the
// accountant on the Poisson-subsampled Gaussian with σ = 1/μ. NaN stays
// NaN, μ ≤ 0 is 0 and μ = +Inf is +Inf.
func ComposePerStep(mu, q float64, steps int, accountant string, delta float64) (float64, error) {
	switch {
	case math.IsNaN(mu):
		return math.NaN(), nil
	case mu <= 0:
		return 0, nil
	case math.IsInf(mu, 1):
		return math.Inf(1), nil
	case q == 1:
		return privacy.GDPEpsilon(math.Sqrt(float64(steps))*mu, delta)
	}
	acc := privacy.Accountant(accountant)
	if acc == "" {
		acc = privacy.AccountantBest
	}
	return privacy.Epsilon(acc, privacy.SampledGaussian{NoiseMultiplier: 1 / mu, SamplingRate: q, Steps: steps}, delta, privacy.Options{})
}

// perStep runs PerStep on the samples in table order (its selection
// halves are by index parity) and composes over the claim.
func (e *ScoreEstimates) perStep(t *ScoreTable) error {
	o := e.Options
	var in, out []float64
	for i, s := range t.Score {
		if t.Member[i] {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	r, err := PerStep(in, out, 1, o.Delta, o.Confidence)
	if err != nil {
		return err
	}
	nan := math.NaN()
	ps := &PerStepEstimate{PerStepResult: r, Samples: t.Len(), Claim: o.PerStepClaim,
		EpsilonLB: nan, EpsilonPoint: nan, EpsilonUB: nan, ClaimMu: nan, ClaimStepEpsilon: nan,
		Composition: "none (no mechanism claimed)", Tests: "none (no mechanism claimed)"}
	e.PerStep = ps
	c := o.PerStepClaim
	if c == nil {
		e.skip(FamilyPerStepGDP+" composition", "no mechanism claimed: the per-step μ is reported, not composed")
		return nil
	}
	for _, x := range []struct {
		mu  float64
		out *float64
	}{{r.MuLower, &ps.EpsilonLB}, {r.MuPoint, &ps.EpsilonPoint}, {r.MuUpper, &ps.EpsilonUB}} {
		if *x.out, err = ComposePerStep(x.mu, c.SamplingRate, c.Steps, c.Accountant, o.Delta); err != nil {
			return fmt.Errorf("per-step composition of μ = %v: %w", x.mu, err)
		}
	}
	ps.ClaimMu = math.Inf(1)
	if c.NoiseMultiplier > 0 {
		ps.ClaimMu = 1 / c.NoiseMultiplier
	}
	if ps.ClaimStepEpsilon, err = claimedStepEpsilon(c, o.Delta); err != nil {
		return err
	}
	ps.Composition, ps.Tests = "gdp: mu_total = sqrt(T) * mu_step", "gaussian (mu-GDP per step, T steps)"
	if c.SamplingRate < 1 {
		ps.Composition = "accountant on the subsampled Gaussian (sigma = 1/mu_step, claimed q and T)"
		ps.Tests = fmt.Sprintf("Gaussian noise per step, Poisson q = %g (taken from the claim, not audited), T = %d", c.SamplingRate, c.Steps)
	}
	return nil
}

// claimedStepEpsilon is the claim's ε of one unsubsampled step.
func claimedStepEpsilon(c *PerStepClaim, delta float64) (float64, error) {
	if c.NoiseMultiplier == 0 {
		return math.Inf(1), nil
	}
	acc := privacy.Accountant(c.Accountant)
	if acc == "" {
		acc = privacy.AccountantBest
	}
	return privacy.Epsilon(acc, privacy.SampledGaussian{NoiseMultiplier: c.NoiseMultiplier, SamplingRate: 1, Steps: 1}, delta, privacy.Options{})
}

func (e *ScoreEstimates) perStepRow() EstimateRow {
	ps := e.PerStep
	return EstimateRow{Family: FamilyPerStepGDP, Tests: ps.Tests, Valid: ps.Claim != nil, EpsilonLB: ps.EpsilonLB, EpsilonPoint: ps.EpsilonPoint,
		EpsilonHi: ps.EpsilonUB, Confidence: ps.Confidence, Used: ps.Samples,
		Detail: fmt.Sprintf("per-step mu in [%.4g, %.4g] (point %.4g), %s; one step's (epsilon, delta) bound %.4g",
			ps.MuLower, ps.MuUpper, ps.MuPoint, ps.Composition, ps.EpsilonStepLB),
		refutes: ps.Claim != nil, byPValue: true,
		pValue: func(float64) float64 {
			// The claim's per-step μ, not an ε: the claim is the mechanism.
			return PerStepPValue(ps.PerStepResult, ps.ClaimMu)
		}}
}

func (e *ScoreEstimates) perStepColumns() []NamedValue {
	ps := e.PerStep
	q := math.NaN()
	if ps.Claim != nil {
		q = ps.Claim.SamplingRate
	}
	return []NamedValue{
		{"per_step_runs", int64(max(e.Layout.Runs, 1))},
		{"per_step_samples", int64(ps.Samples)},
		{"per_step_threshold", ps.Threshold},
		{"per_step_fpr_upper", ps.FPRUpper},
		{"per_step_fnr_upper", ps.FNRUpper},
		{"per_step_mu_lb", ps.MuLower},
		{"per_step_mu_ub", ps.MuUpper},
		{"per_step_mu_point", ps.MuPoint},
		{"per_step_claim_mu", ps.ClaimMu},
		{"per_step_sampling_rate", q},
		{"per_step_composition", ps.Composition},
		{"per_step_claim", ps.Tests},
		{"epsilon_per_step_point", ps.EpsilonPoint},
		{"epsilon_per_step_ub", ps.EpsilonUB},
		{"per_step_cp_epsilon_lb", ps.EpsilonStepLB},
		{"per_step_claim_step_epsilon", ps.ClaimStepEpsilon},
	}
}
