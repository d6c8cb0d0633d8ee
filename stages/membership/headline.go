package membership

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/stages"
)

// headlineColumns hold one of an audit's estimates (audit.headline) in
// columns every estimator fills alike, so that a sweep over audit
// families compares them row by row (examples/audit/tightness.yaml).
var headlineColumns = []string{"headline_family", "headline_claim", "headline_valid",
	"headline_epsilon_lb", "headline_epsilon_point", "headline_epsilon_hi", "headline_ratio"}

// Claims a headline estimate tests, in words.
const (
	claimAnyMechanism = "(epsilon, delta)-DP, any mechanism"
	claimGaussian     = "gaussian (mu-GDP trade-off curve)"
)

// headlineOutputs copies the estimate of family h out of an estimate's
// outputs (repeat 0, like epsilon_lb): its lower bound at the audit's
// confidence, the point estimate and the upper end of its interval where
// the family has them (NaN otherwise), whether a proof covers the lower
// bound for the claim it names, and the bound over the claim's ε.
func headlineOutputs(h string, outs []stages.Output) ([]stages.Output, error) {
	get := func(name string) any {
		for _, o := range outs {
			if o.Name == name {
				return o.Value
			}
		}
		return nil
	}
	f := func(name string) float64 {
		if v, ok := get(name).(float64); ok {
			return v
		}
		return math.NaN()
	}
	str := func(name string) string {
		s, _ := get(name).(string)
		return s
	}
	valid, _ := get("estimate_valid").(bool)
	nan := math.NaN()
	var lb, point, hi float64
	var claim string
	switch h {
	case "eps_delta_cp", "one_run", "per_step_gdp":
		if fam := str("estimate_family"); fam != h {
			return nil, fmt.Errorf("headline %s: the estimate is %s", h, fam)
		}
		lb, point, hi, claim = f("epsilon_lb"), nan, nan, claimAnyMechanism
		switch h {
		case "eps_delta_cp":
			point = f("epsilon_point")
		case "per_step_gdp":
			point, hi, claim = f("epsilon_per_step_point"), f("epsilon_per_step_ub"), str("per_step_claim")
		}
	case "gdp_fit":
		// The lower end is a valid bound on μ when the threshold was
		// chosen validly (the same rule as the ε bound's), read as ε
		// under the Gaussian claim.
		lb, point, hi, claim = f("epsilon_gdp_estimate_lo"), f("epsilon_gdp_estimate"), f("epsilon_gdp_estimate_hi"), claimGaussian
	case "one_run_fdp":
		lb, point, hi, claim, valid = f("one_run_fdp_epsilon_lb"), nan, nan, claimGaussian, true
	case "one_run_order_stats":
		lb, point, hi, claim = f("one_run_os_epsilon_lb"), nan, nan, str("one_run_os_claim")
		valid = !math.IsNaN(lb)
	default:
		return nil, fmt.Errorf("unknown headline estimate %q", h)
	}
	return []stages.Output{
		stages.Str("headline_family", h),
		stages.Str("headline_claim", claim),
		stages.Bool("headline_valid", valid),
		stages.F64("headline_epsilon_lb", lb),
		stages.F64("headline_epsilon_point", point),
		stages.F64("headline_epsilon_hi", hi),
		stages.F64("headline_ratio", lb/f("epsilon_accountant")),
	}, nil
}
