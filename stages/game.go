package stages

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

// Game is one kind of work a spec point can ask for — a membership audit,
// a reconstruction game, training, the theoretical bounds — as one value,
// the way golang.org/x/tools/go/analysis makes an analyzer one value that
// a driver iterates over. Compile walks the registered games for every
// point; the CLI's --force and plan learn the node kinds from them, the
// runner the violations. A game lives in its own package under stages/
// and imports only this kit, never another game.
type Game struct {
	// Name names the game in messages ("membership", "reconstruction").
	Name string
	// AppliesTo reports whether a point asks for this game (its spec block
	// is present). Several games may apply to one point; they compile in
	// registration order.
	AppliesTo func(exp *spec.Experiment) bool
	// Compile adds the point's nodes through b: its work (b.Add), the
	// nodes whose values join the point's summary row (b.Row) and the
	// trial shards to publish (b.Publish). Bad input is a *PathError.
	// Compile must be a function declared in the game's package: that
	// package names the code the game's nodes run (see Package).
	Compile func(b *Build) error
	// Kinds lists every node kind Compile can add; adding another is an
	// error, so the list cannot drift from the code.
	Kinds []string
	// TrialColumns are the columns of a point's trials tables, for
	// checking the report's figures (nil: none a figure may name).
	TrialColumns func(pt spec.Point) []string
	// Violations reads the game's violations from a run's summary.
	Violations func(sum *pipeline.Table) ([]Violation, error)
	// Implements lists the spec blocks and component kinds the game
	// implements (block → kinds; "" for a block without kinds).
	Implements map[string][]string
	// MatrixNoise says the game trains or accounts cyclic sampling and
	// matrix-factorization noise (dpsgd.sampling cyclic, dpsgd.correlated);
	// Compile refuses a point with them for every other game.
	MatrixNoise bool
}

// modulePath is this module's import path; packages are named relative to
// it ("stages/membership").
const modulePath = "github.com/dpaudit/dpaudit/"

// Package is the package (relative to the module) that declares the
// game's Compile: its nodes' code fingerprint covers it and everything it
// imports.
func (g *Game) Package() string { return PackageOf(g.Compile) }

// PackageOf names the package (relative to the module) that declares fn,
// which must be a named function: a closure's symbol names the function
// it was inlined into, which may be in another package.
func PackageOf(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	name = strings.TrimPrefix(name, modulePath)
	dir, last := "", name
	if i := strings.LastIndex(name, "/"); i >= 0 {
		dir, last = name[:i+1], name[i+1:]
	}
	pkg, _, _ := strings.Cut(last, ".")
	return dir + pkg
}

// Build is what a game's Compile gets for one point: the point, the
// environment and the graph, much as an analyzer gets a Pass.
type Build struct {
	Name  string // the spec's name: node slots start with it
	Point spec.Point
	Env   Env

	game   *Game
	code   string
	graph  *pipeline.Graph
	rows   []pointStage
	trials map[string][]*pipeline.Node
	err    error // the first node of an undeclared kind
}

// Add adds n to the graph (or returns the equal node already there) with
// the game's code fingerprint, unless n names its own.
func (b *Build) Add(n *pipeline.Node) *pipeline.Node {
	b.check(n)
	return b.graph.Add(n)
}

// check gives n the game's code fingerprint and refuses an undeclared kind.
func (b *Build) check(n *pipeline.Node) {
	if n.Code == "" {
		n.Code = b.code
	}
	if !slices.Contains(b.game.Kinds, n.Kind) && b.err == nil {
		b.err = fmt.Errorf("game %s added a node of kind %q, which its Kinds do not list", b.game.Name, n.Kind)
	}
}

// Row adds n, whose values.json joins the point's summary row with the
// given columns (nil: it is an input of the row's nodes, already counted).
// The row's nodes enter the graph after every game of the point has
// compiled, in the order they were given.
func (b *Build) Row(n *pipeline.Node, columns []string) {
	b.check(n)
	b.rows = append(b.rows, pointStage{node: n, columns: columns})
}

// Publish names the trial shards published as trials/point=<key>/ (key is
// the point's id, or "<id>/<game>" for a second game of one point).
func (b *Build) Publish(key string, shards []*pipeline.Node) {
	b.trials[key] = shards
}

// compileGame runs one game's Compile for the point of b; a node of a
// kind the game does not declare is an error.
func compileGame(g *Game, b *Build) error {
	b.game, b.code = g, ""
	if b.Env.Code != nil {
		b.code = b.Env.Code(g.Package())
	}
	if err := g.Compile(b); err != nil {
		return err
	}
	return b.err
}

// Kinds lists the node kinds of the games, then the kit's summary, in
// first-seen order: what --force accepts.
func Kinds(games []*Game) []string {
	var out []string
	for _, g := range games {
		for _, k := range g.Kinds {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return append(out, summaryKind)
}

// Implements returns spec.Options.Implemented for the games: a spec block
// or component kind is implemented when the kit (data, models, sweeps,
// report) or one of the games implements it; anything else is refused
// with "not implemented yet".
func Implements(games []*Game) func(block, kind string) bool {
	return func(block, kind string) bool {
		if slices.Contains(kitImplements[block], kind) {
			return true
		}
		for _, g := range games {
			if slices.Contains(g.Implements[block], kind) {
				return true
			}
		}
		return false
	}
}

// kitImplements are the blocks and kinds the kit itself implements.
var kitImplements = map[string][]string{
	"dpsgd":   {""},
	"sweep":   {""},
	"report":  {""},
	"figure":  {"line", "scatter", "band", "bar", "histogram", "heatmap", "tradeoff"},
	"dataset": {"digits", "mnist", "fashion-mnist", "gaussian", "purchase-like", "adult-like", "file"},
	"model":   {"logreg", "mlp", "cnn", "ideal", "output_perturbation", "pnsgd", "layers"},
	"layer":   {"dense", "conv2d", "maxpool", "avgpool", "flatten", "relu", "tanh", "elu", "sigmoid"},
}
