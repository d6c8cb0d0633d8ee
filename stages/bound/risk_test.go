package bound

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/spec"
	"gonum.org/v1/gonum/mathext"
)

func riskEntry(acc string, fpr ...float64) spec.Bound {
	return spec.Bound{Kind: "risk", Risk: &spec.RiskBound{Accountant: acc, FPR: fpr, MembershipPrior: 0.5,
		Conversion: "improved", PLDInterval: 1e-4}}
}

// At q = 1, T Gaussian steps are exactly μ-GDP with μ = √T/σ (Dong, Roth &
// Su 2022), so every column has a closed form: TPR at α is Φ(Φ⁻¹(α) + μ),
// the advantage 2Φ(μ/2) − 1, the Bayes accuracy at prior ½ Φ(μ/2), the
// reconstruction success at baseline κ Φ(Φ⁻¹(κ) + μ) (Hayes et al.'s
// closed form), and the μ-GDP fit μ itself.
func TestRiskColumnsAtFullBatchAreGDPClosedForms(t *testing.T) {
	e := riskEntry("best", 0.001, 0.01, 0.1)
	e.Risk.PriorSize = 10
	sigma, steps := 2.0, 16
	mu := math.Sqrt(float64(steps)) / sigma
	outs := boundOutputs(t, e, dpsgd(sigma, 1, steps, 1e-5), 1)
	tpr := func(a float64) float64 { return normCDF(mathext.NormalQuantile(a) + mu) }
	for _, c := range []struct {
		col  string
		want float64
	}{
		{"risk_tpr_at_fpr_0p001", tpr(0.001)}, {"risk_tpr_at_fpr_0p01", tpr(0.01)}, {"risk_tpr_at_fpr_0p1", tpr(0.1)},
		{"risk_advantage", 2*normCDF(mu/2) - 1}, {"risk_bayes_accuracy", normCDF(mu / 2)},
		{"risk_baseline", 0.1}, {"risk_reconstruction_success", tpr(0.1)}, {"risk_reconstruction_success_fdp", tpr(0.1)},
		{"risk_mu_gdp_approx", mu}, {"risk_membership_prior", 0.5},
	} {
		nearAbs(t, c.col, col(t, outs, c.col), c.want, 1e-9)
	}
	if outs["risk_valid"] != true || outs["risk_accountant"] != "best" || outs["risk_pld_interval_used"] != nil {
		t.Errorf("risk_valid %v, risk_accountant %v, risk_pld_interval_used %v: want true, best, null (no PLD at q = 1)",
			outs["risk_valid"], outs["risk_accountant"], outs["risk_pld_interval_used"])
	}
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// At q < 1 the columns are what `dpaudit account --risk` prints for the
// quickstart's MNIST schedule (docs/what-epsilon-means.md, this machine):
// best's advantage 0.2245, TPR 0.04021 at FPR 0.01, success 0.2396 at
// baseline 1/10, μ fit 0.5883; the CLT GDP curve is labelled not valid.
func TestRiskColumnsAtMNISTScheduleMatchTheCLI(t *testing.T) {
	d := dpsgd(1.1, 256.0/60000, 14063, 1e-5)
	outs := boundOutputs(t, riskEntry("best", 0.01), d, 1)
	nearAbs(t, "advantage", col(t, outs, "risk_advantage"), 0.2245, 5e-5)
	nearAbs(t, "TPR at 1%", col(t, outs, "risk_tpr_at_fpr_0p01"), 0.04021, 5e-6)
	nearAbs(t, "success at 1/10", col(t, outs, "risk_reconstruction_success"), 0.2396, 5e-5)
	nearAbs(t, "μ fit", col(t, outs, "risk_mu_gdp_approx"), 0.5883, 5e-5)
	if col(t, outs, "risk_pld_interval_used") != 1e-4 {
		t.Errorf("risk_pld_interval_used = %v, want 1e-4", outs["risk_pld_interval_used"])
	}
	if gdp := boundOutputs(t, riskEntry("gdp", 0.01), d, 1); gdp["risk_valid"] != false {
		t.Errorf("gdp at q < 1: risk_valid = %v, want false (the CLT curve is not a bound)", gdp["risk_valid"])
	}
}

// The columns a risk node writes are the ones it declares (the summary's
// clash check and the figures' column check rely on them).
func TestRiskColumnsDeclared(t *testing.T) {
	e := riskEntry("rdp", 0.001, 0.25)
	e.Risk.Baseline = 0.5
	outs, err := Values(e, dpsgd(1, 0.01, 100, 1e-5), 1)
	if err != nil {
		t.Fatal(err)
	}
	p := riskCalc(&spec.Experiment{DPSGD: dpsgd(1, 0.01, 100, 1e-5)}, e.Risk).Params.(riskParams)
	cols := riskColumns(p)
	if len(outs) != len(cols) {
		t.Fatalf("%d outputs for %d columns", len(outs), len(cols))
	}
	for i, o := range outs {
		if o.Name != cols[i] {
			t.Errorf("output %d is %s, declared %s", i, o.Name, cols[i])
		}
	}
	if RiskTPRColumn(0.25) != "risk_tpr_at_fpr_0p25" || RiskTPRColumn(1e-5) != "risk_tpr_at_fpr_0p00001" {
		t.Errorf("column names: %s, %s", RiskTPRColumn(0.25), RiskTPRColumn(1e-5))
	}
}
