// Package selftest checks the membership-audit estimators where the truth
// is known: it runs R honest audits of the ideal mechanism (Nasr et al.
// 2021's malicious-dataset game with benign gradients exactly 0: the
// Poisson-subsampled Gaussian, simulated by attack.IdealMechanism) at the
// mechanism's exact ε, and counts how often each estimator's ε lower
// bound exceeds that ε. A valid estimator at confidence 1 − α must exceed
// in at most a fraction α of the audits (null coverage); an estimator that
// exceeds more often overstates leakage and could raise false violations.
// The mean ε_lb as a fraction of the true ε is the estimator's power.
//
// The true ε: for q = 1 and T = 1 (the default, the plain Gaussian
// mechanism) it is exact, ε(μ = 1/σ, δ) of Gaussian DP (Dong, Roth & Su
// 2022, Cor. 2.13); otherwise the PLD accountant's pessimistic value,
// within its discretisation of the exact one (slightly above it, so the
// exceedance is then slightly undercounted).
package selftest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
)

// Config is one self-test.
type Config struct {
	// Epsilon is the mechanism's true ε at Delta (σ is calibrated to it).
	Epsilon, Delta float64
	// SamplingRate and Steps are q and T of the ideal mechanism.
	SamplingRate float64
	Steps        int
	// Confidence of every bound (1 − α).
	Confidence float64
	// Trials per audit (both worlds together, alternating).
	Trials []int
	// Repeats is R, the audits per trial count.
	Repeats int
	// SplitFraction is the share of each world's trials that chooses the
	// split threshold or builds the held-out Bonferroni grid (0:
	// audit.DefaultSplitFraction).
	SplitFraction float64
	// Methods to run (nil: Methods).
	Methods []string
	Seed    uint64
	Workers int // 0: GOMAXPROCS
}

// Default is the CI setting: ε = 4 at δ = 1e-5 on the Gaussian mechanism,
// 95% confidence, 1000 trials, 200 audits (a few seconds).
func Default() Config {
	return Config{Epsilon: 4, Delta: 1e-5, SamplingRate: 1, Steps: 1, Confidence: 0.95, Trials: []int{1000}, Repeats: 200, Seed: 1}
}

// The estimators compared. Each is an ε lower bound procedure applied to
// the same trials.
const (
	Split           = "split"             // eps_delta_cp, threshold chosen on a held-out fifth: valid
	Split3          = "split-3"           // eps_delta_cp, Bonferroni over 3 seeded splits: valid
	BonferroniSplit = "bonferroni-split"  // eps_delta_cp, grid from a held-out half: valid
	BonferroniFixed = "bonferroni-fixed"  // eps_delta_cp, grid fixed before the trials (a pilot run): valid
	BonferroniData  = "bonferroni-trials" // grid from the evaluated trials: not covered by the union bound
	PostHoc         = "posthoc"           // best threshold on all trials: optimistic
	GDPLower        = "gdp-lower"         // gdp_fit: ε of μ's lower bound; valid if the trade-off curve is Gaussian
	GDPPoint        = "gdp-point"         // gdp_fit: ε of the fitted μ, a point estimate: no guarantee
)

// Methods are all estimators, in table order.
var Methods = []string{Split, Split3, BonferroniSplit, BonferroniFixed, BonferroniData, PostHoc, GDPLower, GDPPoint}

// info says what covers an estimator: Family is its estimate family,
// Valid whether a proof covers it for any mechanism, Assumes what else
// the proof needs.
func info(m string) (family string, valid bool, assumes string) {
	switch m {
	case Split, Split3, BonferroniSplit, BonferroniFixed:
		return audit.FamilyEpsDeltaCP, true, "none"
	case BonferroniData, PostHoc:
		return audit.FamilyEpsDeltaCP, false, "selection on the evaluated trials"
	case GDPLower:
		return audit.FamilyGDPFit, false, "Gaussian trade-off curve"
	}
	return audit.FamilyGDPFit, false, "point estimate"
}

// Row is one estimator at one trial count.
type Row struct {
	Method, Family, Assumes string
	Valid                   bool
	Trials, Repeats         int
	// Exceed audits had ε_lb > the true ε; Rate = Exceed/Repeats with its
	// two-sided 95% Clopper–Pearson interval [RateLo, RateHi].
	Exceed               int
	Rate, RateLo, RateHi float64
	// Nominal is α = 1 − confidence, the largest rate a valid estimator
	// may have. OK: the rate is not significantly above α (RateLo ≤ α).
	Nominal float64
	OK      bool
	// MeanLB, MedianLB, MinLB, MaxLB summarise ε_lb over the audits;
	// Power = MeanLB / true ε.
	MeanLB, MedianLB, MinLB, MaxLB, Power float64
}

