package privacy

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Conversion selects how an RDP curve is turned into (ε, δ)-DP.
type Conversion int

const (
	// ConversionImproved is the conversion Google's dp_accounting uses
	// (Canonne, Kamath & Steinke 2020, Prop. 12; Balle et al. 2020, Eq. 20):
	//	ε = min_α RDP(α) + log(1 − 1/α) − log(δ·α)/(α − 1),
	// together with the KL bound δ ≤ √(1 − e^{−RDP}) that makes ε = 0 for a
	// negligible curve. It is the default (the zero value).
	ConversionImproved Conversion = iota
	// ConversionClassic is Mironov (2017), Prop. 3:
	//	ε = min_α RDP(α) + log(1/δ)/(α − 1),
	// as in TF-Privacy's original get_privacy_spent.
	ConversionClassic
)

func (c Conversion) String() string {
	switch c {
	case ConversionImproved:
		return "improved"
	case ConversionClassic:
		return "classic"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

func (c Conversion) check() error {
	if c != ConversionImproved && c != ConversionClassic {
		return invalidf("unknown RDP conversion %d", int(c))
	}
	return nil
}

// DefaultOrders returns (a fresh copy of) the order grid of Google
// dp_accounting's RdpAccountant (rdp_privacy_accountant.DEFAULT_RDP_ORDERS):
//
//	[1 + x/10 for x in 1..99] + [11..63] + [128, 256, 512, 1024]
//
// that is 1.1, 1.2, …, 10.9, 11, …, 63, 128, 256, 512, 1024 (156 orders; the
// first block contains the integers 2…10, which use the exact integer sum).
func DefaultOrders() []float64 {
	return append([]float64(nil), defaultOrders()...)
}

// defaultOrders is the shared, read-only default grid.
var defaultOrders = sync.OnceValue(func() []float64 {
	orders := make([]float64, 0, 156)
	for x := 1; x < 100; x++ {
		orders = append(orders, 1+float64(x)/10.0)
	}
	for a := 11; a < 64; a++ {
		orders = append(orders, float64(a))
	}
	return append(orders, 128, 256, 512, 1024)
})

// RDP is a Rényi-DP curve: Values[i] bounds the order-Orders[i] Rényi
// divergence of everything composed into it so far. RDP composes by adding
// curves order by order, so heterogeneous mechanisms are accounted by
// calling the Add methods once per mechanism.
type RDP struct {
	orders []float64 // read-only: may be the shared default grid
	values []float64
}

// NewRDP returns an empty curve over the given orders (nil or empty: the
// default grid). Orders must be finite and > 1; the slice is copied.
func NewRDP(orders []float64) (*RDP, error) {
	if len(orders) == 0 {
		orders = defaultOrders()
	} else {
		orders = append([]float64(nil), orders...)
	}
	for _, a := range orders {
		if err := checkOrder(a); err != nil {
			return nil, err
		}
	}
	return &RDP{orders: orders, values: make([]float64, len(orders))}, nil
}

// Orders returns a copy of the curve's orders.
func (r *RDP) Orders() []float64 { return append([]float64(nil), r.orders...) }

// Values returns a copy of the curve's RDP values, one per order.
func (r *RDP) Values() []float64 { return append([]float64(nil), r.values...) }

// AddSampledGaussian composes `steps` steps of the Poisson-subsampled
// Gaussian mechanism (sampling rate q, noise multiplier σ; σ = 0 adds +Inf).
func (r *RDP) AddSampledGaussian(q, sigma float64, steps int) error {
	if err := checkSamplingRate(q); err != nil {
		return err
	}
	if err := checkNoise(sigma, true); err != nil {
		return err
	}
	if err := checkSteps(steps); err != nil {
		return err
	}
	e := newSGMEvaluator(q, sigma)
	t := float64(steps)
	for i, a := range r.orders {
		r.values[i] += t * e.rdp(a)
	}
	return nil
}

// Compose adds another curve over the same orders into r.
func (r *RDP) Compose(other *RDP) error {
	if len(other.orders) != len(r.orders) {
		return invalidf("cannot compose RDP curves over different orders (%d vs %d orders)", len(r.orders), len(other.orders))
	}
	for i, a := range r.orders {
		if other.orders[i] != a {
			return invalidf("cannot compose RDP curves over different orders (%v vs %v at index %d)", a, other.orders[i], i)
		}
	}
	for i, v := range other.values {
		r.values[i] += v
	}
	return nil
}

// Epsilon returns the smallest ε over the orders for which the composed
// mechanism is (ε, δ)-DP, and the order attaining it. It is +Inf when every
// order is infinite (no noise).
func (r *RDP) Epsilon(delta float64, c Conversion) (eps, order float64, err error) {
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	best, bestOrder := math.Inf(1), r.orders[0]
	logDelta := math.Log(delta)
	for i, a := range r.orders {
		v := r.values[i]
		var e float64
		switch {
		case math.IsNaN(v):
			return 0, 0, fmt.Errorf("privacy: RDP value at order %v is NaN", a)
		case c == ConversionClassic:
			e = v - logDelta/(a-1)
		case delta*delta+math.Expm1(-v) > 0:
			// KL bound: δ ≤ √(1 − e^{−D_KL}) ≤ √(1 − e^{−RDP(α)}) already holds.
			e = 0
		case a > 1.01:
			// Unstable as α → 1 and useless there, so dp_accounting skips α ≤ 1.01.
			e = v + math.Log1p(-1/a) - (logDelta+math.Log(a))/(a-1)
		default:
			e = math.Inf(1)
		}
		if e < best {
			best, bestOrder = e, a
		}
	}
	return math.Max(0, best), bestOrder, nil
}

// Delta returns the smallest δ over the orders for which the composed
// mechanism is (ε, δ)-DP, and the order attaining it.
func (r *RDP) Delta(eps float64, c Conversion) (delta, order float64, err error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, 0, err
	}
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	best, bestOrder := math.Inf(1), r.orders[0]
	for i, a := range r.orders {
		v := r.values[i]
		var logD float64
		if math.IsNaN(v) {
			return 0, 0, fmt.Errorf("privacy: RDP value at order %v is NaN", a)
		}
		if c == ConversionClassic {
			logD = (a - 1) * (v - eps)
		} else {
			// min of the KL bound and the improved bound (dp_accounting compute_delta).
			if v <= 0 {
				logD = math.Inf(-1)
			} else {
				logD = 0.5 * numeric.Log1mExp(-v)
			}
			if a > 1.01 {
				logD = math.Min(logD, (a-1)*(v-eps+math.Log1p(-1/a))-math.Log(a))
			}
		}
		if logD < best {
			best, bestOrder = logD, a
		}
	}
	return math.Min(math.Exp(best), 1), bestOrder, nil
}
