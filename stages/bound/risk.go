package bound

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// riskVersion changes when the risk stage computes differently.
const riskVersion = 1

// riskParams is everything the risk panel of one DP-SGD run depends on.
type riskParams struct {
	DPSGD           stages.Mechanism `json:"dpsgd"`
	Accountant      string           `json:"accountant"`
	FPR             []float64        `json:"fpr"`
	Baseline        float64          `json:"baseline"`
	MembershipPrior float64          `json:"membership_prior"`
	Conversion      string           `json:"conversion,omitempty"`   // rdp and best
	PLDInterval     float64          `json:"pld_interval,omitempty"` // pld and best
	PLDMemory       int64            `json:"pld_memory,omitempty"`   // pld and best: bytes
}

// DefaultRiskBaseline is the baseline of a risk entry that gives neither
// baseline nor prior_size: a uniform prior over 10 candidates, as
// `dpaudit account --risk` prints by default.
const DefaultRiskBaseline = 0.1

// RiskTPRColumn names the column of the TPR bound at an FPR: the FPR in
// decimals with p for the point (0.01 → risk_tpr_at_fpr_0p01), so the
// name is a plain identifier in SQL and in expressions.
func RiskTPRColumn(fpr float64) string {
	return "risk_tpr_at_fpr_" + strings.ReplaceAll(strconv.FormatFloat(fpr, 'f', -1, 64), ".", "p")
}

func riskCalc(exp *spec.Experiment, r *spec.RiskBound) stages.Calc {
	p := riskParams{DPSGD: stages.MechanismOf(exp.DPSGD), Accountant: r.Accountant, FPR: r.FPR,
		Baseline: r.Baseline, MembershipPrior: r.MembershipPrior}
	switch {
	case r.PriorSize > 0:
		p.Baseline = 1 / float64(r.PriorSize)
	case p.Baseline == 0:
		p.Baseline = DefaultRiskBaseline
	}
	if r.Accountant != "gdp" {
		p.Conversion = r.Conversion
	}
	if r.Accountant == "pld" || r.Accountant == "best" {
		p.PLDInterval = r.PLDInterval
		p.PLDMemory = privacy.DefaultPLDMemory()
		if r.PLDMemMiB > 0 {
			p.PLDMemory = r.PLDMemMiB << 20
		}
	}
	if r.Accountant == "pld" {
		p.Conversion = ""
	}
	return stages.Calc{
		Kind:    "risk",
		Version: riskVersion,
		Params:  p,
		Label:   fmt.Sprintf("%s %s baseline=%.4g", p.Accountant, p.DPSGD, p.Baseline),
		Columns: riskColumns(p),
		Compute: func() ([]stages.Output, error) { return runRisk(p) },
	}
}

func riskColumns(p riskParams) []string {
	cols := []string{"risk_accountant", "risk_valid", "risk_advantage"}
	for _, f := range p.FPR {
		cols = append(cols, RiskTPRColumn(f))
	}
	return append(cols, "risk_membership_prior", "risk_bayes_accuracy", "risk_baseline",
		"risk_reconstruction_success", "risk_reconstruction_success_fdp",
		"risk_mu_gdp_approx", "risk_mu_gdp_approx_at_fpr", "risk_pld_interval_used")
}

// runRisk reads the panel off the accountant's trade-off curves: the
// membership numbers and the μ-GDP fit off the symmetric curve, the
// reconstruction bound off the added orientation (Hayes et al.'s game)
// and, as Kulynych et al. publish it, off the symmetric curve.
func runRisk(p riskParams) ([]stages.Output, error) {
	m := privacy.SampledGaussian{NoiseMultiplier: p.DPSGD.NoiseMultiplier, SamplingRate: p.DPSGD.SamplingRate, Steps: p.DPSGD.Steps}
	o := privacy.Options{PLDInterval: p.PLDInterval, PLDMemory: p.PLDMemory}
	if p.Conversion == "classic" {
		o.Conversion = privacy.ConversionClassic
	}
	c, err := privacy.TradeOffCurve(privacy.Accountant(p.Accountant), m, o)
	if err != nil {
		return nil, err
	}
	outs := []stages.Output{stages.Str("risk_accountant", p.Accountant), stages.Bool("risk_valid", c.Valid),
		stages.F64("risk_advantage", c.Symmetric.Advantage())}
	for _, f := range p.FPR {
		outs = append(outs, stages.F64(RiskTPRColumn(f), c.Symmetric.TPR(f)))
	}
	added, err := bounds.AttackRisk(c.Added, p.Baseline)
	if err != nil {
		return nil, err
	}
	sym, err := bounds.AttackRisk(c.Symmetric, p.Baseline)
	if err != nil {
		return nil, err
	}
	fit, err := c.Symmetric.FitGDP(0, 0)
	if err != nil {
		return nil, err
	}
	return append(outs,
		stages.F64("risk_membership_prior", p.MembershipPrior),
		stages.F64("risk_bayes_accuracy", c.Symmetric.BayesAccuracy(p.MembershipPrior)),
		stages.F64("risk_baseline", p.Baseline),
		stages.F64("risk_reconstruction_success", added.Success),
		stages.F64("risk_reconstruction_success_fdp", sym.Success),
		stages.F64("risk_mu_gdp_approx", fit.Mu),
		stages.F64("risk_mu_gdp_approx_at_fpr", fit.AtFPR),
		stages.F64("risk_pld_interval_used", nonZero(c.PLDInterval))), nil
}
