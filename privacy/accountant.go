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
	// Exception: at q = 1 every step is a Gaussian mechanism, T of them are
	// exactly (√T/σ)-GDP (Dong, Roth & Su 2022, Cor. 3.3), and the exact
	// conversion is used.
	AccountantGDP Accountant = "gdp"
	// AccountantBest: the smallest of the valid upper bounds — RDP, PLD,
	// and GDP where it is exact (q = 1) — so that no configuration is worse
	// off for asking for the tighter accountant (PLD at its default interval
	// is looser than RDP in some regimes, and +Inf where it gives up).
	AccountantBest Accountant = "best"
)

func (a Accountant) check() error {
	switch a {
	case AccountantRDP, AccountantPLD, AccountantGDP, AccountantBest:
		return nil
	}
	return invalidf("unknown accountant %q (want rdp, pld, gdp or best)", string(a))
}

// Result is an accountant's answer and how it was reached.
type Result struct {
	// Value is ε (EpsilonDetail) or δ (DeltaDetail).
	Value float64
	// Accountant is the accountant whose bound Value is: the one asked for,
	// or for AccountantBest the one that gave the minimum.
	Accountant Accountant
	// PLDInterval is the discretisation interval the PLD accountant actually
	// used (coarser than requested when the requested grid would not fit in
	// Options.PLDMemory; see Options.PLDInterval); 0 when no PLD was run.
	PLDInterval float64
	// Exact reports a GDP value from the exact conversion (q = 1).
	Exact bool
}

// SampledGaussian is the DP-SGD mechanism: Steps steps of the Gaussian
// mechanism with noise multiplier NoiseMultiplier (noise std / clipping
// norm) on a sampled batch. The zero values of Sampling and Adjacency are
// DP-SGD as analysed by Abadi et al.: a Poisson sample of rate
// SamplingRate, add/remove adjacency. NoiseMultiplier = 0 means no noise
// (ε = +Inf).
type SampledGaussian struct {
	NoiseMultiplier float64
	SamplingRate    float64
	Steps           int
	// Sampling is how batches are drawn (zero value: Poisson). For
	// fixed-size batches SamplingRate is b/n; for balls-in-bins it is
	// 1/StepsPerEpoch.
	Sampling Sampling
	// Adjacency is the neighbouring relation (zero value: add/remove).
	Adjacency Adjacency
	// StepsPerEpoch is the number of batches per epoch of balls-in-bins
	// sampling (0: 1/SamplingRate, which must then be an integer).
	StepsPerEpoch int
}

func (m SampledGaussian) check() error {
	if err := checkNoise(m.NoiseMultiplier, true); err != nil {
		return err
	}
	if err := checkSamplingRate(m.SamplingRate); err != nil {
		return err
	}
	if err := checkSteps(m.Steps); err != nil {
		return err
	}
	return m.checkForm()
}

