package privacy

import (
	"errors"
	"fmt"
	"math"
)

// Accountant names a method of turning a DP-SGD configuration into (ε, δ).
type Accountant string

const (
	// AccountantRDP: Rényi DP of the sampled Gaussian (Mironov, Talwar &
	// Zhang 2019) converted to (ε, δ) at the best order. An upper bound.
	AccountantRDP Accountant = "rdp"
	// AccountantPLD: the discretised privacy loss distribution composed by
	// FFT (as Google's dp_accounting). An upper bound (pessimistic rounding,
	// the default) that is tight up to the discretisation interval.
	AccountantPLD Accountant = "pld"
	// AccountantGDP: the central-limit Gaussian-DP approximation (Bu et al.
	// 2020). Not a guaranteed bound: it is a limit that can be optimistic.
	AccountantGDP Accountant = "gdp"
)

func (a Accountant) check() error {
	switch a {
	case AccountantRDP, AccountantPLD, AccountantGDP:
		return nil
	}
	return invalidf("unknown accountant %q (want rdp, pld or gdp)", string(a))
}

// SampledGaussian is the DP-SGD mechanism: Steps steps of the Gaussian
// mechanism with noise multiplier NoiseMultiplier (noise std / clipping
// norm) on a Poisson sample of rate SamplingRate, under add/remove
// adjacency. NoiseMultiplier = 0 means no noise (ε = +Inf).
type SampledGaussian struct {
	NoiseMultiplier float64
	SamplingRate    float64
	Steps           int
}

func (m SampledGaussian) check() error {
	if err := checkNoise(m.NoiseMultiplier, true); err != nil {
		return err
	}
	if err := checkSamplingRate(m.SamplingRate); err != nil {
		return err
	}
	return checkSteps(m.Steps)
}

// Options tunes the accountants; the zero value gives the defaults.
type Options struct {
	// Orders for RDP (nil: DefaultOrders, dp_accounting's grid).
	Orders []float64
	// Conversion from RDP to (ε, δ) (zero value: ConversionImproved).
	Conversion Conversion
	// PLDInterval is the PLD discretisation interval (0: 1e-4).
	PLDInterval float64
	// Optimistic rounds PLD losses down (privacy buckets, as dp_accounting
	// does for pessimistic_estimate=False), giving a lower estimate of ε
	// instead of an upper bound; the two bracket the exact value. Buckets
	// lose up to one interval per step (half on average), so the lower
	// estimate is only useful with T·h small: at h = 1e-4 and T = 14063 it
	// is 0.7 below the exact ε, against ~1e-4 above for the pessimistic
	// connect-the-dots bound (see PMF).
	Optimistic bool
}

func (o Options) check() error {
	if err := o.Conversion.check(); err != nil {
		return err
	}
	if o.PLDInterval != 0 && (!(o.PLDInterval > 0) || math.IsInf(o.PLDInterval, 1)) {
		return invalidf("PLD interval must be > 0 and finite (or 0 for the default), got %v", o.PLDInterval)
	}
	for _, a := range o.Orders {
		if err := checkOrder(a); err != nil {
			return err
		}
	}
	return nil
}

func (o Options) interval() float64 {
	if o.PLDInterval == 0 {
		return DefaultPLDInterval
	}
	return o.PLDInterval
}

// Epsilon returns the ε for which m is (ε, δ)-DP according to acc.
func Epsilon(acc Accountant, m SampledGaussian, delta float64, o Options) (float64, error) {
	return ComposedEpsilon(acc, []SampledGaussian{m}, delta, o)
}

// Delta returns the δ for which m is (ε, δ)-DP according to acc.
func Delta(acc Accountant, m SampledGaussian, epsilon float64, o Options) (float64, error) {
	return ComposedDelta(acc, []SampledGaussian{m}, epsilon, o)
}

