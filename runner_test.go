package dpaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

func writeSpec(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runSpec(t *testing.T, path string, o Options) (*Plan, *Result) {
	t.Helper()
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// A spec with a sweep and a derived value runs end to end; the summary has
// one row per point with typed parameter and accountant columns, shared
// nodes are shared, and a second run computes nothing and writes the same
// bytes.
func TestRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "e2e.yaml", `name: e2e
vars:
  target: 2
  note: a
dpsgd:
  noise_multiplier: "=calibrate(target, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)"
  sampling_rate: 0.01
  steps: 200
bound:
  - kind: accountant
sweep:
  grid:
    target: [1, 2]
    note: [a, b]
`)
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	p, res := runSpec(t, path, o)
	if len(p.Points) != 4 {
		t.Fatalf("points = %d", len(p.Points))
	}
	// Points 0/1 and 2/3 differ only in a note: 2 distinct DP-SGD configs ×
	// 3 accountants + summary.
	if n := p.Compiled.Graph.Len(); n != 7 {
		t.Fatalf("graph has %d nodes, want 7 (shared accountant nodes)", n)
	}
	tb, err := pipeline.ReadParquet(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		typ  pipeline.ColType
	}{
		{"point_index", pipeline.Int64}, {"point_id", pipeline.String},
		{"target", pipeline.Int64}, {"note", pipeline.String}, {"noise_multiplier", pipeline.Float64},
		{"epsilon_rdp", pipeline.Float64}, {"rdp_order", pipeline.Float64},
		{"epsilon_pld", pipeline.Float64}, {"pld_interval_used", pipeline.Float64}, {"epsilon_gdp", pipeline.Float64},
	}
	if len(tb.Columns) != len(want) {
		var got []string
		for _, c := range tb.Columns {
			got = append(got, c.Name)
		}
		t.Fatalf("columns %v", got)
	}
	for i, w := range want {
		if tb.Columns[i].Name != w.name || tb.Columns[i].Type != w.typ {
			t.Fatalf("column %d = %s %s, want %s %s", i, tb.Columns[i].Name, tb.Columns[i].Type, w.name, w.typ)
		}
	}
	if tb.Rows() != 4 {
		t.Fatalf("rows = %d", tb.Rows())
	}
	for i := 0; i < 4; i++ {
		target := float64(tb.Col("target").Values[i].(int64))
		pld := tb.Col("epsilon_pld").Float(i)
		// Calibrated with PLD, so the PLD ε hits the target (calibration
		// tolerance 1e-6 relative on σ).
		if math.Abs(pld-target) > 1e-3*target {
			t.Errorf("row %d: epsilon_pld %v, target %v", i, pld, target)
		}
		if rdp := tb.Col("epsilon_rdp").Float(i); !(rdp > pld) {
			t.Errorf("row %d: RDP ε %v not above PLD ε %v", i, rdp, pld)
		}
	}
	first, _ := os.ReadFile(res.Summary)

	var m Manifest
	mb, _ := os.ReadFile(res.Manifest)
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	if m.Nodes.Run != 7 || m.Nodes.Cached != 0 || len(m.Points) != 4 || m.Spec.SHA256 == "" || m.Dpaudit.GoVersion == "" {
		t.Fatalf("manifest: %+v", m)
	}

	p2, res2 := runSpec(t, path, o)
	if run, _ := pipeline.Counts(p2.Steps); run != 0 || res2.Run != 0 {
		t.Fatalf("second run computes %d nodes", run)
	}
	second, _ := os.ReadFile(res2.Summary)
	if !bytes.Equal(first, second) {
		t.Fatal("a cached re-run writes different summary bytes")
	}
	// --force recomputes the kind and what depends on it.
	p3, _ := runSpec(t, path, Options{Store: o.Store, Results: o.Results, Force: []string{"accountant"}})
	if run, _ := pipeline.Counts(p3.Steps); run != 7 {
		t.Fatalf("--force accountant runs %d nodes, want 7", run)
	}
}

// A spec with errors writes nothing: no store, no results.
func TestBadSpecWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "bad.yaml", "name: bad\ndpsgd:\n  noise_multiplier: -1\n  sampling_rate: 0.01\n  steps: 10\nbound: [{kind: accountant}]\n")
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, err := Load(path, o)
	if err == nil || !IsInputError(err) {
		t.Fatalf("want an input error, got %v", err)
	}
	if !strings.Contains(err.Error(), "bad.yaml:3:21: dpsgd.noise_multiplier: must be > 0, got -1") {
		t.Fatalf("error %q", err)
	}
	for _, d := range []string{o.Store, o.Results} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("%s was created", d)
		}
	}
}

// Validation and planning of a spec with calibrations write nothing either.
func TestPlanWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "q.yaml", "name: q\ndpsgd:\n  noise_multiplier: \"=calibrate(2, 1e-5, 0.01, 100)\"\n  sampling_rate: 0.01\n  steps: 100\nbound: [{kind: accountant, accountants: [rdp]}]\n")
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	if _, err := Load(path, o); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("planning wrote into %s: %d entries", dir, len(entries))
	}
}

func TestUnwritableResultsDir(t *testing.T) {
	// A path under a regular file cannot be created, even by root.
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	path := writeSpec(t, dir, "q.yaml", "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 10}\nbound: [{kind: accountant, accountants: [gdp]}]\n")
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(blocker, "results")}
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Execute(context.Background(), nil)
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("want a not-writable input error, got %v", err)
	}
	if _, err := os.Stat(o.Store); !os.IsNotExist(err) {
		t.Fatal("the store was created although the run could not start")
	}
}
