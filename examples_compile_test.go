package dpaudit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
)

// updateGolden rewrites testdata/compile-golden from the code as it is:
//
//	go test -run TestExamplesCompileGolden -update-golden .
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/compile-golden from the current code")

// exampleLoad is one example spec, loaded (expanded, compiled and planned
// against an empty store) once for every test of this file: loading all
// of them takes a minute, most of it noise calibrations.
type exampleLoad struct {
	path string
	plan *Plan
	err  error
}

var (
	examplesOnce   sync.Once
	examplesLoaded []exampleLoad
)

func exampleSpecs(t *testing.T) []string {
	t.Helper()
	var files []string
	filepath.WalkDir("examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 2 {
		t.Fatalf("found %d examples", len(files))
	}
	return files
}

// loadExamples loads every example spec once per test binary. An example
// whose data set is not fetched comes back with datasets.ErrNotFetched.
func loadExamples(t *testing.T) []exampleLoad {
	t.Helper()
	files := exampleSpecs(t)
	examplesOnce.Do(func() {
		store, err := os.MkdirTemp("", "dpaudit-examples-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(store)
		for _, f := range files {
			p, err := Load(f, Options{Store: filepath.Join(store, "s")})
			examplesLoaded = append(examplesLoaded, exampleLoad{path: f, plan: p, err: err})
		}
	})
	return examplesLoaded
}

// skipUnfetched reports (and logs) an example whose data set is not here.
func skipUnfetched(t *testing.T, e exampleLoad) bool {
	if errors.Is(e.err, datasets.ErrNotFetched) && os.Getenv("DPAUDIT_REQUIRE_DATA") == "" {
		t.Logf("%s: skipped, its data set is not fetched (CI sets DPAUDIT_REQUIRE_DATA=1): %v", e.path, e.err)
		return true
	}
	return false
}

// Every example validates with the real stages (implemented kinds and
// functions), not just against the JSON Schema.
func TestExamplesValidate(t *testing.T) {
	for _, e := range loadExamples(t) {
		if skipUnfetched(t, e) {
			continue
		}
		if e.err != nil {
			t.Errorf("%s: %v", e.path, e.err)
		}
	}
}

// goldenNode is what makes a node's key besides the code fingerprint —
// kind, version, canonical parameters and the inputs (as positions in the
// graph's order) — and what plan shows of it (label, slot).
type goldenNode struct {
	Kind           string          `json:"kind"`
	Version        int             `json:"version"`
	Params         json.RawMessage `json:"params"`
	Inputs         []int           `json:"inputs,omitempty"`
	SameCodeInputs bool            `json:"same_code_inputs,omitempty"`
	Label          string          `json:"label"`
	Slot           string          `json:"slot"`
}

// goldenGraph is a compiled example: every node in graph order, which of
// them are the summary, the published trial shards and the figures, and
// the columns the tables will hold.
type goldenGraph struct {
	Nodes          []goldenNode     `json:"nodes"`
	Summary        int              `json:"summary"`
	Trials         map[string][]int `json:"trials,omitempty"`
	Figures        []int            `json:"figures,omitempty"`
	SummaryColumns []string         `json:"summary_columns"`
	TrialColumns   []string         `json:"trial_columns,omitempty"`
}

func goldenOf(p *Plan) goldenGraph {
	c := p.Compiled
	index := map[*pipeline.Node]int{}
	var g goldenGraph
	for i, n := range c.Graph.Nodes() {
		index[n] = i
		gn := goldenNode{Kind: n.Kind, Version: n.Version, Params: goldenParams(n), SameCodeInputs: n.SameCodeInputs, Label: n.Label, Slot: n.Slot}
		for _, in := range n.Inputs {
			gn.Inputs = append(gn.Inputs, index[in])
		}
		g.Nodes = append(g.Nodes, gn)
	}
	g.Summary = index[c.Summary]
	for id, shards := range c.Trials {
		if g.Trials == nil {
			g.Trials = map[string][]int{}
		}
		for _, n := range shards {
			g.Trials[id] = append(g.Trials[id], index[n])
		}
	}
	for _, n := range c.Figures {
		g.Figures = append(g.Figures, index[n])
	}
	g.SummaryColumns, g.TrialColumns = c.Columns.Summary, c.Columns.Trials
	return g
}

// goldenParams is a node's canonical parameters as they enter its key,
// except that an accountant's PLD memory cap, when it is this machine's
// default (a quarter of its RAM), is written as that phrase: the golden
// holds on any machine.
func goldenParams(n *pipeline.Node) json.RawMessage {
	if n.Kind != "accountant" {
		return n.ParamsJSON()
	}
	var p map[string]any
	if err := json.Unmarshal(n.ParamsJSON(), &p); err != nil {
		panic(err)
	}
	if m, ok := p["pld_memory"].(float64); ok && int64(m) == privacy.DefaultPLDMemory() {
		p["pld_memory"] = "a quarter of this machine's RAM"
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

func goldenPath(example string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(example, "examples"+string(filepath.Separator)), ".yaml")
	return filepath.Join("testdata", "compile-golden", strings.ReplaceAll(name, string(filepath.Separator), "__")+".txt.gz")
}

// goldenText is a compiled example as text: the graph's other fields on
// the first line, then one line per node, so that a difference names the
// node.
func goldenText(g goldenGraph) ([]byte, error) {
	nodes := g.Nodes
	g.Nodes = nil
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(g); err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := enc.Encode(n); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func readGolden(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func writeGolden(path string, text []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(text)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Every example compiles to the graph recorded in testdata/compile-golden
// (gzipped text, one line per node): the same node kinds, versions,
// canonical parameters, inputs, labels and slots in the same order, and
// the same published shards, figures and columns. A restructuring of the
// stages that keeps this golden keeps every node key (up to the code
// fingerprint) and so every cached result.
func TestExamplesCompileGolden(t *testing.T) {
	for _, e := range loadExamples(t) {
		if skipUnfetched(t, e) || e.err != nil {
			continue
		}
		got, err := goldenText(goldenOf(e.plan))
		if err != nil {
			t.Fatal(err)
		}
		path := goldenPath(e.path)
		if *updateGolden {
			if err := writeGolden(path, got); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := readGolden(path)
		if err != nil {
			t.Errorf("%s: %v (record it with -update-golden)", e.path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s compiles to another graph than %s:\n%s", e.path, path, firstDiff(want, got))
		}
	}
}

// firstDiff shows the first differing line of two texts, around the
// first byte where they part.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			at := 0
			for at < min(len(w), len(g)) && w[at] == g[at] {
				at++
			}
			return "line " + strconv.Itoa(i+1) + ", byte " + strconv.Itoa(at+1) + ":\n  want …" + around(w, at) + "…\n  got  …" + around(g, at) + "…"
		}
	}
	return "(equal lines, different bytes)"
}

func around(s string, at int) string {
	return s[max(0, at-120):min(len(s), at+200)]
}

// Every node kind an example compiles to is accepted by --force (run and
// plan share the check), and forcing it replans those nodes and their
// dependents: a kind the stages produce but the list lacks would be
// refused as "unknown node kind".
func TestExampleKindsAreForceable(t *testing.T) {
	seen := map[string]string{}
	for _, e := range loadExamples(t) {
		if e.err != nil {
			continue
		}
		for _, n := range e.plan.Compiled.Graph.Nodes() {
			if _, ok := seen[n.Kind]; !ok {
				seen[n.Kind] = e.path
			}
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d node kinds in the examples", len(seen))
	}
	for kind, example := range seen {
		if err := checkForce([]string{kind}); err != nil {
			t.Errorf("%s (in %s): %v", kind, example, err)
		}
	}
	if err := checkForce([]string{"no_such_kind"}); err == nil || !IsInputError(err) {
		t.Errorf("an unknown kind is accepted: %v", err)
	}
}
