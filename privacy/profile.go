package privacy

import (
	"errors"
	"math"
)

// DeltaProfile returns δ(ε) of m according to acc at each of epsilons —
// the privacy profile an accountant claims — building the accountant's
// state once (Delta rebuilds a PLD per call, 0.2 s at σ = 0.6, q = 0.1,
// T = 100). PLD values are not re-tilted near each ε as Delta's may be:
// they are never below Delta's (the tilt only lowers δ), so each is still
// a δ the accountant certifies.
func DeltaProfile(acc Accountant, m SampledGaussian, epsilons []float64, o Options) ([]float64, error) {
	ms := []SampledGaussian{m}
	if err := checkAccounting(acc, ms, o); err != nil {
		return nil, err
	}
	for _, e := range epsilons {
		if err := checkEpsilon(e); err != nil {
			return nil, err
		}
	}
	if noNoise(ms) {
		return filled(len(epsilons), 1), nil
	}
	switch acc {
	case AccountantRDP:
		return rdpProfile(ms, epsilons, o)
	case AccountantPLD:
		return pldProfile(ms, epsilons, o)
	case AccountantGDP:
		return gdpProfile(ms, epsilons)
	}
	// best: as ComposedDeltaDetail's, the smaller valid bound at each ε.
	if _, exact := gdpMuOf(ms); exact {
		return gdpProfile(ms, epsilons)
	}
	p, err := pldProfile(ms, epsilons, o)
	if err != nil || !rdpCovers(ms) {
		return p, err
	}
	r, err := rdpProfile(ms, epsilons, o)
	if err != nil {
		return nil, err
	}
	for i := range p {
		p[i] = math.Min(r[i], p[i])
	}
	return p, nil
}

// filled is n copies of v.
func filled(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// gdpProfile is δ(ε) of the μ-GDP bound at each ε.
func gdpProfile(ms []SampledGaussian, epsilons []float64) ([]float64, error) {
	mu, _ := gdpMuOf(ms)
	out := make([]float64, len(epsilons))
	for i, e := range epsilons {
		d, err := GDPDelta(mu, e)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// rdpProfile is δ(ε) of the RDP bound at each ε.
func rdpProfile(ms []SampledGaussian, epsilons []float64, o Options) ([]float64, error) {
	r, err := rdpOf(ms, o)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(epsilons))
	for i, e := range epsilons {
		if out[i], _, err = r.Delta(e, o.Conversion); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pldProfile is δ(ε) of the PLD at each ε; a PLD too large for the memory
// cap gives the trivial δ = 1 (valid, and never below a true δ).
func pldProfile(ms []SampledGaussian, epsilons []float64, o Options) ([]float64, error) {
	d, _, err := pldOf(ms, o)
	if errors.Is(err, ErrTooLarge) {
		return filled(len(epsilons), 1), nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(epsilons))
	for i, e := range epsilons {
		out[i] = d.Delta(e)
	}
	return out, nil
}
