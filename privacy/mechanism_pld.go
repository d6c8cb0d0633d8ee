package privacy

import (
	"fmt"
	"math"
)

// compositions is how many times m's one-step (or one-epoch) PLD is
// composed with itself: m.Steps, or the number of epochs for balls-in-bins
// sampling, whose unit is an epoch.
func (m SampledGaussian) compositions() int {
	if m.Sampling.orDefault() == SamplingBallsInBins {
		if _, e, err := m.epochs(); err == nil {
			return e
		}
	}
	return m.Steps
}

// mechanismPLD is the PLD of all of m's steps at interval h (its unit PLD
// from memo, which may be nil).
func mechanismPLD(m SampledGaussian, h float64, pessimistic bool, limit int, memo *stepMemo) (*PLD, error) {
	step, count, err := memo.step(m, h, pessimistic, limit)
	if err != nil || count == 1 {
		return step, err
	}
	d, err := step.SelfCompose(count)
	if err != nil {
		return nil, fmt.Errorf("%s PLD (q=%v, σ=%v): %w", m.describe(), m.SamplingRate, m.NoiseMultiplier, err)
	}
	return d, nil
}

// stepMemo keeps the last unit PLD that mechanismStep built for one ε(δ)
// or δ(ε), so that its tilted recompositions reuse the step the plain
// composition started from instead of building it again: the same
// arguments give the same PMFs, and at T = 10⁶ building the step three
// times took 7.5% of a whole `dpaudit account`. A nil *stepMemo
// remembers nothing.
type stepMemo struct {
	m           SampledGaussian
	h           float64
	pessimistic bool
	limit       int
	pld         *PLD
	count       int
}

// step is mechanismStep(m, h, pessimistic, limit), built once per memo.
// The PLD it returns is shared: no caller modifies a PMF it did not build.
func (s *stepMemo) step(m SampledGaussian, h float64, pessimistic bool, limit int) (*PLD, int, error) {
	if s != nil && s.pld != nil && s.m == m && s.h == h && s.pessimistic == pessimistic && s.limit == limit {
		return s.pld, s.count, nil
	}
	step, count, err := mechanismStep(m, h, pessimistic, limit)
	if s != nil && err == nil {
		*s = stepMemo{m: m, h: h, pessimistic: pessimistic, limit: limit, pld: step, count: count}
	}
	return step, count, err
}

// mechanismStep returns the PLD of one unit of m (a step, or an epoch of
// balls-in-bins sampling) and how many units m composes. Each unit's PLD
// dominates every pair of neighbouring datasets that unit can see, so the
// composition dominates the adaptive run (the dominating pairs of each
// sampler are named in the file that builds them).
func mechanismStep(m SampledGaussian, h float64, pessimistic bool, limit int) (*PLD, int, error) {
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	if h == 0 {
		h = DefaultPLDInterval
	}
	if !(h > 0) || math.IsInf(h, 1) {
		return nil, 0, invalidf("PLD interval must be > 0 and finite, got %v", h)
	}
	if m.NoiseMultiplier == 0 {
		return nil, 0, invalidf("a PLD needs noise (σ > 0)")
	}
	var step *PLD
	var err error
	switch {
	case m.isStandard():
		step, err = sampledGaussianStep(m.SamplingRate, m.accountedSigma(), h, pessimistic, limit)
	case m.Sampling.orDefault() == SamplingPoisson: // exact replace-one
		step, err = replaceOneStep(m.SamplingRate, m.NoiseMultiplier, h, pessimistic, limit)
	case m.Sampling.orDefault() == SamplingFixedSize:
		step, err = fixedSizeStep(m.SamplingRate, m.NoiseMultiplier, h, pessimistic, limit)
	case m.Sampling.orDefault() == SamplingBallsInBins:
		t, epochs, e := m.epochs()
		if e != nil {
			return nil, 0, e
		}
		step, err = ballsInBinsEpoch(t, m.NoiseMultiplier, h, pessimistic, limit)
		if err != nil {
			return nil, 0, fmt.Errorf("balls-in-bins PLD (%d batches per epoch, σ=%v): %w", t, m.NoiseMultiplier, err)
		}
		return step, epochs, nil
	default:
		return nil, 0, noAccountantf("no PLD for %s", m.describe())
	}
	if err != nil {
		return nil, 0, err
	}
	return step, m.Steps, nil
}

// describe names m's sampler and adjacency, for messages.
func (m SampledGaussian) describe() string {
	return fmt.Sprintf("%s-sampled Gaussian (%s)", m.Sampling.orDefault(), m.Adjacency.orDefault())
}

// rdpCovers reports whether the RDP accountant covers every mechanism.
func rdpCovers(ms []SampledGaussian) bool {
	for _, m := range ms {
		if m.supports(AccountantRDP) != nil {
			return false
		}
	}
	return true
}