// ComposedEpsilon returns ε(δ) for running all the mechanisms in ms one
// after the other (heterogeneous composition, e.g. a schedule whose noise or
// batch size changes).
func ComposedEpsilon(acc Accountant, ms []SampledGaussian, delta float64, o Options) (float64, error) {
	if err := checkAccounting(acc, ms, o); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if noNoise(ms) {
		return math.Inf(1), nil
	}
	switch acc {
	case AccountantRDP:
		r, err := rdpOf(ms, o)
		if err != nil {
			return 0, err
		}
		eps, _, err := r.Epsilon(delta, o.Conversion)
		return eps, err
	case AccountantPLD:
		d, err := pldOf(ms, o)
		if errors.Is(err, ErrTooLarge) {
			return math.Inf(1), nil
		}
		if err != nil {
			return 0, err
		}
		return d.Epsilon(delta), nil
	default:
		return GDPEpsilon(gdpMuOf(ms), delta)
	}
}

// ComposedDelta returns δ(ε) for running all the mechanisms in ms.
func ComposedDelta(acc Accountant, ms []SampledGaussian, epsilon float64, o Options) (float64, error) {
	if err := checkAccounting(acc, ms, o); err != nil {
		return 0, err
	}
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	if noNoise(ms) {
		return 1, nil
	}
	switch acc {
	case AccountantRDP:
		r, err := rdpOf(ms, o)
		if err != nil {
			return 0, err
		}
		d, _, err := r.Delta(epsilon, o.Conversion)
		return d, err
	case AccountantPLD:
		d, err := pldOf(ms, o)
		if errors.Is(err, ErrTooLarge) {
			return 1, nil
		}
		if err != nil {
			return 0, err
		}
		return d.Delta(epsilon), nil
	default:
		return GDPDelta(gdpMuOf(ms), epsilon)
	}
}

func checkAccounting(acc Accountant, ms []SampledGaussian, o Options) error {
	if err := acc.check(); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if len(ms) == 0 {
		return invalidf("no mechanism to account for")
	}
	for i, m := range ms {
		if err := m.check(); err != nil {
			return fmt.Errorf("mechanism %d: %w", i, err)
		}
	}
	return nil
}

func noNoise(ms []SampledGaussian) bool {
	for _, m := range ms {
		if m.NoiseMultiplier == 0 {
			return true
		}
	}
	return false
}

func rdpOf(ms []SampledGaussian, o Options) (*RDP, error) {
	r, err := NewRDP(o.Orders)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if err := r.AddSampledGaussian(m.SamplingRate, m.NoiseMultiplier, m.Steps); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// pldOf composes the PLDs of the mechanisms. When a mechanism's PLD is too
// wide to discretise (ErrTooLarge: σ so small that single-step losses span
// more than MaxPMFLen intervals, i.e. hundreds of nats at 1e-4, so ε is in the
// hundreds), the accountant reports the trivial bound ε = +Inf.
func pldOf(ms []SampledGaussian, o Options) (*PLD, error) {
	var total *PLD
	for _, m := range ms {
		d, err := SampledGaussianPLD(m.SamplingRate, m.NoiseMultiplier, m.Steps, o.interval(), !o.Optimistic)
		if err != nil {
			return nil, err
		}
		if total == nil {
			total = d
		} else if total, err = total.Compose(d); err != nil {
			return nil, err
		}
	}
	return total, nil
}

// gdpMuOf composes the CLT μ of several mechanisms: μ-GDP composes as
// √(Σ μᵢ²).
func gdpMuOf(ms []SampledGaussian) float64 {
	s := 0.0
	for _, m := range ms {
		mu, _ := GDPMu(m.SamplingRate, m.NoiseMultiplier, float64(m.Steps))
		s += mu * mu
	}
	return math.Sqrt(s)
}

// RDPEpsilon is Epsilon with the RDP accountant that also returns the order
// attaining the minimum (useful to see whether the order grid is wide
// enough: an optimum at the largest order means it is not).
func RDPEpsilon(m SampledGaussian, delta float64, o Options) (eps, order float64, err error) {
	if err := checkAccounting(AccountantRDP, []SampledGaussian{m}, o); err != nil {
		return 0, 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	r, err := rdpOf([]SampledGaussian{m}, o)
	if err != nil {
		return 0, 0, err
	}
	return r.Epsilon(delta, o.Conversion)
}
