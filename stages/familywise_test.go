package stages

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// The violation flag of a run is family-wise: with Holm, two points whose
// own tests reject at α = 0.05 (p = 0.03 and 0.04) are not flagged, since
// the smaller p is above α/2; without a correction both are. An invalid
// estimate (no p-value) is never flagged, and rows without an audit stay
// null.
func TestApplyFamilywise(t *testing.T) {
	build := func(fw string) *pipeline.Table {
		tb := &pipeline.Table{}
		tb.Add("violation_p_value", pipeline.Float64, []any{0.03, 0.04, math.NaN(), nil})
		tb.Add("violation_uncorrected", pipeline.Bool, []any{true, true, false, nil})
		tb.Add("familywise", pipeline.String, []any{fw, fw, fw, nil})
		tb.Add("epsilon_lb_confidence", pipeline.Float64, []any{0.95, 0.95, 0.95, nil})
		if err := applyFamilywise(tb); err != nil {
			t.Fatal(err)
		}
		return tb
	}
	for fw, want := range map[string][]any{
		"holm": {false, false, false, nil},
		"none": {true, true, false, nil},
	} {
		got := build(fw).Col("violation").Values
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: violation = %v, want %v", fw, got, want)
				break
			}
		}
	}
	// p = 0.01 and 0.04: Holm flags both (0.01 ≤ 0.025, then 0.04 ≤ 0.05).
	tb := &pipeline.Table{}
	tb.Add("violation_p_value", pipeline.Float64, []any{0.04, 0.01})
	tb.Add("violation_uncorrected", pipeline.Bool, []any{true, true})
	tb.Add("familywise", pipeline.String, []any{"holm", "holm"})
	tb.Add("epsilon_lb_confidence", pipeline.Float64, []any{0.95, 0.95})
	applyFamilywise(tb)
	if v := tb.Col("violation").Values; v[0] != true || v[1] != true {
		t.Errorf("holm step-down: %v", v)
	}
	if s := tb.Col("violation_familywise").Values[0]; s != "holm over 2 point(s), family-wise α = 0.05" {
		t.Errorf("violation_familywise %q", s)
	}
}
