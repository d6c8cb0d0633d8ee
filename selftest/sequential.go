package selftest

import (
	"context"
	"fmt"
	"time"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
)

// SequentialConfig is a self-test of the sequential audit
// (audit.Sequential): R sequential audits of the ideal mechanism, each
// against a claim whose privacy profile is the mechanism's own (exact
// Gaussian DP for q = 1, T = 1; the PLD accountant's otherwise), so every
// violation is false. A valid (anytime-valid) audit flags at most a
// fraction α = 1 − confidence of them, whenever it stops.
type SequentialConfig struct {
	Epsilon, Delta float64 // the mechanism's true ε at δ
	SamplingRate   float64
	Steps          int
	Confidence     float64
	// FirstLook and Budget are the schedule (audit.sequential.first_look,
	// audit.trials).
	FirstLook, Budget int
	Audits            int
	// Test is "profile" (the default) or "epsilon" (the single pair).
	Test string
	// ClaimFactor scales the claimed σ: 1 (the default) is the honest
	// claim; above 1 the claim overstates the noise (a bug) and the rate
	// of violations is the audit's power instead.
	ClaimFactor float64
	Seed        uint64
	Workers     int
}

// DefaultSequential is the Gaussian mechanism at ε = 4, 95% confidence,
// looks from 100 trials to a budget of 6400, 200 audits.
func DefaultSequential() SequentialConfig {
	return SequentialConfig{Epsilon: 4, Delta: 1e-5, SamplingRate: 1, Steps: 1, Confidence: 0.95, FirstLook: 100, Budget: 6400,
		Audits: 200, Test: "profile", ClaimFactor: 1, Seed: 1}
}

// SequentialReport is the outcome: Violations of Audits flagged, the rate
// with its two-sided 95% Clopper–Pearson interval, against Nominal = α.
// OK: the rate is not significantly above α (RateLo ≤ α); only meaningful
// for the honest claim (ClaimFactor 1).
type SequentialReport struct {
	Config                   SequentialConfig
	Sigma, TrueEps           float64
	ClaimSigma, ClaimEpsilon float64
	Audits, Violations       int
	Rate, RateLo, RateHi     float64
	Nominal                  float64
	OK                       bool
	// MeanTrialsUsed and MeanLooks over the audits; MeanEpsilonLB is the
	// mean of the stopping looks' ε lower bounds.
	MeanTrialsUsed, MeanLooks, MeanEpsilonLB float64
	Elapsed                                  time.Duration
}

func (c SequentialConfig) check() error {
	base := Config{Epsilon: c.Epsilon, Delta: c.Delta, Confidence: c.Confidence, Repeats: c.Audits, Trials: []int{c.Budget}}
	if err := base.check(); err != nil {
		return err
	}
	switch {
	case c.FirstLook < audit.MinFirstLook || c.FirstLook > c.Budget:
		return fmt.Errorf("%w: selftest: the first look must be in [%d, budget %d], got %d", audit.ErrInvalid, audit.MinFirstLook, c.Budget, c.FirstLook)
	case c.Test != "profile" && c.Test != "epsilon":
		return fmt.Errorf("%w: selftest: sequential test must be profile or epsilon, got %q", audit.ErrInvalid, c.Test)
	case !(c.ClaimFactor >= 1):
		return fmt.Errorf("%w: selftest: the claim factor must be ≥ 1 (1: honest), got %v", audit.ErrInvalid, c.ClaimFactor)
	}
	return nil
}

