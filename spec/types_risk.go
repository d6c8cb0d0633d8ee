package spec

import "fmt"

// RiskBound is the attack-risk panel of a point's DP-SGD run: the numbers
// `dpaudit account --risk` prints, read off one accountant's trade-off
// curve (package privacy's TradeOff; package bounds' AttackRisk).
type RiskBound struct {
	Accountant      string    `yaml:"accountant" default:"best" enum:"best|pld|rdp|gdp" doc:"Accountant whose trade-off curve is read: best (the larger of the RDP and PLD curves; the exact GDP curve at q = 1), pld, rdp, or gdp (the CLT approximation except at q = 1: not a bound, column risk_valid false)."`
	FPR             []float64 `yaml:"fpr" default:"[0.001, 0.01, 0.1]" check:">0,<1" doc:"False-positive rates at which to bound a membership attack's TPR, each in (0, 1) and distinct; one column risk_tpr_at_fpr_<fpr> each, the FPR written in decimals with p for the point (0.01 → risk_tpr_at_fpr_0p01)."`
	Baseline        float64   `yaml:"baseline" check:">0,<1" doc:"Baseline success of a reconstruction, attribute-inference or re-identification guess made without the release, in (0, 1): 1/|π| for a uniform prior over |π| candidates, the largest prior probability of an attribute's values, 1/N for a population of N. Give baseline or prior_size; neither: 0.1."`
	PriorSize       int       `yaml:"prior_size" check:">=2" doc:"|π|: size of a uniform prior over candidates, so the baseline is 1/|π|, instead of baseline."`
	MembershipPrior float64   `yaml:"membership_prior" default:"0.5" check:">0,<1" doc:"Prior probability that the target is a member, for risk_bayes_accuracy."`
	Conversion      string    `yaml:"conversion" default:"improved" enum:"improved|classic" doc:"RDP → (ε, δ) conversion of the RDP curve (accountants rdp and best)."`
	PLDInterval     float64   `yaml:"pld_interval" default:"1e-4" check:">0,<=0.1" doc:"PLD discretisation interval of the privacy loss (accountants pld and best), coarsened where the grid would not fit in pld_memory_mib (column risk_pld_interval_used)."`
	PLDMemMiB       int64     `yaml:"pld_memory_mib" check:">0" doc:"Memory (MiB) the PLD grids may use before the interval is coarsened; absent: a quarter of this machine's RAM."`
}

// validateRiskBound checks what spans keys of a risk entry: a dpsgd block to
// account from, at most one of baseline and prior_size, distinct FPRs (each
// names a column).
func validateRiskBound(r *RiskBound, noDPSGD bool, has func(string) bool, report func(key, format string, args ...any)) {
	if noDPSGD {
		report("kind", "the risk bound needs a dpsgd block (noise_multiplier, sampling_rate, steps) to account from")
	}
	if has("baseline") && has("prior_size") {
		report("prior_size", "give baseline or prior_size, not both")
	}
	seen := map[float64]int{}
	for i, f := range r.FPR {
		if j, dup := seen[f]; dup && f > 0 {
			report(fmt.Sprintf("fpr[%d]", i), "FPR %v is listed twice (also fpr[%d]): each names a column", f, j)
		}
		seen[f] = i
	}
}