// Options tunes the accountants; the zero value gives the defaults.
type Options struct {
	// Orders for RDP (nil: DefaultOrders, dp_accounting's grid).
	Orders []float64
	// Conversion from RDP to (ε, δ) (zero value: ConversionImproved).
	Conversion Conversion
	// PLDInterval is the PLD discretisation interval (0: 1e-4). When the
	// composed grid would not fit in PLDMemory (very many steps, tiny σ, a
	// very fine interval), the accountant coarsens the interval by a power
	// of two, up to MaxPLDInterval: a coarser pessimistic grid is still an
	// upper bound. Result.PLDInterval says which interval was used.
	PLDInterval float64
	// PLDMemory is the memory in bytes the PLD accountant may use for its
	// grids before it coarsens the interval (0: DefaultPLDMemory, a quarter
	// of physical RAM). It is turned into a grid-point cap at
	// pldBytesPerPoint bytes per point (the measured peak).
	PLDMemory int64
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
	if o.PLDMemory < 0 {
		return invalidf("PLD memory must be ≥ 0 bytes (0 for the default), got %d", o.PLDMemory)
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
	r, err := ComposedEpsilonDetail(acc, []SampledGaussian{m}, delta, o)
	return r.Value, err
}

// EpsilonDetail is Epsilon with how the value was reached.
func EpsilonDetail(acc Accountant, m SampledGaussian, delta float64, o Options) (Result, error) {
	return ComposedEpsilonDetail(acc, []SampledGaussian{m}, delta, o)
}

// Delta returns the δ for which m is (ε, δ)-DP according to acc.
func Delta(acc Accountant, m SampledGaussian, epsilon float64, o Options) (float64, error) {
	r, err := ComposedDeltaDetail(acc, []SampledGaussian{m}, epsilon, o)
	return r.Value, err
}

// DeltaDetail is Delta with how the value was reached.
func DeltaDetail(acc Accountant, m SampledGaussian, epsilon float64, o Options) (Result, error) {
	return ComposedDeltaDetail(acc, []SampledGaussian{m}, epsilon, o)
}

// ComposedEpsilon returns ε(δ) for running all the mechanisms in ms one
// after the other (heterogeneous composition, e.g. a schedule whose noise or
// batch size changes).
func ComposedEpsilon(acc Accountant, ms []SampledGaussian, delta float64, o Options) (float64, error) {
	r, err := ComposedEpsilonDetail(acc, ms, delta, o)
	return r.Value, err
}

// ComposedDelta returns δ(ε) for running all the mechanisms in ms.
func ComposedDelta(acc Accountant, ms []SampledGaussian, epsilon float64, o Options) (float64, error) {
	r, err := ComposedDeltaDetail(acc, ms, epsilon, o)
	return r.Value, err
}

// ComposedEpsilonDetail is ComposedEpsilon with how the value was reached.
func ComposedEpsilonDetail(acc Accountant, ms []SampledGaussian, delta float64, o Options) (Result, error) {
	if err := checkAccounting(acc, ms, o); err != nil {
		return Result{}, err
	}
	if err := checkDelta(delta); err != nil {
		return Result{}, err
	}
	if noNoise(ms) {
		return Result{Value: math.Inf(1), Accountant: acc}, nil
	}
	switch acc {
	case AccountantRDP:
		r, err := rdpOf(ms, o)
		if err != nil {
			return Result{}, err
		}
		eps, _, err := r.Epsilon(delta, o.Conversion)
		return Result{Value: eps, Accountant: acc}, err
	case AccountantPLD:
		return pldEpsilon(ms, delta, o)
	case AccountantGDP:
		mu, exact := gdpMuOf(ms)
		eps, err := GDPEpsilon(mu, delta)
		return Result{Value: eps, Accountant: acc, Exact: exact}, err
	default:
		return best(ms, o, func(a Accountant) (Result, error) { return ComposedEpsilonDetail(a, ms, delta, o) })
	}
}

// ComposedDeltaDetail is ComposedDelta with how the value was reached.
func ComposedDeltaDetail(acc Accountant, ms []SampledGaussian, epsilon float64, o Options) (Result, error) {
	if err := checkAccounting(acc, ms, o); err != nil {
		return Result{}, err
	}
	if err := checkEpsilon(epsilon); err != nil {
		return Result{}, err
	}
	if noNoise(ms) {
		return Result{Value: 1, Accountant: acc}, nil
	}
	switch acc {
	case AccountantRDP:
		r, err := rdpOf(ms, o)
		if err != nil {
			return Result{}, err
		}
		d, _, err := r.Delta(epsilon, o.Conversion)
		return Result{Value: d, Accountant: acc}, err
	case AccountantPLD:
		return pldDelta(ms, epsilon, o)
	case AccountantGDP:
		mu, exact := gdpMuOf(ms)
		d, err := GDPDelta(mu, epsilon)
		return Result{Value: d, Accountant: acc, Exact: exact}, err
	default:
		return best(ms, o, func(a Accountant) (Result, error) { return ComposedDeltaDetail(a, ms, epsilon, o) })
	}
}

// best returns the smallest of the valid upper bounds (RDP, PLD, and GDP
// when exact), keeping the PLD interval used whichever wins.
func best(ms []SampledGaussian, o Options, f func(Accountant) (Result, error)) (Result, error) {
	accs := []Accountant{AccountantPLD}
	if rdpCovers(ms) {
		accs = []Accountant{AccountantRDP, AccountantPLD}
	}
	if _, exact := gdpMuOf(ms); exact {
		// Every mechanism is a full-batch Gaussian: the exact GDP value is
		// the exact ε (δ), below every other valid bound.
		accs = []Accountant{AccountantGDP}
	}
	var out Result
	for i, a := range accs {
		r, err := f(a)
		if err != nil {
			return Result{}, fmt.Errorf("best accountant: %s: %w", a, err)
		}
		if i == 0 || r.Value < out.Value {
			h := out.PLDInterval
			out = r
			out.PLDInterval = max(h, r.PLDInterval)
		} else {
			out.PLDInterval = max(out.PLDInterval, r.PLDInterval)
		}
	}
	return out, nil
}

// pldEpsilon is ε(δ) by PLD. When the FFT rounding bound carried by the
// masses (see applyErrorBound) makes up more than 1e-3 of δ — δ ≲ 1e-8 at
// the MNIST schedule — a single mechanism is recomposed with the upper tail
// computed by exponential tilting at the ε found (twice at most, moving the
// tilt to the new ε), which keeps the bound valid and tight down to δ ≈
// 1e-14 (below the 1e-15 truncation allowance it is +Inf).
func pldEpsilon(ms []SampledGaussian, delta float64, o Options) (Result, error) {
	memo := &stepMemo{}
	d, h, err := pldOfMemo(ms, o, memo)
	res := Result{Accountant: AccountantPLD, PLDInterval: h}
	if errors.Is(err, ErrTooLarge) {
		res.Value = math.Inf(1)
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	value := memoValue(func(p *PMF) float64 { return p.EpsilonForDelta(delta) })
	eps := pldValue(d, value)
	plain := d
	for range 2 {
		if math.IsInf(eps, 1) || len(ms) != 1 || ms[0].compositions() == 1 || d.roundingShare(eps) <= 1e-3*delta {
			break
		}
		t, err := pldTilted(ms[0], h, o, plain, eps, delta, value, memo)
		if err != nil {
			return Result{}, err
		}
		next := pldValue(t, value)
		if !(next < eps) {
			break
		}
		moved := eps - next
		d, eps = t, next
		if moved < 0.01 {
			break
		}
	}
	res.Value = eps
	return res, nil
}

// memoValue reads value once per PMF: ε(δ) walks every grid point above ε
// with an exp each (800k of them at T = 10⁶), and the tilting loop asks
// for each direction's value up to four times.
func memoValue(value func(*PMF) float64) func(*PMF) float64 {
	seen := map[*PMF]float64{}
	return func(p *PMF) float64 {
		v, ok := seen[p]
		if !ok {
			v = value(p)
			seen[p] = v
		}
		return v
	}
}

// pldValue is the larger of value's readings of d's directions, as
// PLD.Epsilon and PLD.Delta take it.
func pldValue(d *PLD, value func(*PMF) float64) float64 {
	v := value(d.Remove)
	if d.Add != nil {
		v = math.Max(v, value(d.Add))
	}
	return v
}

// pldDelta is δ(ε) by PLD, tilted at ε when the rounding bound is more
// than 1e-3 of δ (see pldEpsilon).
func pldDelta(ms []SampledGaussian, epsilon float64, o Options) (Result, error) {
	memo := &stepMemo{}
	d, h, err := pldOfMemo(ms, o, memo)
	res := Result{Accountant: AccountantPLD, PLDInterval: h}
	if errors.Is(err, ErrTooLarge) {
		res.Value = 1
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	value := memoValue(func(p *PMF) float64 { return p.DeltaForEpsilon(epsilon) })
	res.Value = pldValue(d, value)
	if len(ms) == 1 && ms[0].compositions() > 1 && d.roundingShare(epsilon) > 1e-3*res.Value {
		t, err := pldTilted(ms[0], h, o, d, epsilon, res.Value, value, memo)
		if err != nil {
			return Result{}, err
		}
		res.Value = math.Min(res.Value, pldValue(t, value))
	}
	return res, nil
}

// pldTilted returns one mechanism's PLD (a step or a balls-in-bins epoch,
// composed as often as the mechanism composes it) at interval h with its upper tail
// made accurate near the loss at (see PMF.SelfComposeAt), truncating at
// most 1e-3·δ of tail mass (the 1e-15 default would be 10% of δ = 1e-14,
// and ε 0.01 too high). plain is that PLD as pldOf composed it; value is
// what the caller reads from each direction (ε(δ) or δ(ε)), and the PLD's
// value is the larger of the two.
//
// Two shortcuts, neither of which changes a bit of the result. When the
// allowance is the default one, plain's masses are what the untilted
// transform would give again, so only the tilted transform is run. And for
// pessimistic bounds, tilting only lowers a direction's value, so once the
// larger direction is tilted, the other is left as it is when its untilted
// value is already no larger than that: the maximum is the same number.
// At T = 10⁶ this halves the transforms per tilt twice over.
func pldTilted(m SampledGaussian, h float64, o Options, plain *PLD, at, delta float64, value func(*PMF) float64, memo *stepMemo) (*PLD, error) {
	step, count, err := memo.step(m, h, !o.Optimistic, pldLimit(o.PLDMemory))
	if err != nil {
		return nil, err
	}
	if count == 1 {
		return step, nil
	}
	tail := math.Min(DefaultTailMass, 1e-3*delta)
	if tail != DefaultTailMass {
		return step.SelfComposeAt(count, tail, at)
	}
	if step.Add == nil {
		r, err := step.Remove.tiltComposed(count, at, plain.Remove)
		return &PLD{Remove: r}, err
	}
	steps := [2]*PMF{step.Remove, step.Add}
	out := [2]*PMF{plain.Remove, plain.Add}
	first := 0
	if value(plain.Add) > value(plain.Remove) {
		first = 1
	}
	for _, i := range [2]int{first, 1 - first} {
		if i != first && !o.Optimistic && value(out[i]) <= value(out[first]) {
			break
		}
		if out[i], err = steps[i].tiltComposed(count, at, out[i]); err != nil {
			return nil, err
		}
	}
	return &PLD{Remove: out[0], Add: out[1]}, nil
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
		if acc != AccountantBest {
			if err := m.supports(acc); err != nil {
				return fmt.Errorf("mechanism %d: %w", i, err)
			}
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
		if err := r.addMechanism(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// MaxPLDInterval is the coarsest interval the PLD accountant coarsens to
// (see Options.PLDInterval) before it reports the trivial bound ε = +Inf.
const MaxPLDInterval = 0.1

// pldOf composes the PLDs of the mechanisms at the requested interval, or,
// when the grid would not fit in o.PLDMemory (ErrTooLarge: very many
// steps, σ so small that single-step losses span hundreds of nats, or a
// very fine interval), at the first doubling of it that fits, up to
// MaxPLDInterval. It returns the interval used (the last one tried, with
// ErrTooLarge, when none fits; the accountant then reports the trivial
// bound ε = +Inf).
//
// The grid's length scales as 1/h, so the failed attempt's size says how
// much coarser to go: a power of two that brings it to coarsenTarget
// points (an eighth of the old fixed cap of MaxPMFLen points, or of the
// memory cap if that is smaller, so the FFT stays around a million points
// and tens of milliseconds, not seconds). Up to the memory cap the
// requested interval is kept however long it takes: the caller asked for
// that accuracy.
func pldOf(ms []SampledGaussian, o Options) (*PLD, float64, error) {
	return pldOfMemo(ms, o, nil)
}

// pldOfMemo is pldOf with the unit PLDs kept in memo (nil: not kept).
func pldOfMemo(ms []SampledGaussian, o Options, memo *stepMemo) (*PLD, float64, error) {
	h := o.interval()
	limit := pldLimit(o.PLDMemory)
	target := float64(max(1, min(limit, MaxPMFLen)/8))
	for {
		d, err := pldAt(ms, o, h, limit, memo)
		if !errors.Is(err, ErrTooLarge) || 2*h > MaxPLDInterval {
			return d, h, err
		}
		f := 2.0
		var tl *tooLargeError
		if errors.As(err, &tl) && tl.points > target {
			f = math.Max(2, math.Exp2(math.Ceil(math.Log2(tl.points/target))))
		}
		h = math.Min(h*f, MaxPLDInterval)
	}
}

func pldAt(ms []SampledGaussian, o Options, h float64, limit int, memo *stepMemo) (*PLD, error) {
	var total *PLD
	for _, m := range ms {
		d, err := mechanismPLD(m, h, !o.Optimistic, limit, memo)
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

// gdpMuOf composes the μ of several mechanisms (μ-GDP composes as
// √(Σ μᵢ²)): the CLT μ, or, when every mechanism has q = 1, the exact
// μ = √T/σ of T Gaussian mechanisms (exact is then true).
func gdpMuOf(ms []SampledGaussian) (mu float64, exact bool) {
	s := 0.0
	exact = true
	for _, m := range ms {
		if !m.isStandard() {
			return math.NaN(), false // no GDP form (checkAccounting refuses GDP for m)
		}
		sigma := m.accountedSigma()
		if m.SamplingRate == 1 {
			s += float64(m.Steps) / (sigma * sigma)
			continue
		}
		exact = false
		mu, _ := GDPMu(m.SamplingRate, sigma, float64(m.Steps))
		s += mu * mu
	}
	return math.Sqrt(s), exact
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
