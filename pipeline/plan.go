package pipeline

import (
	"bytes"
	"slices"
)

// Status says whether a node will be reused or computed.
type Status string

const (
	Cached Status = "cached"
	Run    Status = "run"
)

// Reasons a node must run.
const (
	ReasonNew            = "new"
	ReasonParams         = "parameters changed"
	ReasonInput          = "input changed"
	ReasonVersion        = "stage version changed"
	ReasonForced         = "forced"
	ReasonForcedUpstream = "input forced"
)

// Step is one node of a plan.
type Step struct {
	Node   *Node
	Status Status
	Reason string // empty when cached
}

// Plan decides, for every node in topological order, whether it is cached
// or must run, and why. force selects nodes to recompute even if cached;
// their dependents are recomputed too.
func Plan(g *Graph, s *Store, force func(*Node) bool) []Step {
	steps := make([]Step, len(g.nodes))
	forced := map[*Node]bool{}
	for i, n := range g.nodes {
		st := Step{Node: n, Status: Cached}
		upstream := false
		for _, in := range n.Inputs {
			upstream = upstream || forced[in]
		}
		switch {
		case force != nil && force(n):
			st.Status, st.Reason = Run, ReasonForced
			forced[n] = true
		case upstream:
			st.Status, st.Reason = Run, ReasonForcedUpstream
			forced[n] = true
		case !s.Has(n.Key()):
			st.Status, st.Reason = Run, whyNew(n, s)
		}
		steps[i] = st
	}
	return steps
}

// whyNew compares a node with what its slot computed last time.
func whyNew(n *Node, s *Store) string {
	r := s.readSlot(n.slot())
	if r == nil || r.Kind != n.Kind {
		return ReasonNew
	}
	if r.Version != n.Version {
		return ReasonVersion
	}
	if !bytes.Equal(r.Params, n.ParamsJSON()) {
		return ReasonParams
	}
	var inputs []string
	for _, in := range n.Inputs {
		inputs = append(inputs, in.Key())
	}
	if !slices.Equal(inputs, r.Inputs) {
		return ReasonInput
	}
	return ReasonNew // same work, but no longer in the store
}

// Counts returns how many steps run and how many are cached.
func Counts(steps []Step) (run, cached int) {
	for _, st := range steps {
		if st.Status == Run {
			run++
		} else {
			cached++
		}
	}
	return
}
