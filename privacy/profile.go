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
	out := make([]float64, len(epsilons))
	if noNoise(ms) {
		for i := range out {
			out[i] = 1
		}
		return out, nil
	}
	gdp := func() ([]float64, error) {
		mu, _ := gdpMuOf(ms)
		for i, e := range epsilons {
			d, err := GDPDelta(mu, e)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	rdp := func() ([]float64, error) {
		r, err := rdpOf(ms, o)
		if err != nil {
			return nil, err
		}
		v := make([]float64, len(epsilons))
		for i, e := range epsilons {
			if v[i], _, err = r.Delta(e, o.Conversion); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	pld := func() ([]float64, error) {
		d, _, err := pldOf(ms, o)
		v := make([]float64, len(epsilons))
		if errors.Is(err, ErrTooLarge) {
			for i := range v {
				v[i] = 1
			}
			return v, nil
		}
		if err != nil {
			return nil, err
		}
		for i, e := range epsilons {
			v[i] = d.Delta(e)
		}
		return v, nil
	}
	switch acc {
	case AccountantRDP:
		return rdp()
	case AccountantPLD:
		return pld()
	case AccountantGDP:
		return gdp()
	}
	// best: as ComposedDeltaDetail's, the smaller valid bound at each ε.
	if _, exact := gdpMuOf(ms); exact {
		return gdp()
	}
	p, err := pld()
	if err != nil {
		return nil, err
	}
	if !rdpCovers(ms) {
		return p, nil
	}
	r, err := rdp()
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = math.Min(r[i], p[i])
	}
	return out, nil
}
