package privacy

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/numeric"
)

// Calibration search range and tolerance.
const (
	calibrateRelTol   = 1e-6 // final bracket width, relative to σ
	calibrateMinSigma = 1e-6
	calibrateMaxSigma = 1e6
	calibrateMaxIter  = 200
	// pldCoarseFactor: PLD calibration first brackets σ with intervals this
	// many times coarser, then refines at the requested interval (the
	// answer is always computed at the requested interval).
	pldCoarseFactor = 10
	pldCoarseRelTol = 1e-4
)

// Calibrate returns the smallest noise multiplier σ for which `steps` steps
// of the Poisson-subsampled Gaussian at sampling rate q are
// (targetEpsilon, δ)-DP according to acc, to a relative tolerance of 1e-6 on
// σ. The returned σ always meets the target (ε(σ) ≤ targetEpsilon); σ·(1−1e-6)
// may not. RDP and PLD use Brent's method on ε(σ) − target from a bracket
// grown around the GDP estimate; GDP is solved in closed form from the μ
// that meets the target (exact at q = 1, the CLT approximation otherwise);
// best is the smallest σ of the valid bounds (see calibrateBest). Errors
// wrap ErrInvalid for bad input and ErrUnreachable when no σ in [1e-6, 1e6]
// meets the target (for example an ε below the floor log(1/δ)/(α_max−1) of
// the classic RDP conversion), or when the search ends next to a σ where
// the accountant gave ε = +Inf: the answer would then be the accountant's
// limit, not the target's (it used to be returned silently: σ = 6.8 for
// PLD at q = 1, T = 115661, ε = 1e5, where 0.77 suffices).
func Calibrate(acc Accountant, targetEpsilon, delta, samplingRate float64, steps int, o Options) (float64, error) {
	if err := acc.check(); err != nil {
		return 0, err
	}
	if err := o.check(); err != nil {
		return 0, err
	}
	if !(targetEpsilon > 0) || math.IsInf(targetEpsilon, 1) {
		return 0, invalidf("target ε must be > 0 and finite, got %v", targetEpsilon)
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkSamplingRate(samplingRate); err != nil {
		return 0, err
	}
	if err := checkSteps(steps); err != nil {
		return 0, err
	}
	guess, err := gdpSigma(targetEpsilon, delta, samplingRate, float64(steps))
	if acc == AccountantGDP || err != nil {
		return guess, err
	}
	if acc == AccountantBest {
		return calibrateBest(targetEpsilon, delta, samplingRate, steps, o)
	}
	epsOf := func(sigma float64, o Options) (float64, error) {
		return Epsilon(acc, SampledGaussian{NoiseMultiplier: sigma, SamplingRate: samplingRate, Steps: steps}, delta, o)
	}
	return calibrateSearch(acc, epsOf, targetEpsilon, guess, o)
}

// calibrateSearch finds the smallest σ with epsOf(σ) ≤ target from the
// starting guess (ε decreasing in σ).
func calibrateSearch(acc Accountant, epsOf func(sigma float64, o Options) (float64, error), targetEpsilon, guess float64, o Options) (float64, error) {
	var err error
	// The root finders see ε(σ) − target; an accounting error becomes NaN
	// for them (which stops them) and is reported from here.
	var evalErr error
	infBelow := 0.0 // the largest σ at which ε came out +Inf
	eps := func(o Options) func(float64) float64 {
		return func(sigma float64) float64 {
			e, err := epsOf(sigma, o)
			if err != nil {
				if evalErr == nil {
					evalErr = fmt.Errorf("calibration: σ = %v: %w", sigma, err)
				}
				return math.NaN()
			}
			if math.IsInf(e, 1) {
				infBelow = math.Max(infBelow, sigma)
			}
			return e - targetEpsilon
		}
	}
	var sigma float64
	if acc == AccountantPLD && o.interval()*pldCoarseFactor <= 0.01 {
		coarse := o
		coarse.PLDInterval = o.interval() * pldCoarseFactor
		var br numeric.Bracket
		if br, err = calibrateBracket(eps(coarse), guess, pldCoarseRelTol); err == nil {
			sigma, err = refine(eps(o), br)
		}
	} else {
		var br numeric.Bracket
		if br, err = calibrateBracket(eps(o), guess, calibrateRelTol/2); err == nil {
			sigma = privateSide(br)
		}
	}
	if evalErr != nil {
		return 0, evalErr
	}
	if err != nil {
		return 0, err
	}
	// A bracket whose other end has ε = +Inf found where the accountant
	// gives up, not where the target is met: any σ in between might do.
	if infBelow > 0 && infBelow >= sigma/(1+16*calibrateRelTol) {
		return 0, wrapUnreachable("the %s accountant gives ε = +Inf at σ = %.6g, just below the σ = %.6g where it first meets ε = %g, "+
			"so the search stopped at the accountant's limit, not at the target (try accountant best or rdp)", acc, infBelow, sigma, targetEpsilon)
	}
	return sigma, nil
}

// calibrateBest is Calibrate for AccountantBest. ε_best(σ) = min over the
// valid bounds, each decreasing in σ, so the smallest σ meeting the target
// under best is the smallest of the accountants' own calibrations. RDP is
// calibrated first (cheap); PLD can only lower that σ if it meets the
// target there, which one evaluation tells. At q = 1 the exact GDP
// conversion is the answer.
func calibrateBest(targetEpsilon, delta, q float64, steps int, o Options) (float64, error) {
	if q == 1 {
		// Exact (√T/σ-GDP): no valid bound is below it.
		return Calibrate(AccountantGDP, targetEpsilon, delta, q, steps, o)
	}
	sigma, err := Calibrate(AccountantRDP, targetEpsilon, delta, q, steps, o)
	if err != nil && !errors.Is(err, ErrUnreachable) {
		return 0, err
	}
	rdpErr := err
	others := []Accountant{AccountantPLD}
	for _, acc := range others {
		if rdpErr == nil {
			e, err := Epsilon(acc, SampledGaussian{NoiseMultiplier: sigma, SamplingRate: q, Steps: steps}, delta, o)
			if err != nil {
				return 0, err
			}
			if e > targetEpsilon {
				continue // needs more noise than RDP: cannot win
			}
		}
		s, err := Calibrate(acc, targetEpsilon, delta, q, steps, o)
		if err != nil {
			if errors.Is(err, ErrUnreachable) {
				continue
			}
			return 0, err
		}
		if rdpErr != nil || s < sigma {
			sigma, rdpErr = s, nil
		}
	}
	if rdpErr != nil {
		return 0, rdpErr
	}
	return sigma, nil
}

// gdpSigma inverts μ = q·√(T·(e^{1/σ²} − 1)) at the μ meeting (ε, δ), or
// the exact μ = √T/σ at q = 1.
func gdpSigma(eps, delta, q, steps float64) (float64, error) {
	mu, err := gdpMuForEpsilon(eps, delta)
	if err != nil {
		return 0, err
	}
	if q == 1 {
		return math.Sqrt(steps) / mu, nil
	}
	r := mu / q
	return 1 / math.Sqrt(math.Log1p(r*r/steps)), nil
}

// privateSide returns the end of a final bracket where ε ≤ target.
func privateSide(br numeric.Bracket) float64 {
	if br.FB <= 0 {
		return br.B
	}
	return br.A
}

// calibrateBracket finds a sign change of f (ε(σ) − target, decreasing in σ)
// by growing geometric steps from guess, then shrinks it with Brent's
// method to relTol.
func calibrateBracket(f func(float64) float64, guess, relTol float64) (numeric.Bracket, error) {
	br, err := growBracket(f, guess, f(guess), 0.25)
	if err != nil {
		return br, err
	}
	return numeric.Brent(f, br, 0, relTol, calibrateMaxIter)
}

// growBracket walks from x0 (with f(x0) = f0) towards the root of the
// decreasing function f, multiplying the step by (1+rel), doubling rel each
// time, until the sign changes; within [calibrateMinSigma, calibrateMaxSigma].
func growBracket(f func(float64) float64, x0, f0, rel float64) (numeric.Bracket, error) {
	if math.IsNaN(f0) {
		return numeric.Bracket{}, fmt.Errorf("privacy: calibration: the accountant could not be evaluated at σ = %v", x0)
	}
	x, fx := x0, f0
	for {
		var next float64
		if fx > 0 { // not private enough: more noise
			if x >= calibrateMaxSigma {
				return numeric.Bracket{}, wrapUnreachable("even σ = %g does not meet the target (it is %g above it)", x, fx)
			}
			next = math.Min(x*(1+rel), calibrateMaxSigma)
		} else {
			if x <= calibrateMinSigma {
				return numeric.Bracket{}, wrapUnreachable("the target is met even at σ = %g", x)
			}
			next = math.Max(x/(1+rel), calibrateMinSigma)
		}
		fn := f(next)
		if math.IsNaN(fn) {
			return numeric.Bracket{}, fmt.Errorf("privacy: calibration: the accountant could not be evaluated at σ = %v", next)
		}
		if (fn > 0) != (fx > 0) {
			return numeric.Bracket{A: x, B: next, FA: fx, FB: fn}, nil
		}
		x, fx = next, fn
		rel *= 2
	}
}

// refine takes a bracket of the coarse-interval problem and solves the
// fine one: the discretisation shifts ε(σ) by a nearly constant amount, so
// one fine evaluation at the coarse root and the coarse slope predict the
// fine root; a bracket grown from the prediction in steps of 1e-6 (doubling)
// is then usually found at once and needs no further Brent step. About
// three fine evaluations instead of ~10.
func refine(f func(float64) float64, coarse numeric.Bracket) (float64, error) {
	sc := privateSide(coarse)
	fc := f(sc)
	if math.IsNaN(fc) {
		return 0, fmt.Errorf("privacy: calibration: the accountant could not be evaluated at σ = %v", sc)
	}
	slope := (coarse.FB - coarse.FA) / (coarse.B - coarse.A)
	pred := sc
	if slope < 0 && !math.IsInf(slope, 0) && fc != 0 {
		pred = sc - fc/slope
		if !(pred > 0) || math.Abs(pred-sc) > 0.5*sc {
			pred = sc
		}
	}
	fp := fc
	if pred != sc {
		if fp = f(pred); math.IsNaN(fp) {
			return 0, fmt.Errorf("privacy: calibration: the accountant could not be evaluated at σ = %v", pred)
		}
	}
	br, err := growBracket(f, pred, fp, calibrateRelTol)
	if err != nil {
		return 0, err
	}
	if br, err = numeric.Brent(f, br, 0, calibrateRelTol/2, calibrateMaxIter); err != nil {
		return 0, err
	}
	return privateSide(br), nil
}

// StepsFromEpochs converts an epoch-based schedule to the sampled Gaussian's
// parameters: q = batchSize/datasetSize and T = ⌈epochs·datasetSize/batchSize⌉
// (an epoch-count that is an integer up to 1e-9 relative rounding is not
// rounded up by that rounding).
func StepsFromEpochs(epochs float64, datasetSize, batchSize int) (q float64, steps int, err error) {
	if !(epochs > 0) || math.IsInf(epochs, 1) {
		return 0, 0, invalidf("epochs must be > 0 and finite, got %v", epochs)
	}
	if datasetSize < 1 {
		return 0, 0, invalidf("dataset size must be ≥ 1, got %d", datasetSize)
	}
	if batchSize < 1 || batchSize > datasetSize {
		return 0, 0, invalidf("batch size must be in [1, dataset size %d], got %d", datasetSize, batchSize)
	}
	x := epochs * float64(datasetSize) / float64(batchSize)
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, x) {
		x = r
	}
	if x > float64(math.MaxInt32) {
		return 0, 0, invalidf("schedule has too many steps (%g)", x)
	}
	return float64(batchSize) / float64(datasetSize), max(1, int(math.Ceil(x))), nil
}
