package rero

import (
	"testing"

	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// The rero nodes key on this package's code whichever game builds them,
// so the bounds game and the reconstruction game build one node; a
// comparator is a node of its own, in the same slot family.
func TestCalcsKeyOnThisPackage(t *testing.T) {
	exp := &spec.Experiment{Seed: 1, DPSGD: &spec.DPSGD{NoiseMultiplier: 1, SamplingRate: 1, Steps: 10}}
	cs, err := Calcs(exp, &spec.ReroBound{PriorSize: 10, Method: "exact", Tolerance: 1e-3, Compare: []string{"rdp"}}, "bound[0]")
	if err != nil {
		t.Fatal(err)
	}
	b := &stages.Build{Name: "x", Point: spec.Point{Index: 2, Exp: exp}, Env: stages.Env{Code: func(pkg string) string { return pkg + "@v" }}}
	if len(cs) != 2 || cs[0].Kind != "rero" || cs[1].Kind != "rero_comparator" {
		t.Fatalf("calcs %+v", cs)
	}
	for _, c := range cs {
		if n := c.Node(b, 0); n.Code != "stages/rero@v" {
			t.Errorf("%s: code %q, want this package's", c.Kind, n.Code)
		}
	}
	if s := cs[1].Node(b, 0).Slot; s != "x/rero_comparator/2/0/rdp" {
		t.Errorf("comparator slot %q", s)
	}
}