// Report is a self-test's outcome.
type Report struct {
	Config  Config
	Sigma   float64 // σ of the mechanism, calibrated to Config.Epsilon
	TrueEps float64 // its ε at δ (exact for q = 1, T = 1)
	Rows    []Row
	Elapsed time.Duration
}

func (c Config) check() error {
	switch {
	case !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0):
		return fmt.Errorf("%w: selftest: ε must be > 0 and finite, got %v", audit.ErrInvalid, c.Epsilon)
	case !(c.Delta > 0 && c.Delta < 1):
		return fmt.Errorf("%w: selftest: δ must be in (0, 1), got %v", audit.ErrInvalid, c.Delta)
	case !(c.Confidence > 0 && c.Confidence < 1):
		return fmt.Errorf("%w: selftest: confidence must be in (0, 1), got %v", audit.ErrInvalid, c.Confidence)
	case !(c.SplitFraction >= 0 && c.SplitFraction < 1):
		return fmt.Errorf("%w: selftest: split fraction must be in (0, 1), got %v", audit.ErrInvalid, c.SplitFraction)
	case c.Repeats < 1:
		return fmt.Errorf("%w: selftest: repeats must be ≥ 1, got %d", audit.ErrInvalid, c.Repeats)
	case len(c.Trials) == 0:
		return fmt.Errorf("%w: selftest: no trial counts", audit.ErrInvalid)
	}
	for _, n := range c.Trials {
		if n < 8 {
			return fmt.Errorf("%w: selftest: trials must be ≥ 8, got %d", audit.ErrInvalid, n)
		}
	}
	for _, m := range c.Methods {
		if !slices.Contains(Methods, m) {
			return fmt.Errorf("%w: selftest: unknown method %q (want one of %v)", audit.ErrInvalid, m, Methods)
		}
	}
	return nil
}

