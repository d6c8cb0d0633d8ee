package privacy

import (
	"errors"
	"math"
)

// CalibrateMechanism is Calibrate for any sampler and adjacency: the
// smallest noise multiplier for which m (its NoiseMultiplier ignored) is
// (targetEpsilon, δ)-DP according to acc, to 1e-6 relative. Best is the
// smallest σ of the accountants that cover m.
func CalibrateMechanism(acc Accountant, targetEpsilon, delta float64, m SampledGaussian, o Options) (float64, error) {
	if m.isStandard() && m.Adjacency.orDefault() == AdjacencyAddRemove {
		return Calibrate(acc, targetEpsilon, delta, m.SamplingRate, m.Steps, o)
	}
	m.NoiseMultiplier = 1
	if err := checkAccounting(acc, []SampledGaussian{m}, o); err != nil {
		return 0, err
	}
	if !(targetEpsilon > 0) || math.IsInf(targetEpsilon, 1) {
		return 0, invalidf("target ε must be > 0 and finite, got %v", targetEpsilon)
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if acc == AccountantBest {
		best, bestErr := math.Inf(1), error(nil)
		for _, a := range []Accountant{AccountantRDP, AccountantPLD} {
			if m.supports(a) != nil {
				continue
			}
			s, err := CalibrateMechanism(a, targetEpsilon, delta, m, o)
			switch {
			case err == nil:
				best = math.Min(best, s)
			case errors.Is(err, ErrUnreachable):
				bestErr = err
			default:
				return 0, err
			}
		}
		if math.IsInf(best, 1) {
			return 0, bestErr
		}
		return best, nil
	}
	// Start from the add/remove σ, doubled for replace-one (sensitivity
	// up to 2C): the bracket grows from there.
	guess, err := gdpSigma(targetEpsilon, delta, m.SamplingRate, float64(m.Steps))
	if err != nil {
		return 0, err
	}
	if m.Adjacency.orDefault() != AdjacencyAddRemove {
		guess *= 2
	}
	epsOf := func(sigma float64, o Options) (float64, error) {
		mm := m
		mm.NoiseMultiplier = sigma
		return Epsilon(acc, mm, delta, o)
	}
	return calibrateSearch(acc, epsOf, targetEpsilon, guess, o)
}
