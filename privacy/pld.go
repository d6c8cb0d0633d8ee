package privacy

import (
	"fmt"
	"math"
)

// DefaultPLDInterval is the default discretisation interval of privacy
// losses (dp_accounting's value_discretization_interval default).
const DefaultPLDInterval = 1e-4

// gaussianLogTailBound is dp_accounting's log_mass_truncation_bound: the
// per-step noise is discretised on [Φ⁻¹(½e^-50)·σ, −Φ⁻¹(½e^-50)·σ] (shifted by
// the sensitivity on one side), ≈ ±9.77σ; the mass outside (< e^-50 ≈ 2e-22)
// goes to +∞ in pessimistic mode.
const gaussianLogTailBound = -50.0

// PLD is the privacy loss distribution of a mechanism under add/remove
// adjacency, kept as the two PMFs dp_accounting keeps: Remove (P = M(D),
// Q = M(D minus one record)) and Add (P = M(D), Q = M(D plus one record)).
// δ(ε) is the larger of the two. Add is nil when the two coincide (no
// subsampling).
type PLD struct {
	Remove, Add *PMF
}

// Delta returns δ(ε) = max(δ_remove(ε), δ_add(ε)).
func (d *PLD) Delta(eps float64) float64 {
	v := d.Remove.DeltaForEpsilon(eps)
	if d.Add != nil {
		v = math.Max(v, d.Add.DeltaForEpsilon(eps))
	}
	return v
}

// Epsilon returns ε(δ) = max(ε_remove(δ), ε_add(δ)); +Inf when δ is below
// the mass at infinity (at least the 1e-15 truncation allowance per
// composition in pessimistic mode), which no ε can certify.
func (d *PLD) Epsilon(delta float64) float64 {
	v := d.Remove.EpsilonForDelta(delta)
	if d.Add != nil {
		v = math.Max(v, d.Add.EpsilonForDelta(delta))
	}
	return v
}

// Compose returns the PLD of running both mechanisms (heterogeneous
// composition), truncating DefaultTailMass per direction.
func (d *PLD) Compose(o *PLD) (*PLD, error) {
	r, err := d.Remove.Compose(o.Remove, DefaultTailMass)
	if err != nil {
		return nil, err
	}
	if d.Add == nil && o.Add == nil {
		return &PLD{Remove: r}, nil
	}
	a, err := d.addOrRemove().Compose(o.addOrRemove(), DefaultTailMass)
	if err != nil {
		return nil, err
	}
	return &PLD{Remove: r, Add: a}, nil
}

func (d *PLD) addOrRemove() *PMF {
	if d.Add != nil {
		return d.Add
	}
	return d.Remove
}

// SelfCompose returns the PLD of T runs of the mechanism.
func (d *PLD) SelfCompose(T int) (*PLD, error) {
	r, err := d.Remove.SelfCompose(T, DefaultTailMass)
	if err != nil {
		return nil, err
	}
	if d.Add == nil {
		return &PLD{Remove: r}, nil
	}
	a, err := d.Add.SelfCompose(T, DefaultTailMass)
	if err != nil {
		return nil, err
	}
	return &PLD{Remove: r, Add: a}, nil
}

// SampledGaussianPLD returns the PLD of `steps` steps of the
// Poisson-subsampled Gaussian mechanism (sampling rate q, noise multiplier
// σ > 0, sensitivity 1), discretised at the given interval (0: the default
// 1e-4); the accountant functions also accept σ = 0, meaning no noise.
// Pessimistic rounding uses connect-the-dots, as dp_accounting's
// from_gaussian_mechanism with pessimistic_estimate=True; optimistic uses
// privacy buckets rounded down (dp_accounting falls back to it too). When σ
// is so small that one step's losses span more than MaxPMFLen intervals the
// error wraps ErrTooLarge.
func SampledGaussianPLD(q, sigma float64, steps int, interval float64, pessimistic bool) (*PLD, error) {
	return sampledGaussianPLD(q, sigma, steps, interval, pessimistic, MaxPMFLen)
}

