package bound

import (
	"testing"

	"github.com/dpaudit/dpaudit/spec"
)

// The spec's accountant.pld_memory_mib reaches the PLD and best nodes as
// bytes (and only them); absent, the params carry 0 (a quarter of RAM) and
// the node keys are those of before the setting existed.
func TestAccountantPLDMemoryParam(t *testing.T) {
	pt := spec.Point{Exp: &spec.Experiment{DPSGD: &spec.DPSGD{NoiseMultiplier: 1.1, SamplingRate: 0.01, Steps: 100, Delta: 1e-5}}}
	a := &spec.AccountantBound{Accountants: []string{"rdp", "pld", "best"}, Conversion: "improved", PLDInterval: 1e-4, PLDMemMiB: 8}
	want := map[string]int64{"rdp": 0, "pld": 8 << 20, "best": 8 << 20}
	for _, s := range accountantCalcs(pt.Exp, a) {
		p := s.Params.(accountantParams)
		if p.PLDMemory != want[p.Accountant] {
			t.Errorf("%s: PLDMemory = %d, want %d", p.Accountant, p.PLDMemory, want[p.Accountant])
		}
	}
	a.PLDMemMiB = 0
	for _, s := range accountantCalcs(pt.Exp, a) {
		if p := s.Params.(accountantParams); p.PLDMemory != 0 {
			t.Errorf("%s: PLDMemory = %d without the setting", p.Accountant, p.PLDMemory)
		}
	}
}
