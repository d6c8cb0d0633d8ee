package audit

import (
	"fmt"
	"math"
)

// Claims an estimate can refute, as result tables print them.
const (
	ClaimEpsDelta = "(epsilon, delta)-DP, any mechanism"
	ClaimGaussian = "gaussian (mu-GDP trade-off curve)"
)

// Claim is what a score table's estimates are compared with.
type Claim struct {
	// Epsilon is the claimed ε at the estimates' δ (+Inf: nothing is
	// claimed, nothing can be refuted).
	Epsilon float64
	// FamilyMu is the claim's parameter in the order-statistics family
	// (OSFamilyOfSGM); 0 when the claim has none.
	FamilyMu float64
}

// EstimateRow is one estimate of a score table in the form every
// estimator shares, for printing and for the claim test.
type EstimateRow struct {
	Family string
	// Tests is the claim a number above the claimed ε refutes.
	Tests string
	// Valid: a proof covers EpsilonLB at Confidence for that claim.
	Valid bool
	// EpsilonLB is the lower bound; EpsilonPoint and EpsilonHi the
	// point estimate and the interval's upper end where the family has
	// them (NaN otherwise).
	EpsilonLB, EpsilonPoint, EpsilonHi float64
	Confidence                         float64
	// Used is how many rows (trials or canaries) the estimate used.
	Used int
	// Detail says what was counted, in words.
	Detail string
	// refutes: the row can raise a violation; pValue is then the p-value
	// of the claim at a claimed ε, and byPValue says that a single such
	// row refutes by its p-value rather than by its bound (the per-step
	// estimate, whose claim is the mechanism's per-step μ).
	refutes, byPValue bool
	pValue            func(claim float64) float64
}

// RaisesViolation reports whether the row can refute the claim: a valid
// estimate of a procedure that holds for any mechanism ((ε, δ)-DP), or
// the per-step estimate of a claimed Gaussian mechanism (as a run
// decides). Rows that test a Gaussian-family trade-off curve are
// compared with the claim but never raise a violation.
func (r EstimateRow) RaisesViolation() bool { return r.refutes }

// Rows lists the estimates in a fixed order: the classic ones, then the
// one-run ones.
func (e *ScoreEstimates) Rows() []EstimateRow {
	var rows []EstimateRow
	nan := math.NaN()
	if r := e.Classic; r != nil {
		rr := *r
		rows = append(rows,
			EstimateRow{Family: FamilyEpsDeltaCP, Tests: ClaimEpsDelta, Valid: r.Valid, EpsilonLB: r.EpsilonLB, EpsilonPoint: r.EpsilonPoint, EpsilonHi: nan,
				Confidence: r.Confidence, Used: r.Trials0 + r.Trials1,
				Detail:  fmt.Sprintf("%s; %s with threshold %.6g: FPR %d/%d, FNR %d/%d on the evaluation trials", r.Method, r.Rule, r.Threshold, r.Counts.FP, r.Counts.N0, r.Counts.FN, r.Counts.N1),
				refutes: r.Valid, pValue: func(c float64) float64 { return rr.PValue(c) }},
			EstimateRow{Family: FamilyGDPFit, Tests: ClaimGaussian, Valid: r.Valid, EpsilonLB: r.GDP.EpsilonLower, EpsilonPoint: r.GDP.Epsilon, EpsilonHi: r.GDP.EpsilonUpper,
				Confidence: r.Confidence, Used: r.Trials0 + r.Trials1,
				Detail: fmt.Sprintf("mu %.4g in [%.4g, %.4g] at threshold %.6g", r.GDP.Mu, r.GDP.MuLower, r.GDP.MuUpper, r.GDP.Threshold)},
		)
	}
	if r := e.OneRun; r != nil {
		rr := *r
		rows = append(rows, EstimateRow{Family: FamilyOneRun, Tests: ClaimEpsDelta, Valid: true, EpsilonLB: r.EpsilonLB, EpsilonPoint: nan, EpsilonHi: nan,
			Confidence: r.Confidence, Used: r.Canaries,
			Detail:  fmt.Sprintf("%d of %d guesses right (%d in, %d out) among %d canaries", r.Correct, r.Guesses, r.KPlus, r.KMinus, r.Canaries),
			refutes: true,
			pValue: func(c float64) float64 {
				if math.IsInf(c, 1) {
					return 1
				}
				return oneRunPValue(rr.Canaries, rr.Guesses, rr.Correct, c, rr.Delta)
			}})
	}
	if r := e.FDP; r != nil {
		rows = append(rows, EstimateRow{Family: FamilyOneRunFDP, Tests: ClaimGaussian, Valid: true, EpsilonLB: r.EpsilonLB, EpsilonPoint: nan, EpsilonHi: nan,
			Confidence: r.Confidence, Used: r.Canaries,
			Detail: fmt.Sprintf("mu >= %.4g; %d of %d guesses right (%d in, %d out)", e.FDPMu, r.Correct, r.Guesses, r.KPlus, r.KMinus)})
	}
	if r := e.OrderStats; r != nil {
		detail := fmt.Sprintf("mu >= %.4g; %d mistakes among the %d most confident of %d guesses", r.Mu, r.Mistakes, r.Guesses, r.Canaries)
		if r.AtRangeEnd {
			detail += "; at the end of the search range (mu = 32): the epsilon is an artefact of the range"
		}
		rows = append(rows, EstimateRow{Family: FamilyOneRunOrderStats, Tests: r.Family, Valid: true, EpsilonLB: r.EpsilonLB, EpsilonPoint: nan, EpsilonHi: nan,
			Confidence: e.Options.Confidence, Used: r.Canaries, Detail: detail})
	}
	if e.PerStep != nil {
		rows = append(rows, e.perStepRow())
	}
	return rows
}

