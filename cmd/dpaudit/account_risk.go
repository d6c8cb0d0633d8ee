package main

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/privacy"
)

// riskFlags are account's --risk panel: what ε means for an attacker.
type riskFlags struct {
	on        bool
	fprs      string
	baselines string
	prior     float64
}

func (r *riskFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&r.on, "risk", false, "also print what the accountant's trade-off curve means for an attacker: TPR at --fpr, advantage, Bayes accuracy, reconstruction success at --baseline, the μ-GDP fit")
	fs.StringVar(&r.fprs, "fpr", "0.001,0.01,0.1", "with --risk: false-positive rates (comma-separated, each in (0, 1)) at which to bound a membership attack's TPR")
	fs.StringVar(&r.baselines, "baseline", "1/10", "with --risk: baseline success of a reconstruction, attribute-inference or re-identification guess made without the release (comma-separated, in (0, 1); 1/n for a uniform prior over n candidates)")
	fs.Float64Var(&r.prior, "prior", 0.5, "with --risk: prior probability of membership for the Bayes accuracy, in (0, 1)")
}

// probabilities reads a comma-separated list of numbers in (0, 1), each a
// decimal or a fraction 1/n.
func probabilities(flagName, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := fraction(f)
		if err != nil || !(v > 0 && v < 1) {
			return nil, usagef("dpaudit account: --%s: each value must be a number in (0, 1) (or 1/n), got %q", flagName, f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usagef("dpaudit account: --%s: give at least one value", flagName)
	}
	return out, nil
}

// fraction reads "0.1" or "1/10".
func fraction(s string) (float64, error) {
	num, den, ok := strings.Cut(s, "/")
	a, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !ok {
		return a, err
	}
	b, err := strconv.ParseFloat(strings.TrimSpace(den), 64)
	if err != nil || b == 0 {
		return 0, fmt.Errorf("bad fraction %q", s)
	}
	return a / b, nil
}

// riskPanel is one accountant's panel, in the JSON layout.
type riskPanel struct {
	Valid          bool               `json:"valid"`
	Note           string             `json:"note"`
	Advantage      float64            `json:"advantage"`
	BayesAccuracy  float64            `json:"bayes_accuracy"`
	Prior          float64            `json:"prior"`
	MuFit          any                `json:"mu_gdp_fit"`
	MuFitFPR       [2]float64         `json:"mu_gdp_fit_fpr_range"`
	TPRAtFPR       map[string]float64 `json:"tpr_at_fpr"`
	Reconstruction map[string]float64 `json:"reconstruction_success"`
	// ReconstructionFDP is the same bound on the symmetric f-DP curve
	// (Kulynych et al.'s as published, riskcal's number).
	ReconstructionFDP map[string]float64 `json:"reconstruction_success_fdp"`
	AgreeBelow        float64            `json:"orientations_agree_below"`
}

func (r *riskFlags) panel(acc string, mech privacy.SampledGaussian, o privacy.Options) (riskPanel, error) {
	fprs, err := probabilities("fpr", r.fprs)
	if err != nil {
		return riskPanel{}, err
	}
	baselines, err := probabilities("baseline", r.baselines)
	if err != nil {
		return riskPanel{}, err
	}
	c, err := privacy.TradeOffCurve(privacy.Accountant(acc), mech, o)
	if err != nil {
		return riskPanel{}, privacyError("account", err)
	}
	fit, err := c.Symmetric.FitGDP(0, 0)
	if err != nil {
		return riskPanel{}, err
	}
	p := riskPanel{Valid: c.Valid, Note: curveNote(c, mech), Advantage: c.Symmetric.Advantage(),
		BayesAccuracy: c.Symmetric.BayesAccuracy(r.prior), Prior: r.prior, MuFit: jsonNumber(fit.Mu),
		MuFitFPR: [2]float64{fit.MinFPR, fit.MaxFPR}, TPRAtFPR: map[string]float64{},
		Reconstruction: map[string]float64{}, ReconstructionFDP: map[string]float64{}, AgreeBelow: c.OrientationsAgreeBelow()}
	for _, a := range fprs {
		p.TPRAtFPR[key(a)] = c.Symmetric.TPR(a)
	}
	for _, b := range baselines {
		added, err := bounds.AttackRisk(c.Added, b)
		if err != nil {
			return riskPanel{}, usagef("dpaudit account: --baseline: %v", err)
		}
		sym, _ := bounds.AttackRisk(c.Symmetric, b)
		p.Reconstruction[key(b)], p.ReconstructionFDP[key(b)] = added.Success, sym.Success
	}
	return p, nil
}

func key(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// curveNote says what kind of curve an accountant gives.
func curveNote(c *privacy.TradeOff, m privacy.SampledGaussian) string {
	switch {
	case c.Accountant == privacy.AccountantGDP && !c.Exact:
		return fmt.Sprintf("μ = %.4g CLT approximation: not a bound", c.Mu)
	case c.Exact:
		return fmt.Sprintf("exact μ-GDP, μ = √T/σ = %.6g", c.Mu)
	case c.Accountant == privacy.AccountantPLD:
		return fmt.Sprintf("PLD interval %g, pessimistic: a bound", c.PLDInterval)
	case c.Accountant == privacy.AccountantRDP:
		return "from every order's Rényi bound: a looser bound"
	}
	return "the larger of the RDP and PLD curves: a bound"
}

// text prints the panel under an accountant's ε line.
func (p riskPanel) text(prior float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n        curve: %s", p.Note)
	fmt.Fprintf(&b, "\n        membership: advantage (max TPR − FPR) %.4g, Bayes accuracy at prior %g: %.4g", p.Advantage, prior, p.BayesAccuracy)
	var tprs []string
	for _, k := range sortedKeys(p.TPRAtFPR) {
		tprs = append(tprs, fmt.Sprintf("%.4g at FPR %s", p.TPRAtFPR[k], k))
	}
	fmt.Fprintf(&b, "\n        TPR ≤ %s", strings.Join(tprs, ", "))
	for _, k := range sortedKeys(p.Reconstruction) {
		v, _ := strconv.ParseFloat(k, 64)
		line := fmt.Sprintf("\n        reconstruction / attribute / re-identification success ≤ %.4g at baseline %s", p.Reconstruction[k], k)
		if n := 1 / v; math.Abs(n-math.Round(n)) < 1e-6 {
			line += fmt.Sprintf(" (|π| = %.0f)", n)
		}
		if s := p.ReconstructionFDP[k]; s-p.Reconstruction[k] > 5e-5 {
			line += fmt.Sprintf("; %.4g on the symmetric f-DP curve (baseline above ᾱ = %.3g)", s, p.AgreeBelow)
		}
		b.WriteString(line)
	}
	fmt.Fprintf(&b, "\n        μ-GDP fit %v (approximation: smallest μ with G_μ below the curve at FPR %g…%g)", fmtNumber(p.MuFit), p.MuFitFPR[0], p.MuFitFPR[1])
	return b.String()
}

func fmtNumber(v any) string {
	if x, ok := v.(float64); ok {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return fmt.Sprint(v)
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	num := func(k string) float64 { v, _ := strconv.ParseFloat(k, 64); return v }
	sort.Slice(keys, func(i, j int) bool { return num(keys[i]) < num(keys[j]) })
	return keys
}

// check validates the panel's flags before any accounting runs.
func (r *riskFlags) check() error {
	if !r.on {
		return nil
	}
	if _, err := probabilities("fpr", r.fprs); err != nil {
		return err
	}
	if _, err := probabilities("baseline", r.baselines); err != nil {
		return err
	}
	if !(r.prior > 0 && r.prior < 1) {
		return usagef("dpaudit account: --prior must be in (0, 1), got %v", r.prior)
	}
	return nil
}
