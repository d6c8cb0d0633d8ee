package stages

import (
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

// testGame adds one row node per point, and a node of a kind it does not
// declare when the point's seed is 13.
var testGame = &Game{
	Name:       "test",
	AppliesTo:  func(exp *spec.Experiment) bool { return exp.DPSGD != nil },
	Compile:    compileTest,
	Kinds:      []string{"calc"},
	Implements: map[string][]string{"bound": {"calc"}},
}

func compileTest(b *Build) error {
	kind := "calc"
	if b.Point.Exp.Seed == 13 {
		kind = "undeclared"
	}
	b.Row(&pipeline.Node{Kind: kind, Params: b.Point.ID}, []string{"x"})
	return nil
}

func point(seed int64) spec.Point {
	return spec.Point{ID: "p", Exp: &spec.Experiment{Seed: seed, DPSGD: &spec.DPSGD{}}}
}

// A game's nodes key on its package's code (Env.Code of Game.Package),
// the summary on the kit's; a node of a kind the game does not list is an
// error, so Kinds cannot drift from the code.
func TestCompileGames(t *testing.T) {
	env := Env{Code: func(pkg string) string { return pkg + "@v" }}
	c, err := Compile([]*Game{testGame}, "t", []spec.Point{point(1)}, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Graph.Nodes()[0]
	if n.Kind != "calc" || n.Code != "stages@v" || c.Summary.Code != "stages@v" || testGame.Package() != "stages" {
		t.Errorf("node %s code %q, summary code %q, package %q", n.Kind, n.Code, c.Summary.Code, testGame.Package())
	}
	if !slices.Contains(c.Columns.Summary, "x") {
		t.Errorf("columns %v", c.Columns.Summary)
	}
	_, err = Compile([]*Game{testGame}, "t", []spec.Point{point(13)}, nil, env)
	if err == nil || !strings.Contains(err.Error(), `kind "undeclared", which its Kinds do not list`) {
		t.Errorf("an undeclared kind: %v", err)
	}
	if k := Kinds([]*Game{testGame}); !slices.Equal(k, []string{"calc", "summary"}) {
		t.Errorf("Kinds = %v", k)
	}
	impl := Implements([]*Game{testGame})
	if !impl("bound", "calc") || !impl("dataset", "mnist") || impl("bound", "other") {
		t.Error("Implements: the games' and the kit's kinds, and nothing else")
	}
}

func TestPackageOf(t *testing.T) {
	if p := PackageOf(Compile); p != "stages" {
		t.Errorf("PackageOf(Compile) = %q", p)
	}
	if p := PackageOf(strings.Cut); p != "strings" {
		t.Errorf("PackageOf(strings.Cut) = %q", p)
	}
}
