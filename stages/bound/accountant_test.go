package bound

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
)

// σ → 0 must reach the summary as ε = +Inf, not an error or NaN.
func TestAccountantNoNoiseIsInfinite(t *testing.T) {
	for _, acc := range []string{"pld", "gdp", "best"} {
		outs, err := runAccountant(accountantParams{Accountant: acc, NoiseMultiplier: 1e-12, SamplingRate: 0.5, Steps: 10, Delta: 1e-5, PLDInterval: 1e-4})
		if err != nil {
			t.Fatalf("%s: %v", acc, err)
		}
		// best may take RDP's finite (and valid) 5.5e24 over PLD's +Inf.
		if v := outs[0].Value.(float64); !math.IsInf(v, 1) && !(acc == "best" && v > 1e20) {
			t.Fatalf("%s: ε = %v, want +Inf", acc, outs[0].Value)
		}
	}
}

// The accountant's columns record how they were computed: the PLD
// column comes with the interval actually used (coarsened past 2^23 grid
// points: MNIST's T = 14063 at pld_interval 1e-6 needs ~9.9M, so 1.6e-5),
// and best with which accountant won (RDP at σ = 18.89, q = 0.000667,
// T = 32217, δ = 6.6e-8, where PLD at 1e-4 gives 0.0383 and RDP 0.0285).
func TestAccountantColumnsRecordHowTheyWereComputed(t *testing.T) {
	cols := func(outs []stages.Output) map[string]any {
		m := map[string]any{}
		for _, o := range outs {
			m[o.Name] = o.Value
		}
		return m
	}
	// pld_memory_mib: 1024 (6.7M points at 160 bytes per point, below the
	// old fixed cap of 2^23 points) keeps this 9.9M-point grid coarsened to
	// 1.6e-5, as that cap did (by default it would run at 1e-6 in ~1.3 GB).
	outs, err := runAccountant(accountantParams{Accountant: "pld", NoiseMultiplier: 1.1, SamplingRate: 256.0 / 60000, Steps: 14063, Delta: 1e-5, PLDInterval: 1e-6, PLDMemory: 1024 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if c := cols(outs); c["pld_interval_used"] != 1.6e-5 || math.IsInf(c["epsilon_pld"].(float64), 0) {
		t.Errorf("pld: %v", c)
	}
	p := accountantParams{Accountant: "best", NoiseMultiplier: 18.89, SamplingRate: 0.000667, Steps: 32217, Delta: 6.6e-8, PLDInterval: 1e-4}
	outs, err = runAccountant(p)
	if err != nil {
		t.Fatal(err)
	}
	c := cols(outs)
	if c["best_accountant"] != "rdp" || math.Abs(c["epsilon_best"].(float64)-0.0285) > 5e-4 || c["best_pld_interval_used"] != 1e-4 {
		t.Errorf("best: %v", c)
	}
	if got, want := len(outs), len(accountantColumns(p)); got != want {
		t.Errorf("best: %d outputs for %d columns", got, want)
	}
}
