// Package stages turns the points of a spec into pipeline nodes. It is the
// kit the games share: a game (membership, reconstruction, training, the
// bounds, …) is one Game value in its own package under stages/, and
// Compile drives the registered games point by point, then adds the
// summary node over every point's row. The games never import each other;
// what they share lives here: Build (what a game's Compile adds nodes
// through), Output and values.json, Calc (a node that is a pure function
// of its parameters), keys and repeat labels, the data and architecture
// conversions, PathError, Violation, and the functions spec expressions
// call (calibrate, epsilon, delta, bernau_noise).
package stages

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

// Env is what stages need from the runner besides the spec.
type Env struct {
	DataDir string // where MNIST and Fashion-MNIST live (datasets.DefaultDataDir)
	// Code returns the code fingerprint of a package of this module (its
	// path relative to the module, e.g. "stages/membership"): the package
	// and everything it imports. A node keys on the fingerprint of the
	// package that builds it, so an edit elsewhere keeps its key. nil:
	// every node keys on the process-wide fingerprint.
	Code func(pkg string) string
}

// code is the fingerprint of pkg ("" without Env.Code).
func (e Env) code(pkg string) string {
	if e.Code == nil {
		return ""
	}
	return e.Code(pkg)
}

// Output is one value a stage writes into a point's summary row.
type Output struct {
	Name  string
	Type  pipeline.ColType
	Value any // float64, int64, string, bool or nil
}

// Columns are the columns a compiled spec's tables will hold.
type Columns struct {
	Summary []string // the summary table's columns
	Trials  []string // the trials tables' own columns (empty: no trials)
}

// Compiled is the graph of an expanded spec.
type Compiled struct {
	Graph   *pipeline.Graph
	Summary *pipeline.Node
	// Trials lists each audited point's trial shards (by point id) in
	// trial order; their TrialsFile tables are published as
	// trials/point=<id>/part-<k>.parquet. A point with a membership audit
	// and a reconstruction audit lists the latter under
	// "<id>/reconstruction" (trials/point=<id>/reconstruction/part-<k>).
	Trials map[string][]*pipeline.Node
	// Figures are the report block's figure nodes (added by the caller,
	// see package stages/figure); Columns, what the summary and trials
	// tables will hold (for checking the figures).
	Figures []*pipeline.Node
	Columns Columns
}

// pointStage is a node computing part of one point's summary row.
type pointStage struct {
	node    *pipeline.Node
	columns []string // the columns it writes, for clash detection
}

// Compile builds the graph: per point, the nodes of every game that
// applies to it (in the order of games), then the summary node over all
// points.
func Compile(games []*Game, name string, points []spec.Point, cols []spec.Column, env Env) (*Compiled, error) {
	g := pipeline.NewGraph()
	perPoint := make([][]*pipeline.Node, len(points))
	trials := map[string][]*pipeline.Node{}
	var stageCols []string
	for i, pt := range points {
		b := &Build{Name: name, Point: pt, Env: env, graph: g, trials: trials}
		for _, game := range games {
			if !game.AppliesTo(pt.Exp) {
				continue
			}
			if err := checkMatrixNoise(game, pt.Exp); err != nil {
				return nil, err
			}
			if err := compileGame(game, b); err != nil {
				return nil, err
			}
		}
		var colNames []string
		for _, st := range b.rows {
			colNames = append(colNames, st.columns...)
			perPoint[i] = append(perPoint[i], g.Add(st.node))
		}
		if err := checkClashes(colNames, cols); err != nil {
			return nil, err
		}
		stageCols = append(stageCols, colNames...)
	}
	sum := summaryNode(name, points, cols, perPoint, g)
	sum.Code = env.code(kitPackage)
	sum = g.Add(sum)
	return &Compiled{Graph: g, Summary: sum, Trials: trials, Columns: reportColumns(games, points, cols, stageCols)}, nil
}

// checkMatrixNoise refuses cyclic sampling and matrix-factorization noise
// for a game that does not declare it plays them (Game.MatrixNoise).
func checkMatrixNoise(g *Game, exp *spec.Experiment) error {
	d := exp.DPSGD
	if g.MatrixNoise || d == nil {
		return nil
	}
	switch {
	case d.Correlated != nil:
		return &PathError{Path: "dpsgd.correlated", Err: fmt.Errorf("the %s game does not train or account matrix-factorization noise (the membership games and training do)", g.Name)}
	case d.Sampling == "cyclic":
		return &PathError{Path: "dpsgd.sampling", Err: fmt.Errorf("the %s game does not train or account cyclic sampling (the membership games and training do)", g.Name)}
	}
	return nil
}

// kitPackage is this package, relative to the module: the code of the
// nodes it builds itself (the summary).
const kitPackage = "stages"

// reservedColumns are written by the summary itself.
var reservedColumns = []string{"point_index", "point_id", "violation", "violation_familywise"}

func checkClashes(outputs []string, cols []spec.Column) error {
	seen := map[string]string{}
	for _, r := range reservedColumns {
		seen[r] = "the summary"
	}
	for _, c := range cols {
		if prev, dup := seen[c.Name]; dup {
			return fmt.Errorf("column %q of %s clashes with %s", c.Name, c.Path, prev)
		}
		seen[c.Name] = c.Path
	}
	var dups []string
	for _, o := range outputs {
		if prev, dup := seen[o]; dup {
			dups = append(dups, fmt.Sprintf("%s (from a bound and %s)", o, prev))
		}
		seen[o] = "a bound"
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		return fmt.Errorf("summary columns written twice: %s; a spec may hold each bound kind once, and no swept or derived key may share a name with a stage output (rename the variable)", strings.Join(dups, ", "))
	}
	return nil
}
