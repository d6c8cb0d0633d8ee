package privacy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// TargetKind names what a calibration target bounds.
type TargetKind string

const (
	// TargetEpsilon: (ε, δ)-DP; Value is ε, At is δ.
	TargetEpsilon TargetKind = "epsilon"
	// TargetTPRAtFPR: no membership attack reaches a true-positive rate
	// above Value at false-positive rate At (the symmetric curve).
	TargetTPRAtFPR TargetKind = "tpr_at_fpr"
	// TargetAdvantage: no membership attack's TPR − FPR exceeds Value.
	TargetAdvantage TargetKind = "advantage"
	// TargetReconstruction: no reconstruction (or re-identification, or
	// attribute-inference) attack with baseline success At succeeds with
	// probability above Value: 1 − f(At) ≤ Value on the curve of the
	// added orientation (Hayes et al.'s game; package bounds' AttackRisk).
	TargetReconstruction TargetKind = "reconstruction"
)

// Target is what a noise multiplier is calibrated to: an (ε, δ) pair or an
// attack-risk bound. Its text form, read by ParseTarget and written by
// String, is the same in the CLI and in spec expressions:
//
//	epsilon=8@1e-5          ε = 8 at δ = 1e-5
//	tpr_at_fpr=0.05@0.01    TPR ≤ 0.05 at FPR 0.01
//	advantage=0.1           TPR − FPR ≤ 0.1
//	reconstruction=0.2@0.1  success ≤ 0.2 at baseline 0.1 (|π| = 10)
type Target struct {
	Kind  TargetKind
	Value float64
	At    float64
}

// String is the text form ParseTarget reads.
func (t Target) String() string {
	v := strconv.FormatFloat(t.Value, 'g', -1, 64)
	if t.Kind == TargetAdvantage {
		return fmt.Sprintf("%s=%s", t.Kind, v)
	}
	return fmt.Sprintf("%s=%s@%s", t.Kind, v, strconv.FormatFloat(t.At, 'g', -1, 64))
}

// ParseTarget reads a target's text form (see Target).
func ParseTarget(s string) (Target, error) {
	kind, rest, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return Target{}, invalidf("target %q: want KIND=VALUE[@AT], e.g. tpr_at_fpr=0.05@0.01", s)
	}
	t := Target{Kind: TargetKind(strings.TrimSpace(kind))}
	valueText, atText, hasAt := strings.Cut(rest, "@")
	var err error
	if t.Value, err = strconv.ParseFloat(strings.TrimSpace(valueText), 64); err != nil {
		return Target{}, invalidf("target %q: value %q is not a number", s, valueText)
	}
	if hasAt {
		if t.At, err = strconv.ParseFloat(strings.TrimSpace(atText), 64); err != nil {
			return Target{}, invalidf("target %q: %q after @ is not a number", s, atText)
		}
	}
	switch t.Kind {
	case TargetAdvantage:
		if hasAt {
			return Target{}, invalidf("target %q: an advantage target takes no @", s)
		}
	case TargetEpsilon, TargetTPRAtFPR, TargetReconstruction:
		if !hasAt {
			return Target{}, invalidf("target %q: %s needs @%s", s, t.Kind, t.atName())
		}
	}
	return t, t.Check()
}

func (t Target) atName() string {
	switch t.Kind {
	case TargetEpsilon:
		return "δ"
	case TargetTPRAtFPR:
		return "FPR"
	}
	return "baseline"
}

// Check validates a target: ε > 0 with δ ∈ (0, 1); an FPR or baseline in
// (0, 1) with a TPR or success strictly between it and 1 (at or below it is
// what guessing achieves, which no noise level goes under); an advantage in
// (0, 1).
func (t Target) Check() error {
	switch t.Kind {
	case TargetEpsilon:
		if !(t.Value > 0) || math.IsInf(t.Value, 1) {
			return invalidf("target ε must be > 0 and finite, got %v", t.Value)
		}
		return checkDelta(t.At)
	case TargetTPRAtFPR, TargetReconstruction:
		what, at := "TPR", "FPR"
		if t.Kind == TargetReconstruction {
			what, at = "success", "baseline"
		}
		if !(t.At > 0 && t.At < 1) {
			return invalidf("%s must be in (0, 1), got %v", at, t.At)
		}
		if !(t.Value > t.At) {
			return invalidf("target %s %v is not above the %s %v: guessing alone reaches %v, at any noise level", what, t.Value, at, t.At, t.At)
		}
		if !(t.Value < 1) {
			return invalidf("target %s must be < 1, got %v (1 is met by any σ)", what, t.Value)
		}
	case TargetAdvantage:
		if !(t.Value > 0 && t.Value < 1) {
			return invalidf("target advantage must be in (0, 1), got %v (0 needs infinite noise, 1 is met by any σ)", t.Value)
		}
	default:
		return invalidf("unknown target kind %q (want epsilon, tpr_at_fpr, advantage or reconstruction)", string(t.Kind))
	}
	return nil
}

// gdpMu is the μ at which μ-GDP meets the target exactly.
func (t Target) gdpMu() (float64, error) {
	switch t.Kind {
	case TargetEpsilon:
		return gdpMuForEpsilon(t.Value, t.At)
	case TargetAdvantage: // 2Φ(μ/2) − 1 = advantage
		return 2 * mathext.NormalQuantile((1+t.Value)/2), nil
	}
	// 1 − G_μ(α) = Φ(Φ⁻¹(α) + μ)
	return mathext.NormalQuantile(t.Value) - mathext.NormalQuantile(t.At), nil
}

