// Package stages turns the points of a spec into pipeline nodes. It is the
// only package that knows both the spec language and the domain packages
// (privacy, learn, …): one file per stage kind.
package stages

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/report"
	"github.com/dpaudit/dpaudit/spec"
)

// implemented lists the component kinds that have a stage behind them.
// Anything else in a spec is refused with "not implemented yet".
var implemented = map[string]map[string]bool{
	"bound":          {"accountant": true, "rero": true, "mse_rdp": true, "minimax_mse": true, "belief": true},
	"dpsgd":          {"": true},
	"sweep":          {"": true},
	"report":         {"": true},
	"figure":         {"line": true, "scatter": true, "band": true, "bar": true, "histogram": true, "heatmap": true},
	"train":          {"": true},
	"dataset":        {"digits": true, "mnist": true, "fashion-mnist": true, "gaussian": true, "purchase-like": true, "adult-like": true, "file": true},
	"model":          {"logreg": true, "mlp": true, "cnn": true, "ideal": true, "output_perturbation": true, "pnsgd": true, "layers": true},
	"layer":          {"dense": true, "conv2d": true, "maxpool": true, "avgpool": true, "flatten": true, "relu": true, "tanh": true, "elu": true, "sigmoid": true},
	"reconstruction": {"glm": true},
	"audit":          {"": true},
	// Bernau et al.'s identifiability game (identify.go).
	"identifiability": {"": true},
	"crafter": {"random_record": true, "mislabeled_record": true, "constant_input": true, "noise_input": true,
		"static_poison": true, "adaptive_poison": true, "gradient_canary": true, "malicious_dataset": true},
	"distinguisher": {"loss_threshold": true, "intermediate_loss": true, "watermark": true},
}

// Env is what stages need from the runner besides the spec.
type Env struct {
	DataDir string // where MNIST and Fashion-MNIST live (datasets.DefaultDataDir)
}

// Implemented reports whether a spec block or component kind is
// implemented; pass it to spec.Options.
func Implemented(block, kind string) bool {
	return implemented[block][kind]
}

// Output is one value a stage writes into a point's summary row.
type Output struct {
	Name  string
	Type  pipeline.ColType
	Value any // float64, int64, string, bool or nil
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
	// Figures are the report block's figure nodes; Columns, what the
	// summary and trials tables will hold (for checking the figures).
	Figures []*pipeline.Node
	Columns report.Available
}

// pointStage is a node computing part of one point's summary row.
type pointStage struct {
	node    *pipeline.Node
	columns []string // the columns it writes, for clash detection
}

// Compile builds the graph: per point, one node per bound (shared when the
// work is equal), then the summary node over all points.
func Compile(name string, points []spec.Point, cols []spec.Column, env Env) (*Compiled, error) {
	g := pipeline.NewGraph()
	perPoint := make([][]*pipeline.Node, len(points))
	trials := map[string][]*pipeline.Node{}
	var stageCols []string
	for i, pt := range points {
		var stagesOfPoint []pointStage
		if pt.Exp.Train != nil {
			st, err := trainStages(name, pt, env, g)
			if err != nil {
				return nil, err
			}
			stagesOfPoint = append(stagesOfPoint, st)
		}
		if pt.Exp.Audit != nil {
			st, shards, err := auditStages(name, pt, env, g)
			if err != nil {
				return nil, err
			}
			stagesOfPoint = append(stagesOfPoint, st)
			trials[pt.ID] = shards
		}
		if r := pt.Exp.Reconstruction; r != nil && r.GLM != nil {
			st, shards, err := glmReconStages(name, pt, env, g)
			if err != nil {
				return nil, err
			}
			stagesOfPoint = append(stagesOfPoint, st)
			trials[pt.ID] = shards
		}
		if pt.Exp.Identifiability != nil {
			st, shards, err := identifyStages(name, pt, env, g)
			if err != nil {
				return nil, err
			}
			stagesOfPoint = append(stagesOfPoint, st)
			trials[pt.ID] = shards
		}
		for b, bound := range pt.Exp.Bound {
			switch {
			case bound.Accountant != nil:
				stagesOfPoint = append(stagesOfPoint, accountantStages(name, pt, b, bound.Accountant)...)
			case bound.Rero != nil, bound.MSE != nil, bound.Minimax != nil, bound.Belief != nil:
				st, err := boundStages(name, pt, b)
				if err != nil {
					return nil, err
				}
				stagesOfPoint = append(stagesOfPoint, st...)
			default:
				return nil, fmt.Errorf("bound[%d] kind %q has no stage", b, bound.Kind)
			}
		}
		if r := pt.Exp.Reconstruction; r != nil && r.GLM == nil {
			st, shards, err := reconstructionStages(name, pt, env, g)
			if err != nil {
				return nil, err
			}
			stagesOfPoint = append(stagesOfPoint, st...)
			// A point with a membership audit as well keeps its rows in
			// trials/point=<id>/; the reconstruction rows go one level down.
			key := pt.ID
			if pt.Exp.Audit != nil {
				key += "/reconstruction"
			}
			trials[key] = shards
		}
		var colNames []string
		for _, st := range stagesOfPoint {
			colNames = append(colNames, st.columns...)
			perPoint[i] = append(perPoint[i], g.Add(st.node))
		}
		if err := checkClashes(colNames, cols); err != nil {
			return nil, err
		}
		stageCols = append(stageCols, colNames...)
	}
	sum := g.Add(summaryNode(name, points, cols, perPoint, g))
	return &Compiled{Graph: g, Summary: sum, Trials: trials,
		Figures: figureNodes(name, points, sum, trials, g),
		Columns: reportColumns(points, cols, stageCols)}, nil
}

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
