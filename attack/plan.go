package attack

import (
	"fmt"
	"slices"

	"github.com/dpaudit/dpaudit/rng"
)

// A canary plan is a one-run audit (Steinke, Nasr & Jagielski 2023) for
// training that runs somewhere else: dpaudit crafts m canaries and
// draws each one's inclusion bit, the user trains with the included ones
// and scores all m, and the scores come back to be joined by canary id
// (audit.JoinPlan). The bits are drawn here, before any training, so the
// auditor's guesses cannot depend on them.

// PlanKindGradient is a plan of Dirac gradient canaries (white box).
const PlanKindGradient = KindGradientCanary

// PlanConfig says what a plan holds.
type PlanConfig struct {
	// Crafter makes input canaries: RandomRecord, MislabeledRecord or
	// NoiseInput (InputCanaries). Nil with Parameters > 0 makes Dirac
	// gradient canaries instead.
	Crafter Crafter
	// Input is what the crafter may use (the data set, the pool, the
	// input shape and classes); only InShape and Classes for NoiseInput.
	Input CraftInput
	// Parameters is the model's parameter count for gradient canaries.
	Parameters int
	// Count is m, the number of canaries.
	Count int
	// Seed names the canaries' streams and the inclusion bits'.
	Seed uint64
}

// CanaryPlan is m canaries with their inclusion bits.
type CanaryPlan struct {
	// Kind is the crafter's kind, or PlanKindGradient.
	Kind string
	Seed uint64
	// Member[j] says whether canary j is to be trained on: an
	// independent fair coin per canary, from rng.New(Seed,
	// "attack/plan", "inclusion").
	Member []bool
	// Records are the input canaries (nil for gradient canaries), with
	// Index[j] the record's index in its source (-1 for a crafted input)
	// and Source that source ("pool", "train" or "").
	Records []*Record
	Index   []int
	Source  string
	Shape   []int
	Classes int
	// Coordinates[j] is the parameter gradient canary j sits on: the
	// canary adds C (the clip norm) to that coordinate of the clipped
	// gradient sum at every step its run samples it.
	Coordinates []int
	Parameters  int
	// Notes describe the crafting.
	Notes []string
}

// MakePlan crafts a plan: input canaries through InputCanaries (the
// same crafters as dpaudit's own one-run audits with input canaries), or
// m distinct parameters drawn uniformly for gradient canaries (dpaudit
// cannot see the user's model to put them where its gradients are
// quietest, as its own white-box audits do), and one inclusion bit per
// canary.
func MakePlan(c PlanConfig) (*CanaryPlan, error) {
	if c.Count < 1 {
		return nil, invalidf("canary plan: %d canaries; want at least 1", c.Count)
	}
	p := &CanaryPlan{Seed: c.Seed}
	switch {
	case c.Crafter == nil && c.Parameters > 0:
		if c.Count > c.Parameters {
			return nil, invalidf("canary plan: %d gradient canaries need as many parameters, the model has %d", c.Count, c.Parameters)
		}
		p.Kind, p.Parameters = PlanKindGradient, c.Parameters
		p.Coordinates = distinctDraw(rng.New(c.Seed, "attack/plan", "coordinates"), c.Parameters, c.Count)
		p.Notes = append(p.Notes, fmt.Sprintf("%d Dirac gradient canaries on distinct parameters drawn uniformly from %d", c.Count, c.Parameters))
	case c.Crafter == nil:
		return nil, invalidf("canary plan: no crafter and no parameter count")
	default:
		in := c.Input
		in.Seed = rng.Seed(c.Seed, "attack/plan", "canaries")
		set, err := InputCanaries(c.Crafter, in, c.Count)
		if err != nil {
			return nil, err
		}
		src, _ := canarySource(c.Crafter)
		p.Kind, p.Records, p.Index, p.Source = c.Crafter.Kind(), set.Records, set.Index, src
		p.Shape, p.Classes, p.Notes = slices.Clone(in.InShape), in.Classes, set.Notes
	}
	r := rng.New(c.Seed, "attack/plan", "inclusion")
	p.Member = make([]bool, c.Count)
	for j := range p.Member {
		p.Member[j] = r.IntN(2) == 1
	}
	return p, nil
}

// distinctDraw draws k distinct integers of [0, n) uniformly (Floyd's
// algorithm: no array of size n), in the order drawn.
func distinctDraw(r interface{ IntN(int) int }, n, k int) []int {
	taken := make(map[int]bool, k)
	out := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := r.IntN(j + 1)
		if taken[t] {
			t = j
		}
		taken[t] = true
		out = append(out, t)
	}
	return out
}