// risk is the target's quantity on a trade-off curve.
func (t Target) risk(c *TradeOff) float64 {
	switch t.Kind {
	case TargetTPRAtFPR:
		return c.Symmetric.TPR(t.At)
	case TargetAdvantage:
		return c.Symmetric.Advantage()
	}
	return c.Added.TPR(t.At)
}

// pldRisk is t.risk on the PLD curves of m, reading no more than the
// target needs (the calibration evaluates it a dozen times): the advantage
// is the PLD's δ(0) (the symmetric curve's maximal 1 − α − β, see
// Curve.Advantage); a reconstruction bound needs the added curve only; a
// TPR at an FPR below ᾱ too, since the symmetric curve follows the added
// one there (TradeOff.OrientationsAgreeBelow).
func (t Target) pldRisk(m SampledGaussian, o Options) (float64, error) {
	if err := checkAccounting(AccountantPLD, []SampledGaussian{m}, o); err != nil {
		return 0, err
	}
	d, _, err := pldOf([]SampledGaussian{m}, o)
	if errors.Is(err, ErrTooLarge) {
		return 1, nil // the trivial curve: no bound
	}
	if err != nil {
		return 0, err
	}
	if t.Kind == TargetAdvantage {
		return d.Delta(0), nil
	}
	added := curveFromPMF(d.addOrRemove())
	if t.Kind == TargetReconstruction || t.At <= added.slopeMinusOne() {
		return added.TPR(t.At), nil
	}
	sym, _ := pldCurves(d)
	return sym.TPR(t.At), nil
}

// CalibrateTo returns the smallest noise multiplier σ for which `steps`
// steps of the Poisson-subsampled Gaussian at rate q meet the target
// according to acc, to a relative tolerance of 1e-6 on σ; the returned σ
// meets it. An ε target is Calibrate. A risk target is searched the same
// way on the accountant's trade-off curve (TradeOffCurve: the risk falls as
// σ grows), from the GDP σ that meets it: pld and rdp search their curves;
// gdp solves μ in closed form (exact at q = 1, the CLT approximation
// otherwise); best is the smaller σ of rdp and pld (the exact GDP σ at
// q = 1). Errors wrap ErrInvalid for bad input (see Target.Check) and
// ErrUnreachable when no σ in [1e-6, 1e6] meets the target.
//
// The spec expression calibrate() takes the same arguments.
func CalibrateTo(acc Accountant, t Target, q float64, steps int, o Options) (float64, error) {
	if err := t.Check(); err != nil {
		return 0, err
	}
	if t.Kind == TargetEpsilon {
		return Calibrate(acc, t.Value, t.At, q, steps, o)
	}
	if err := acc.check(); err != nil {
		return 0, err
	}
	if err := o.check(); err != nil {
		return 0, err
	}
	if err := checkSamplingRate(q); err != nil {
		return 0, err
	}
	if err := checkSteps(steps); err != nil {
		return 0, err
	}
	mu, err := t.gdpMu()
	if err != nil {
		return 0, err
	}
	guess := sigmaForMu(mu, q, float64(steps))
	switch {
	case acc == AccountantGDP, acc == AccountantBest && q == 1:
		return guess, nil
	case acc == AccountantBest:
		return calibrateRiskBest(t, q, steps, guess, o)
	}
	return calibrateRisk(acc, t, q, steps, guess, o)
}

func calibrateRisk(acc Accountant, t Target, q float64, steps int, guess float64, o Options) (float64, error) {
	riskOf := func(sigma float64, o Options) (float64, error) {
		m := SampledGaussian{NoiseMultiplier: sigma, SamplingRate: q, Steps: steps}
		if acc == AccountantPLD {
			return t.pldRisk(m, o)
		}
		c, err := TradeOffCurve(acc, m, o)
		if err != nil {
			return 0, err
		}
		return t.risk(c), nil
	}
	sigma, err := calibrateSearch(acc, riskOf, t.Value, guess, o)
	if err != nil {
		return 0, fmt.Errorf("calibrating to %s: %w", t, err)
	}
	return sigma, nil
}

// calibrateRiskBest is calibrateBest for a risk target: the best curve is
// the larger β of rdp and pld, so its risk is at most either's and the
// smaller of their σ meets the target. RDP is calibrated first (cheap);
// PLD can only lower that σ if it meets the target there.
func calibrateRiskBest(t Target, q float64, steps int, guess float64, o Options) (float64, error) {
	sigma, rdpErr := calibrateRisk(AccountantRDP, t, q, steps, guess, o)
	if rdpErr != nil && !errors.Is(rdpErr, ErrUnreachable) {
		return 0, rdpErr
	}
	if rdpErr == nil {
		c, err := TradeOffCurve(AccountantPLD, SampledGaussian{NoiseMultiplier: sigma, SamplingRate: q, Steps: steps}, o)
		if err != nil {
			return 0, err
		}
		if t.risk(c) > t.Value {
			return sigma, nil // PLD needs more noise here: it cannot win
		}
	}
	s, err := calibrateRisk(AccountantPLD, t, q, steps, guess, o)
	switch {
	case err == nil && (rdpErr != nil || s < sigma):
		return s, nil
	case err == nil || errors.Is(err, ErrUnreachable) && rdpErr == nil:
		return sigma, nil
	}
	return 0, err
}

// sigmaForMu inverts the CLT μ = q·√(T·(e^{1/σ²} − 1)), or the exact
// μ = √T/σ at q = 1.
func sigmaForMu(mu, q, steps float64) float64 {
	if q == 1 {
		return math.Sqrt(steps) / mu
	}
	r := mu / q
	return 1 / math.Sqrt(math.Log1p(r*r/steps))
}