// sampledGaussianPLD is SampledGaussianPLD with at most limit grid points
// in any PMF it builds or composes.
func sampledGaussianPLD(q, sigma float64, steps int, interval float64, pessimistic bool, limit int) (*PLD, error) {
	if err := checkSamplingRate(q); err != nil {
		return nil, err
	}
	if err := checkNoise(sigma, false); err != nil {
		return nil, err
	}
	if err := checkSteps(steps); err != nil {
		return nil, err
	}
	if interval == 0 {
		interval = DefaultPLDInterval
	}
	if !(interval > 0) || math.IsInf(interval, 1) {
		return nil, invalidf("PLD interval must be > 0 and finite, got %v", interval)
	}
	step, err := sampledGaussianStep(q, sigma, interval, pessimistic, limit)
	if err != nil || steps == 1 {
		return step, err
	}
	d, err := step.SelfCompose(steps)
	if err != nil {
		return nil, fmt.Errorf("sampled Gaussian PLD (q=%v, σ=%v): %w", q, sigma, err)
	}
	return d, nil
}

// sampledGaussianStep is the PLD of one step (arguments checked by the
// caller), its PMFs and their compositions capped at limit grid points.
func sampledGaussianStep(q, sigma, interval float64, pessimistic bool, limit int) (*PLD, error) {
	wrap := func(err error) error { return fmt.Errorf("sampled Gaussian PLD (q=%v, σ=%v): %w", q, sigma, err) }
	remove := sampledGaussianLoss(q, sigma, false)
	var step PLD
	var err error
	switch {
	case !pessimistic:
		if step.Remove, err = remove.buckets(interval, false, limit); err == nil && q < 1 {
			step.Add, err = sampledGaussianLoss(q, sigma, true).buckets(interval, false, limit)
		}
	case q == 1:
		step.Remove, err = remove.connectDotsLimit(interval, limit)
	default:
		// The add pair is the remove pair reversed (x → −x), so both come
		// from one evaluation of the remove hockey-stick curve.
		if err = remove.check(interval); err == nil {
			step.Remove, step.Add, err = connectDotsDual(interval, remove.Loss(remove.XHigh), remove.Loss(remove.XLow), remove.split, limit)
		}
	}
	if err != nil {
		return nil, wrap(err)
	}
	step.Remove.limit = limit
	if step.Add != nil {
		step.Add.limit = limit
	}
	return &step, nil
}

// SelfComposeAt is SelfCompose with both directions' masses made accurate
// near the loss `at` (see PMF.SelfComposeAt): for ε(δ) or δ(ε) at tiny δ,
// where the plain FFT's rounding bound dominates. tailMass is truncated
// per direction as in PMF.SelfCompose (DefaultTailMass, or less when δ is
// so small that 1e-15 at infinity would be a visible share of it).
func (d *PLD) SelfComposeAt(T int, tailMass, at float64) (*PLD, error) {
	r, err := d.Remove.SelfComposeAt(T, tailMass, at)
	if err != nil {
		return nil, err
	}
	if d.Add == nil {
		return &PLD{Remove: r}, nil
	}
	a, err := d.Add.SelfComposeAt(T, tailMass, at)
	if err != nil {
		return nil, err
	}
	return &PLD{Remove: r, Add: a}, nil
}

// roundingShare bounds how much of δ(ε) comes from the FFT rounding bounds
// added to the masses: Σ_{l > ε} (1 − e^{ε−l})·η ≤ η·#{grid points above ε}.
func (d *PLD) roundingShare(eps float64) float64 {
	s := d.Remove.roundingShare(eps)
	if d.Add != nil {
		s = math.Max(s, d.Add.roundingShare(eps))
	}
	return s
}

func (p *PMF) roundingShare(eps float64) float64 {
	if p.roundingBound == 0 {
		return 0
	}
	k := math.Ceil(eps/p.interval) - float64(p.offset) // first stored index above ε (or at it)
	above := float64(len(p.probs)) - math.Max(0, k)
	return p.roundingBound * math.Max(0, above)
}
