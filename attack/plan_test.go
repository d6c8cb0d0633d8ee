package attack

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A plan is deterministic in its seed, its inclusion bits are fair coins
// independent of the canaries' kind, its input canaries are InputCanaries'
// and its gradient canaries sit on distinct parameters.
func TestMakePlan(t *testing.T) {
	in := staticInput()
	for _, cr := range []Crafter{MislabeledRecord{}, RandomRecord{}, NoiseInput{Low: 0, High: 1, Label: -1}} {
		p, err := MakePlan(PlanConfig{Crafter: cr, Input: in, Count: 80, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", cr.Kind(), err)
		}
		q, _ := MakePlan(PlanConfig{Crafter: cr, Input: in, Count: 80, Seed: 3})
		if p.Kind != cr.Kind() || len(p.Records) != 80 || len(p.Member) != 80 || !slices.Equal(p.Member, q.Member) || !slices.Equal(p.Records[5].X, q.Records[5].X) {
			t.Fatalf("%s: plan %+v not deterministic or incomplete", cr.Kind(), p)
		}
		r, _ := MakePlan(PlanConfig{Crafter: cr, Input: in, Count: 80, Seed: 4})
		if slices.Equal(p.Member, r.Member) {
			t.Errorf("%s: seeds 3 and 4 drew the same bits", cr.Kind())
		}
		if _, ok := cr.(NoiseInput); !ok && (p.Source != SourcePool || p.Index[0] < 0) {
			t.Errorf("%s: source %q index %d", cr.Kind(), p.Source, p.Index[0])
		}
	}
	// The bits do not depend on the crafter: the same seed draws them
	// for every kind of canary.
	a, _ := MakePlan(PlanConfig{Crafter: RandomRecord{}, Input: in, Count: 50, Seed: 9})
	b, _ := MakePlan(PlanConfig{Parameters: 1000, Count: 50, Seed: 9})
	if !slices.Equal(a.Member, b.Member) {
		t.Error("inclusion bits depend on the canary kind")
	}
	// Fair coins: 2000 bits, 1000 ± 4 sd.
	g, err := MakePlan(PlanConfig{Parameters: 1_000_000, Count: 2000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ones := 0
	for _, m := range g.Member {
		if m {
			ones++
		}
	}
	if ones < 1000-90 || ones > 1000+90 {
		t.Errorf("%d of 2000 bits are 1", ones)
	}
	seen := map[int]bool{}
	for _, c := range g.Coordinates {
		if c < 0 || c >= 1_000_000 || seen[c] {
			t.Fatalf("coordinate %d out of range or repeated", c)
		}
		seen[c] = true
	}
	// All parameters as canaries: a permutation.
	all, _ := MakePlan(PlanConfig{Parameters: 10, Count: 10, Seed: 1})
	if s := slices.Sorted(slices.Values(all.Coordinates)); !slices.Equal(s, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("10 of 10 parameters: %v", all.Coordinates)
	}
	for _, c := range []struct {
		cfg  PlanConfig
		want string
	}{
		{PlanConfig{Parameters: 10, Count: 11}, "11 gradient canaries need as many parameters"},
		{PlanConfig{Count: 0, Parameters: 10}, "0 canaries"},
		{PlanConfig{Count: 5}, "no crafter"},
		{PlanConfig{Crafter: RandomRecord{}, Input: in, Count: 101}, "101 canaries, but there are 100"},
		{PlanConfig{Crafter: GradientCanary{}, Input: in, Count: 5}, "does not make canary records"},
	} {
		_, err := MakePlan(c.cfg)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}
