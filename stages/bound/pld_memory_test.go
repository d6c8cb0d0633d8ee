package bound

import (
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// The PLD and best nodes key on the memory cap their PLD runs under (it
// decides the interval the grid coarsens to, so the ε): the spec's
// accountant.pld_memory_mib in bytes, else this machine's default. Two
// machines with different RAM therefore never share a node whose value
// could differ; the rdp node has no PLD and no cap.
func TestAccountantPLDMemoryParam(t *testing.T) {
	pt := spec.Point{Exp: &spec.Experiment{DPSGD: &spec.DPSGD{NoiseMultiplier: 1.1, SamplingRate: 0.01, Steps: 100, Delta: 1e-5}}}
	a := &spec.AccountantBound{Accountants: []string{"rdp", "pld", "best"}, Conversion: "improved", PLDInterval: 1e-4, PLDMemMiB: 8}
	for _, c := range []struct {
		mib  int64
		want map[string]int64
	}{
		{8, map[string]int64{"rdp": 0, "pld": 8 << 20, "best": 8 << 20}},
		{0, map[string]int64{"rdp": 0, "pld": privacy.DefaultPLDMemory(), "best": privacy.DefaultPLDMemory()}},
	} {
		a.PLDMemMiB = c.mib
		calcs, err := accountantCalcs(pt.Exp, a, "bound[0]")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range calcs {
			p := s.Params.(accountantParams)
			if p.PLDMemory != c.want[p.Accountant] {
				t.Errorf("pld_memory_mib %d, %s: PLDMemory = %d, want %d", c.mib, p.Accountant, p.PLDMemory, c.want[p.Accountant])
			}
		}
	}
	if privacy.DefaultPLDMemory() <= 0 {
		t.Fatalf("DefaultPLDMemory = %d", privacy.DefaultPLDMemory())
	}
	// Another machine's RAM, another key.
	exp := &spec.Experiment{DPSGD: pt.Exp.DPSGD, Bound: []spec.Bound{{Kind: "accountant", Accountant: &spec.AccountantBound{Accountants: []string{"pld"}, PLDInterval: 1e-4}}}}
	here := nodeOf(t, exp, 0, "accountant").Key()
	exp.Bound[0].Accountant.PLDMemMiB = privacy.DefaultPLDMemory()>>20 + 1
	if nodeOf(t, exp, 0, "accountant").Key() == here {
		t.Error("a different memory cap keeps the key")
	}
}
