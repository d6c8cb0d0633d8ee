// Package pipeline is dpaudit's generic DAG engine. It knows nothing of
// privacy: a Node is a unit of work with a kind, canonical parameters and
// input nodes; its key is the hash of those, so equal keys are equal work.
// Outputs live in a content-addressed Store; a Scheduler runs what is not
// cached, in parallel, and reports progress. Parquet table I/O is here too.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sync"
)

// Node is one unit of work.
type Node struct {
	Kind    string // e.g. "accountant", "summary"
	Version int    // bump when the stage's code changes what it computes
	Params  any    // JSON-marshalable; marshalled canonically for the key
	Inputs  []*Node
	// Label is a short human description for plans and progress.
	Label string
	// Slot is a stable identity of "this node of this experiment" across
	// runs (e.g. "quickstart/accountant/3"), used to explain why a node must
	// run (parameters changed vs new). Defaults to Kind + "/" + Label.
	Slot string
	// Run does the work, writing output files into w.Dir.
	Run func(ctx context.Context, w *Work) error
	// Outputs names the files Run must write (relative, with '/'). A run
	// that leaves one out fails, and a stored copy whose meta does not list
	// one is corrupt. Nil: the node declares none (every file it wrote is
	// still listed, sized and digested in its meta).
	Outputs []string
	// SameCodeInputs makes the node refuse inputs computed by different
	// code fingerprints (e.g. an estimate over trial shards), which only
	// --reuse-across-versions can bring together.
	SameCodeInputs bool
	// Code is the fingerprint of the code this node runs, when the caller
	// knows it more narrowly than the process-wide one (e.g. only the
	// packages the node's stage imports, so that editing an unrelated
	// package keeps the key); empty: CodeFingerprint(). It is part of the
	// key and recorded in the node's meta and slot.
	Code string

	key    string
	params json.RawMessage
	alias  string // store key of an equal node from another code version (reuse across versions)
}

// The code fingerprint identifies the code that computes nodes; it is part
// of every key (see SetCodeFingerprint). It may be given as a function,
// called the first time a key needs it, so that commands that build no
// graph (version, account, …) never hash the sources.
var fingerprint struct {
	sync.Mutex
	value string
	fn    func() string
}

// SetCodeFingerprint sets the fingerprint of the code that computes nodes
// (a hash of the sources of the stages and the packages they use), made
// part of every node key and memo address so that a change in the
// numerics never serves results of the old code. Call it once, before
// building graphs.
func SetCodeFingerprint(fp string) {
	fingerprint.Lock()
	defer fingerprint.Unlock()
	fingerprint.value, fingerprint.fn = fp, nil
}

// SetCodeFingerprintFunc is SetCodeFingerprint with the fingerprint
// computed by fn on first use.
func SetCodeFingerprintFunc(fn func() string) {
	fingerprint.Lock()
	defer fingerprint.Unlock()
	fingerprint.value, fingerprint.fn = "", fn
}

// CodeFingerprint returns the fingerprint set by SetCodeFingerprint (or
// computed by the function given to SetCodeFingerprintFunc).
func CodeFingerprint() string {
	fingerprint.Lock()
	defer fingerprint.Unlock()
	if fingerprint.fn != nil {
		fingerprint.value, fingerprint.fn = fingerprint.fn(), nil
	}
	return fingerprint.value
}

// code is the fingerprint of the code that computes n.
func (n *Node) code() string {
	if n.Code != "" {
		return n.Code
	}
	return CodeFingerprint()
}

// StoreKey is where the node's outputs live: its key, or the key of an
// equal node computed by another code version when the plan reused it
// (--reuse-across-versions).
func (n *Node) StoreKey() string {
	if n.alias != "" {
		return n.alias
	}
	return n.Key()
}

// Work is what a running node gets.
type Work struct {
	Node   *Node
	Dir    string   // write outputs here; committed atomically on success
	Inputs []string // output directories of the input nodes, in order
	warn   func(string)
	store  *Store
}

// UpstreamCPUSeconds is the CPU time (Meta.CPUSeconds) the node's inputs
// and everything they depend on took when they were computed, each node
// counted once — the compute behind this node's inputs, whenever it ran.
// NaN if any of them has no measurement. A measurement: it must never go
// into a key, and outputs that carry it are not reproducible bytes.
func (w *Work) UpstreamCPUSeconds() float64 {
	if w.store == nil {
		return math.NaN()
	}
	seen := map[string]bool{}
	total := 0.0
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, in := range ns {
			k := in.StoreKey()
			if seen[k] {
				continue
			}
			seen[k] = true
			m, err := w.store.ReadMeta(k)
			if err != nil || m.CPUSeconds == nil {
				total = math.NaN()
			} else {
				total += *m.CPUSeconds
			}
			walk(in.Inputs)
		}
	}
	walk(w.Node.Inputs)
	return total
}

// Warnf reports something the user should know about a node that still
// succeeds (e.g. "most batches are empty"); the reporter prints it.
func (w *Work) Warnf(format string, args ...any) {
	if w.warn != nil {
		w.warn(fmt.Sprintf(format, args...))
	}
}

// Input returns the output directory of input i.
func (w *Work) Input(i int) string { return w.Inputs[i] }

// Key is the content key: hash(kind, version, code fingerprint, canonical
// params, input keys).
func (n *Node) Key() string {
	if n.key != "" {
		return n.key
	}
	p := n.ParamsJSON()
	h := sha256.New()
	fmt.Fprintf(h, "dpaudit-node/v2\x00%s\x00%d\x00%s\x00", n.Kind, n.Version, n.code())
	h.Write(p)
	for _, in := range n.Inputs {
		h.Write([]byte{0})
		h.Write([]byte(in.Key()))
	}
	n.key = hex.EncodeToString(h.Sum(nil))
	return n.key
}

// ParamsJSON is the canonical JSON of the parameters (object keys sorted,
// as encoding/json does for maps; struct fields in declaration order).
func (n *Node) ParamsJSON() json.RawMessage {
	if n.params != nil {
		return n.params
	}
	b, err := canonicalJSON(n.Params)
	if err != nil {
		panic(fmt.Sprintf("pipeline: node %s params are not JSON: %v", n.Kind, err))
	}
	n.params = b
	return b
}

// canonicalJSON marshals v, then re-encodes it through a generic value so
// that struct field order and map order cannot change the bytes.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, err
	}
	return json.Marshal(g)
}

func (n *Node) slot() string {
	if n.Slot != "" {
		return n.Slot
	}
	return n.Kind + "/" + n.Label
}

// Graph is a set of nodes, deduplicated by key. Add inputs before the
// nodes that use them; insertion order is then a topological order.
type Graph struct {
	nodes []*Node
	byKey map[string]*Node
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{byKey: map[string]*Node{}} }

// Add inserts n, or returns the node already present with the same key
// (two sweep points that need the same work share one node).
func (g *Graph) Add(n *Node) *Node {
	for _, in := range n.Inputs {
		if g.byKey[in.Key()] == nil {
			panic(fmt.Sprintf("pipeline: input %s of %s was not added first", in.Kind, n.Kind))
		}
	}
	k := n.Key()
	if old, ok := g.byKey[k]; ok {
		return old
	}
	g.byKey[k] = n
	g.nodes = append(g.nodes, n)
	return n
}

// Nodes returns the nodes in topological order.
func (g *Graph) Nodes() []*Node { return g.nodes }

// Len is the number of distinct nodes.
func (g *Graph) Len() int { return len(g.nodes) }
