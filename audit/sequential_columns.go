package audit

import (
	"encoding/json"
	"fmt"

	"github.com/dpaudit/dpaudit/privacy"
)

// ProfilePairs is how many ε in [0, ε_claim) a profile test takes from
// the claim's accountant (plus (ε_claim, δ) itself).
const ProfilePairs = 24

// SequentialProfile lists the pairs of a claim's privacy profile that a
// sequential look tests: for test "epsilon" the single (ε_claim, δ); for
// "profile" also (ε_j, δ_claim(ε_j)) at ε_j = ε_claim·j/24, j < 24, from
// the accountant acc on m (each a pair the accountant asserts). A claim
// given as a number (m.NoiseMultiplier 0) has only its pair. The runner's
// sequential audits and dpaudit estimate --sequential both use it.
func SequentialProfile(test string, acc privacy.Accountant, m privacy.SampledGaussian, epsClaim, delta float64) ([]ProfilePoint, error) {
	out := []ProfilePoint{{Epsilon: epsClaim, Delta: delta}}
	if test == "epsilon" || m.NoiseMultiplier == 0 {
		return out, nil
	}
	if acc == "" {
		acc = privacy.AccountantBest
	}
	es := make([]float64, ProfilePairs)
	for j := range es {
		es[j] = epsClaim * float64(j) / ProfilePairs
	}
	ds, err := privacy.DeltaProfile(acc, m, es, privacy.Options{})
	if err != nil {
		return nil, fmt.Errorf("the claim's privacy profile: %w", err)
	}
	var prof []ProfilePoint
	for j, e := range es {
		prof = append(prof, ProfilePoint{Epsilon: e, Delta: min(ds[j], 1)})
	}
	return append(prof, out...), nil
}

// SequentialColumns are the summary columns of a sequential audit that
// stopped (r.Stopped set), from the test's name, the claimed ε and δ:
// sequential_test … violation_detail (docs/tables.md), as the runner
// writes them and dpaudit estimate --sequential prints them.
func SequentialColumns(r SequentialResult, test string, epsClaim, delta float64) []NamedValue {
	l := r.Looks[len(r.Looks)-1]
	ns := make([]int, len(r.Looks))
	for i, x := range r.Looks {
		ns[i] = x.Trials
	}
	nsJSON, _ := json.Marshal(ns)
	detail := ""
	if r.Violation {
		if l.ProfileEpsilon == epsClaim && l.ProfileDeltaClaim == delta {
			detail = fmt.Sprintf("sequential look %d (%d trials): ε lower bound %.4g > claimed ε %.4g at δ = %.3g", l.K, l.Trials, l.EpsilonLB, epsClaim, delta)
		} else {
			detail = fmt.Sprintf("sequential look %d (%d trials): at ε = %.3g the trials prove δ ≥ %.3g, the claim's accountant says δ = %.3g (its privacy profile is refuted; ε lower bound at δ = %.3g: %.4g, claimed ε %.4g)",
				l.K, l.Trials, l.ProfileEpsilon, l.ProfileDeltaLB, l.ProfileDeltaClaim, delta, l.EpsilonLB, epsClaim)
		}
	}
	return []NamedValue{
		{"sequential_test", test},
		{"sequential_trials_used", int64(r.TrialsUsed)},
		{"sequential_looks", int64(len(r.Looks))},
		{"sequential_stopped", r.Stopped},
		{"sequential_look_trials", string(nsJSON)},
		{"sequential_look_alpha", l.Alpha},
		{"sequential_epsilon_lb_max", r.EpsilonLBMax},
		{"threshold", l.Threshold},
		{"fpr", l.Counts.FPR()},
		{"fnr", l.Counts.FNR()},
		{"fpr_upper", l.FPRUpper},
		{"fnr_upper", l.FNRUpper},
		{"profile_epsilon", l.ProfileEpsilon},
		{"profile_delta_lb", l.ProfileDeltaLB},
		{"profile_delta_claim", l.ProfileDeltaClaim},
		{"violation_detail", detail},
	}
}