// Run runs the self-test. Audit r of trial count n draws its trials from
// rng.New(Seed, "selftest", n, r) (and a fixed grid's pilot from
// rng.New(Seed, "selftest", "pilot", n, r)), so the report does not depend
// on Workers. It stops, returning ctx.Err(), once ctx is done.
func Run(ctx context.Context, c Config) (Report, error) {
	start := time.Now()
	if c.Methods == nil {
		c.Methods = Methods
	}
	if c.SamplingRate == 0 {
		c.SamplingRate = 1
	}
	if c.Steps == 0 {
		c.Steps = 1
	}
	if err := c.check(); err != nil {
		return Report{}, err
	}
	sigma, trueEps, err := mechanism(c)
	if err != nil {
		return Report{}, err
	}
	mech := attack.IdealMechanism{SamplingRate: c.SamplingRate, Steps: c.Steps, NoiseMultiplier: sigma}
	if err := mech.Validate(); err != nil {
		return Report{}, err
	}
	rep := Report{Config: c, Sigma: sigma, TrueEps: trueEps}
	for _, n := range c.Trials {
		lbs := make([][]float64, len(c.Methods)) // [method][repeat]
		for i := range lbs {
			lbs[i] = make([]float64, c.Repeats)
		}
		// Each repeat is its own seeded audit: the results do not depend
		// on the number of workers.
		err := parallel.For(ctx, c.Repeats, c.Workers, func(r int) error {
			vals, err := audit1(c, mech, n, r)
			for i, v := range vals {
				lbs[i][r] = v
			}
			return err
		})
		if err != nil {
			return Report{}, err
		}
		for i, m := range c.Methods {
			rep.Rows = append(rep.Rows, summarise(m, n, lbs[i], trueEps, 1-c.Confidence))
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// mechanism calibrates σ to the target ε and returns the true ε.
func mechanism(c Config) (sigma, eps float64, err error) {
	if c.SamplingRate == 1 && c.Steps == 1 {
		// The Gaussian mechanism is exactly μ-GDP with μ = 1/σ.
		mu, err := gdpMu(c.Epsilon, c.Delta)
		if err != nil {
			return 0, 0, err
		}
		sigma = 1 / mu
		eps, err = privacy.GDPEpsilon(mu, c.Delta)
		return sigma, eps, err
	}
	sigma, err = privacy.Calibrate(privacy.AccountantPLD, c.Epsilon, c.Delta, c.SamplingRate, c.Steps, privacy.Options{})
	if err != nil {
		return 0, 0, err
	}
	eps, err = privacy.Epsilon(privacy.AccountantPLD, privacy.SampledGaussian{NoiseMultiplier: sigma, SamplingRate: c.SamplingRate, Steps: c.Steps}, c.Delta, privacy.Options{})
	return sigma, eps, err
}

// gdpMu solves ε(μ, δ) = eps for μ by bisection (ε is increasing in μ).
func gdpMu(eps, delta float64) (float64, error) {
	lo, hi := 1e-6, 200.0
	for range 200 {
		mid := (lo + hi) / 2
		e, err := privacy.GDPEpsilon(mid, delta)
		if err != nil {
			return 0, err
		}
		if e < eps {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-13*hi {
			break
		}
	}
	return (lo + hi) / 2, nil
}

// simulate draws n alternating trials' LLR scores from stream r.
func simulate(mech attack.IdealMechanism, n int, seed uint64, path ...any) ([]float64, []bool) {
	r := rng.New(seed, path...)
	scores, worlds := make([]float64, n), make([]bool, n)
	for i := range n {
		worlds[i] = i%2 == 1
		scores[i] = mech.Trial(r, worlds[i], mech.NoiseMultiplier).LLR
	}
	return scores, worlds
}

// audit1 runs audit r with n trials and returns each method's ε_lb.
func audit1(c Config, mech attack.IdealMechanism, n, r int) ([]float64, error) {
	scores, worlds := simulate(mech, n, c.Seed, "selftest", n, r)
	base := audit.DefaultOptions()
	base.Delta, base.Confidence = c.Delta, c.Confidence
	if c.SplitFraction != 0 {
		base.SplitFraction = c.SplitFraction
	}
	base.Seed = rng.Seed(c.Seed, "selftest", "split", n, r)
	cache := map[string]audit.Result{}
	est := func(key string, edit func(*audit.Options)) (audit.Result, error) {
		if res, ok := cache[key]; ok {
			return res, nil
		}
		o := base
		edit(&o)
		res, err := audit.Estimate(scores, worlds, o)
		cache[key] = res
		return res, err
	}
	out := make([]float64, len(c.Methods))
	for i, m := range c.Methods {
		var res audit.Result
		var err error
		switch m {
		case Split, GDPLower, GDPPoint:
			res, err = est(Split, func(o *audit.Options) { o.Method = audit.Split })
		case Split3:
			res, err = est(m, func(o *audit.Options) { o.Method, o.Splits = audit.Split, 3 })
		case BonferroniSplit:
			res, err = est(m, func(o *audit.Options) { o.Method = audit.Bonferroni })
		case BonferroniFixed:
			// The grid is fixed before the audit's trials: quantiles of a
			// pilot run of the same size on an independent stream.
			ps, _ := simulate(mech, n, c.Seed, "selftest", "pilot", n, r)
			grid := pilotGrid(ps, audit.DefaultGridSize)
			res, err = est(m, func(o *audit.Options) { o.Method, o.Grid = audit.Bonferroni, grid })
		case BonferroniData:
			res, err = est(m, func(o *audit.Options) { o.Method, o.GridFromTrials = audit.Bonferroni, true })
		case PostHoc:
			res, err = est(m, func(o *audit.Options) { o.Method = audit.PostHoc })
		}
		if err != nil {
			return nil, err
		}
		switch m {
		case GDPLower:
			out[i] = res.GDP.EpsilonLower
		case GDPPoint:
			out[i] = res.GDP.Epsilon
		default:
			out[i] = res.EpsilonLB
		}
	}
	return out, nil
}

// pilotGrid places k thresholds at quantiles of the pilot scores, denser
// in both tails (where Eq. 5 is largest): tail masses geometric from 1/n
// to ½, as audit's default grid.
func pilotGrid(pilot []float64, k int) []float64 {
	s := slices.Sorted(slices.Values(pilot))
	n := len(s)
	var grid []float64
	half := k / 2
	for i := range half {
		t := float64(i) / float64(max(half-1, 1))
		p := math.Exp((1-t)*math.Log(1/float64(n)) + t*math.Log(0.5))
		lo := min(int(p*float64(n)), n-1)
		hi := max(n-1-int(p*float64(n)), 0)
		grid = append(grid, s[lo], s[hi])
	}
	slices.Sort(grid)
	return slices.Compact(grid)
}

func summarise(m string, n int, lbs []float64, trueEps, alpha float64) Row {
	fam, valid, assumes := info(m)
	row := Row{Method: m, Family: fam, Valid: valid, Assumes: assumes, Trials: n, Repeats: len(lbs), Nominal: alpha}
	sorted := slices.Sorted(slices.Values(lbs))
	sum := 0.0
	for _, v := range lbs {
		if v > trueEps {
			row.Exceed++
		}
		sum += v
	}
	R := len(lbs)
	row.MeanLB = sum / float64(R)
	row.MedianLB = sorted[R/2]
	if R%2 == 0 {
		row.MedianLB = (sorted[R/2-1] + sorted[R/2]) / 2
	}
	row.MinLB, row.MaxLB = sorted[0], sorted[R-1]
	row.Power = row.MeanLB / trueEps
	row.Rate = float64(row.Exceed) / float64(R)
	row.RateLo, _ = audit.ClopperPearsonLower(row.Exceed, R, 0.95, audit.TwoSided)
	row.RateHi, _ = audit.ClopperPearsonUpper(row.Exceed, R, 0.95, audit.TwoSided)
	row.OK = row.RateLo <= alpha
	return row
}