// RunSequential runs the sequential self-test. Audit r draws its trials
// from rng.New(Seed, "selftest", "sequential", r): the report does not
// depend on Workers. It stops, returning ctx.Err(), once ctx is done.
func RunSequential(ctx context.Context, c SequentialConfig) (SequentialReport, error) {
	start := time.Now()
	if c.SamplingRate == 0 {
		c.SamplingRate = 1
	}
	if c.Steps == 0 {
		c.Steps = 1
	}
	if c.Test == "" {
		c.Test = "profile"
	}
	if c.ClaimFactor == 0 {
		c.ClaimFactor = 1
	}
	if err := c.check(); err != nil {
		return SequentialReport{}, err
	}
	sigma, trueEps, err := mechanism(Config{Epsilon: c.Epsilon, Delta: c.Delta, SamplingRate: c.SamplingRate, Steps: c.Steps})
	if err != nil {
		return SequentialReport{}, err
	}
	mech := attack.IdealMechanism{SamplingRate: c.SamplingRate, Steps: c.Steps, NoiseMultiplier: sigma}
	if err := mech.Validate(); err != nil {
		return SequentialReport{}, err
	}
	claimSigma := sigma * c.ClaimFactor
	claimEps, profile, err := claimedProfile(c, claimSigma, trueEps)
	if err != nil {
		return SequentialReport{}, err
	}
	o := audit.SequentialOptions{Confidence: c.Confidence, Delta: c.Delta, Profile: profile, FirstLook: c.FirstLook, Budget: c.Budget}
	results := make([]audit.SequentialResult, c.Audits)
	err = parallel.For(ctx, c.Audits, c.Workers, func(r int) error {
		// The distinguisher is the LLR at the claimed σ, as find-a-bug's
		// (it trusts the claim).
		scores, worlds := simulateAt(mech, claimSigma, c.Budget, c.Seed, "selftest", "sequential", r)
		res, err := audit.Sequential(scores, worlds, o)
		results[r] = res
		return err
	})
	if err != nil {
		return SequentialReport{}, err
	}
	rep := SequentialReport{Config: c, Sigma: sigma, TrueEps: trueEps, ClaimSigma: claimSigma, ClaimEpsilon: claimEps,
		Audits: c.Audits, Nominal: 1 - c.Confidence}
	for _, res := range results {
		if res.Violation {
			rep.Violations++
		}
		rep.MeanTrialsUsed += float64(res.TrialsUsed) / float64(c.Audits)
		rep.MeanLooks += float64(len(res.Looks)) / float64(c.Audits)
		rep.MeanEpsilonLB += res.EpsilonLB / float64(c.Audits)
	}
	rep.Rate = float64(rep.Violations) / float64(c.Audits)
	rep.RateLo, _ = audit.ClopperPearsonLower(rep.Violations, c.Audits, 0.95, audit.TwoSided)
	rep.RateHi, _ = audit.ClopperPearsonUpper(rep.Violations, c.Audits, 0.95, audit.TwoSided)
	rep.OK = rep.RateLo <= rep.Nominal
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// claimedProfile is the claim's ε at δ and the pairs a look tests: 24
// values of ε in [0, ε_claim) with the claim's δ(ε) (exact GDP for the
// Gaussian mechanism, the PLD accountant's otherwise), and (ε_claim, δ)
// — as stages does for a spec.
func claimedProfile(c SequentialConfig, claimSigma, trueEps float64) (float64, []audit.ProfilePoint, error) {
	gaussian := c.SamplingRate == 1 && c.Steps == 1
	eps := trueEps
	m := privacy.SampledGaussian{NoiseMultiplier: claimSigma, SamplingRate: c.SamplingRate, Steps: c.Steps}
	acc := privacy.AccountantPLD
	if gaussian {
		acc = privacy.AccountantGDP // exact for the Gaussian mechanism
	}
	if c.ClaimFactor != 1 || !gaussian {
		var err error
		if eps, err = privacy.Epsilon(acc, m, c.Delta, privacy.Options{}); err != nil {
			return 0, nil, err
		}
	}
	last := []audit.ProfilePoint{{Epsilon: eps, Delta: c.Delta}}
	if c.Test == "epsilon" {
		return eps, last, nil
	}
	const n = 24
	es := make([]float64, n)
	for j := range es {
		es[j] = eps * float64(j) / n
	}
	ds, err := privacy.DeltaProfile(acc, m, es, privacy.Options{})
	if err != nil {
		return 0, nil, err
	}
	var out []audit.ProfilePoint
	for j, e := range es {
		out = append(out, audit.ProfilePoint{Epsilon: e, Delta: min(ds[j], 1)})
	}
	return eps, append(out, last...), nil
}

// simulateAt is simulate with the distinguisher's LLR at sigmaD.
func simulateAt(mech attack.IdealMechanism, sigmaD float64, n int, seed uint64, path ...any) ([]float64, []bool) {
	r := rng.New(seed, path...)
	scores, worlds := make([]float64, n), make([]bool, n)
	for i := range n {
		worlds[i] = i%2 == 1
		scores[i] = mech.Trial(r, worlds[i], sigmaD).LLR
	}
	return scores, worlds
}
