// Package stagestest compiles small specs for the games' own tests, as
// net/http/httptest serves handlers for a handler's tests: the spec
// language (parsing, defaults, validation, expansion), then stages.Compile
// over only the games under test. It imports no game, so a game's tests
// use it without importing another game.
package stagestest

import (
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Compile compiles the spec body (YAML) with games, failing the test on
// any error.
func Compile(t testing.TB, body string, games ...*stages.Game) *stages.Compiled {
	t.Helper()
	c, err := CompileErr(t, body, games...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CompileErr compiles the spec body with games and returns what fails: a
// spec error, or the compile error (a *stages.PathError for bad input).
func CompileErr(t testing.TB, body string, games ...*stages.Game) (*stages.Compiled, error) {
	t.Helper()
	s, points, cols, err := expand(body)
	if err != nil {
		return nil, err
	}
	return stages.Compile(games, s.Name, points, cols, stages.Env{DataDir: datasets.DefaultDataDir()})
}

// Points are the points of the spec body.
func Points(t testing.TB, body string) []spec.Point {
	t.Helper()
	_, points, _, err := expand(body)
	if err != nil {
		t.Fatal(err)
	}
	return points
}

func expand(body string) (*spec.Spec, []spec.Point, []spec.Column, error) {
	// Every block validates (Implemented nil); only the games under test
	// compile theirs.
	s, err := spec.Parse("test.yaml", []byte(body), spec.Options{Functions: stages.Functions(stages.NewMemo(nil))})
	if err != nil {
		return nil, nil, nil, err
	}
	points, cols, err := s.Expand()
	return s, points, cols, err
}

// Kinds counts the compiled graph's nodes by kind.
func Kinds(c *stages.Compiled) map[string]int {
	out := map[string]int{}
	for _, n := range c.Graph.Nodes() {
		out[n.Kind]++
	}
	return out
}

// Nodes are the compiled graph's nodes of a kind, in graph order.
func Nodes(c *stages.Compiled, kind string) []*pipeline.Node {
	var out []*pipeline.Node
	for _, n := range c.Graph.Nodes() {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// Summary is a summary table of len(cols[c]) rows with point_index and
// point_id columns and the given ones (float64, int64, string or bool
// values, nil for null), for testing a game's violation reader.
func Summary(t testing.TB, cols map[string][]any) *pipeline.Table {
	t.Helper()
	n := -1
	for _, v := range cols {
		n = len(v)
	}
	idx, ids := make([]any, n), make([]any, n)
	for i := range n {
		idx[i], ids[i] = int64(i), "p"+string(rune('a'+i))
	}
	tb := &pipeline.Table{}
	tb.Add("point_index", pipeline.Int64, idx)
	tb.Add("point_id", pipeline.String, ids)
	names := make([]string, 0, len(cols))
	for k := range cols {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		vals := cols[name]
		typ := pipeline.Float64
		for _, v := range vals {
			switch v.(type) {
			case int64:
				typ = pipeline.Int64
			case string:
				typ = pipeline.String
			case bool:
				typ = pipeline.Bool
			}
		}
		if err := tb.Add(name, typ, vals); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}
