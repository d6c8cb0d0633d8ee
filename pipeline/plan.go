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
	ReasonCode           = "code changed"
	ReasonForced         = "forced"
	ReasonForcedUpstream = "input forced"
	ReasonCorrupt        = "failed verification"
)

// Step is one node of a plan.
type Step struct {
	Node   *Node
	Status Status
	Reason string // empty when cached
	// Note says more about a cached node (e.g. reused across versions) or
	// why a node failed verification.
	Note string
}

// replaces reports whether the step's output replaces a stored copy.
func (st Step) replaces() bool {
	return st.Reason == ReasonForced || st.Reason == ReasonForcedUpstream || st.Reason == ReasonCorrupt
}

// PlanOptions tune a plan.
type PlanOptions struct {
	// Force selects nodes to recompute even if cached; their dependents
	// are recomputed too.
	Force func(*Node) bool
	// ReuseAcrossVersions reuses a stored node computed by another code
	// fingerprint when everything else (kind, version, parameters, inputs)
	// is equal: for users who know a code change is numerically neutral.
	ReuseAcrossVersions bool
	// ExplainCode, if set, says what differs between the code fingerprint
	// a node's slot was computed with last time (old) and the node's now
	// (e.g. which package changed); it becomes the note of a step planned
	// for "code changed".
	ExplainCode func(old, new string) string
}

// Plan decides, for every node in topological order, whether it is cached
// or must run, and why. force selects nodes to recompute even if cached;
// their dependents are recomputed too. Plan writes nothing.
func Plan(g *Graph, s *Store, force func(*Node) bool) []Step {
	return PlanWith(g, s, PlanOptions{Force: force})
}

// PlanWith is Plan with options.
func PlanWith(g *Graph, s *Store, o PlanOptions) []Step {
	steps := make([]Step, len(g.nodes))
	forced := map[*Node]bool{}
	for i, n := range g.nodes {
		n.alias = ""
		st := Step{Node: n, Status: Cached}
		upstream := false
		for _, in := range n.Inputs {
			upstream = upstream || forced[in]
		}
		switch {
		case o.Force != nil && o.Force(n):
			st.Status, st.Reason = Run, ReasonForced
			forced[n] = true
		case upstream:
			st.Status, st.Reason = Run, ReasonForcedUpstream
			forced[n] = true
		default:
			_, err := s.checkMeta(n.Key(), n)
			switch {
			case err == nil:
			case !IsMissing(err):
				st.Status, st.Reason, st.Note = Run, ReasonCorrupt, err.Error()
			case o.ReuseAcrossVersions && reuseOld(n, s):
				st.Note = "reused across versions: " + short(n.alias)
			default:
				st.Status, st.Reason = Run, whyNew(n, s)
				if st.Reason == ReasonCode && o.ExplainCode != nil {
					st.Note = o.ExplainCode(s.readSlot(n.slot()).Code, n.code())
				}
			}
		}
		steps[i] = st
	}
	return steps
}

// reuseOld points n at the node its slot computed last if only the code
// fingerprint differs.
func reuseOld(n *Node, s *Store) bool {
	r := s.readSlot(n.slot())
	if r == nil || r.Kind != n.Kind || r.Version != n.Version || r.Code == n.code() || !bytes.Equal(r.Params, n.ParamsJSON()) {
		return false
	}
	if !slices.Equal(storeKeys(n.Inputs), r.Inputs) {
		return false
	}
	if _, err := s.checkMeta(r.Key, n); err != nil {
		return false
	}
	n.alias = r.Key
	return true
}

func storeKeys(nodes []*Node) []string {
	var keys []string
	for _, in := range nodes {
		keys = append(keys, in.StoreKey())
	}
	return keys
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
	if r.Code != n.code() {
		return ReasonCode
	}
	if !slices.Equal(storeKeys(n.Inputs), r.Inputs) {
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

// VerifySteps checks in full (SHA-256) the cached nodes that need selects
// (e.g. those to publish, or all with --verify) plus every cached input of
// a node that runs. A node that fails is reported, moved to the quarantine,
// and turned into a Run step (its dependents that are cached keep their
// outputs, which were computed from good bytes). It returns the new steps.
func VerifySteps(steps []Step, s *Store, need func(*Node) bool) []Step {
	out := slices.Clone(steps)
	for changed := true; changed; {
		changed = false
		want := map[*Node]bool{}
		for _, st := range out {
			if need != nil && need(st.Node) {
				want[st.Node] = true
			}
			if st.Status == Run {
				for _, in := range st.Node.Inputs {
					want[in] = true
				}
			}
		}
		for i, st := range out {
			if st.Status != Cached || !want[st.Node] {
				continue
			}
			key := st.Node.StoreKey()
			if err := s.VerifyNode(st.Node, true); err != nil {
				if !IsMissing(err) {
					s.Quarantine(key, err)
				}
				st.Node.alias = ""
				out[i] = Step{Node: st.Node, Status: Run, Reason: ReasonCorrupt, Note: err.Error()}
				changed = true
			}
		}
	}
	return out
}