// ClaimTest is the comparison of every estimate with a claim.
type ClaimTest struct {
	Claim Claim
	// Above[i] reports whether row i's lower bound exceeds the claimed
	// ε (strictly: a bound equal to the claim refutes nothing).
	Above []bool
	// Tests is how many estimates can raise a violation (RaisesViolation).
	Tests int
	// PValue is the family-wise p-value of "the mechanism satisfies the
	// claim" over those estimates: K × the smallest (Bonferroni); NaN
	// when there is none.
	PValue float64
	// Violation: the claim is refuted at the estimates' confidence.
	Violation bool
	// Correction names how several tests were combined.
	Correction string
	// OSClaimPValue is P[at most the observed mistakes] under the claim's
	// own order-statistics parameter (NaN without one): small values
	// reject the family claim.
	OSClaimPValue float64
}

// Test compares the estimates with a claim. With one estimate that can
// raise a violation, the violation is its bound above the claim (as the
// runner decides it); with several (classic and one-run on a multi-run
// table), the claim is refuted when K × the smallest p-value is below
// 1 − confidence, so that testing K estimates does not multiply the
// chance of a false alarm.
func (e *ScoreEstimates) Test(c Claim) (ClaimTest, error) {
	if math.IsNaN(c.Epsilon) || c.Epsilon < 0 {
		return ClaimTest{}, invalidf("claimed ε must be ≥ 0, got %v", c.Epsilon)
	}
	rows := e.Rows()
	ct := ClaimTest{Claim: c, Above: make([]bool, len(rows)), PValue: math.NaN(), OSClaimPValue: math.NaN()}
	var tests []claimTest
	for i, r := range rows {
		ct.Above[i] = r.EpsilonLB > c.Epsilon
		if r.RaisesViolation() {
			tests = append(tests, claimTest{p: r.pValue(c.Epsilon), above: ct.Above[i], byPValue: r.byPValue})
		}
	}
	ct.Tests = len(tests)
	ct.PValue, ct.Violation, ct.Correction = combineTests(tests, 1-e.Options.Confidence)
	if os := e.OrderStats; os != nil && c.FamilyMu > 0 {
		p, err := OrderStatsPValue(*e.Options.Family, c.FamilyMu, os.Canaries, os.Guesses, os.Mistakes)
		if err != nil {
			return ClaimTest{}, err
		}
		ct.OSClaimPValue = p
	}
	return ct, nil
}

// claimTest is one estimate's test of the claim: its p-value, whether
// its bound is above the claimed ε, and whether a single test refutes by
// its p-value (per-step) rather than by its bound.
type claimTest struct {
	p               float64
	above, byPValue bool
}

// combineTests is the verdict over the estimates that can refute the
// claim at level alpha: none, one (as a run decides it: the bound above
// the claim, or the per-step p-value below alpha), or several, where the
// family-wise p-value is K × the smallest (Bonferroni) and refutes below
// alpha.
func combineTests(tests []claimTest, alpha float64) (p float64, violation bool, correction string) {
	switch len(tests) {
	case 0:
		return math.NaN(), false, "no estimate can refute an (epsilon, delta) claim"
	case 1:
		t := tests[0]
		if t.byPValue {
			return t.p, t.p < alpha, "none (one test)"
		}
		return t.p, t.above, "none (one test)"
	}
	minP := 1.0
	for _, t := range tests {
		minP = math.Min(minP, t.p)
	}
	p = math.Min(1, minP*float64(len(tests)))
	return p, p < alpha, fmt.Sprintf("bonferroni over %d tests", len(tests))
}
