package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

const (
	summaryKind    = "summary"
	summaryVersion = 2 // 2: violation with a family-wise correction
)

// SummaryFile is the summary node's output file.
const SummaryFile = "summary.parquet"

// summaryParams identifies the summary: the points' parameter values and
// which inputs make each row. (The inputs' keys are part of the node key.)
type summaryParams struct {
	Name    string         `json:"name"`
	Columns []summaryCol   `json:"columns"`
	Points  []summaryPoint `json:"points"`
}

type summaryCol struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

type summaryPoint struct {
	Index  int          `json:"index"`
	ID     string       `json:"id"`
	Values []paramValue `json:"values"` // by column
	Inputs []int        `json:"inputs"` // indices into the node's inputs
}

// paramValue is a parameter value in node params; non-finite floats,
// which JSON cannot hold, are written as strings.
type paramValue struct{ v any }

func (p paramValue) MarshalJSON() ([]byte, error) {
	if f, ok := p.v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return json.Marshal(p.v)
}

// summaryNode gathers every point's stage outputs into one table: one row
// per point with point_index, point_id, the swept and derived parameters,
// then the stage outputs in the order the stages wrote them.
func summaryNode(name string, points []spec.Point, cols []spec.Column, perPoint [][]*pipeline.Node, g *pipeline.Graph) *pipeline.Node {
	p := summaryParams{Name: name}
	for _, c := range cols {
		p.Columns = append(p.Columns, summaryCol{Name: c.Name, Path: c.Path})
	}
	var inputs []*pipeline.Node
	index := map[*pipeline.Node]int{}
	for i, pt := range points {
		sp := summaryPoint{Index: pt.Index, ID: pt.ID}
		for _, c := range cols {
			sp.Values = append(sp.Values, paramValue{pt.Values[c.Path]})
		}
		for _, n := range perPoint[i] {
			k, ok := index[n]
			if !ok {
				k = len(inputs)
				index[n] = k
				inputs = append(inputs, n)
			}
			sp.Inputs = append(sp.Inputs, k)
		}
		p.Points = append(p.Points, sp)
	}
	return &pipeline.Node{
		Kind:    summaryKind,
		Version: summaryVersion,
		Params:  p,
		Inputs:  inputs,
		Label:   fmt.Sprintf("%d point(s)", len(points)),
		Slot:    name + "/summary",
		Run: func(ctx context.Context, w *pipeline.Work) error {
			t, err := buildSummary(p, w.Inputs)
			if err != nil {
				return err
			}
			return pipeline.WriteParquet(filepath.Join(w.Dir, SummaryFile), t)
		},
	}
}

func buildSummary(p summaryParams, inputDirs []string) (*pipeline.Table, error) {
	t := &pipeline.Table{}
	n := len(p.Points)
	idx := make([]any, n)
	ids := make([]any, n)
	for i, pt := range p.Points {
		idx[i], ids[i] = int64(pt.Index), pt.ID
	}
	t.Add("point_index", pipeline.Int64, idx)
	t.Add("point_id", pipeline.String, ids)
	for c, col := range p.Columns {
		vals := make([]any, n)
		for i, pt := range p.Points {
			vals[i] = pt.Values[c].v
		}
		typ, conv := paramColumn(vals)
		if err := t.Add(col.Name, typ, conv); err != nil {
			return nil, err
		}
	}
	// Stage outputs: union of columns in first-seen order.
	cache := map[int][]Output{}
	type outCol struct {
		typ  pipeline.ColType
		vals []any
	}
	var order []string
	outCols := map[string]*outCol{}
	for i, pt := range p.Points {
		for _, in := range pt.Inputs {
			outs, ok := cache[in]
			if !ok {
				var err error
				if outs, err = ReadValues(inputDirs[in]); err != nil {
					return nil, err
				}
				cache[in] = outs
			}
			for _, o := range outs {
				oc, ok := outCols[o.Name]
				if !ok {
					oc = &outCol{typ: o.Type, vals: make([]any, n)}
					outCols[o.Name] = oc
					order = append(order, o.Name)
				}
				if oc.typ != o.Type {
					return nil, fmt.Errorf("column %s is %s in one stage and %s in another", o.Name, oc.typ, o.Type)
				}
				oc.vals[i] = o.Value
			}
		}
	}
	for _, name := range order {
		if err := t.Add(name, outCols[name].typ, outCols[name].vals); err != nil {
			return nil, err
		}
	}
	if err := applyFamilywise(t); err != nil {
		return nil, err
	}
	return t, nil
}

// applyFamilywise adds the columns violation and violation_familywise to
// a summary with audits: a point is flagged when its own valid test
// rejects the claim (violation_uncorrected) and, for audits with
// familywise: holm, Holm's step-down over the p-values of all such points
// of the run also rejects it, so the chance that any flag of the run is
// false stays at 1 − confidence (the smallest α of those points).
func applyFamilywise(t *pipeline.Table) error {
	pc, uc, fc, cc := t.Col("violation_p_value"), t.Col("violation_uncorrected"), t.Col("familywise"), t.Col("epsilon_lb_confidence")
	if pc == nil || uc == nil || fc == nil || cc == nil {
		return nil
	}
	n := t.Rows()
	var holmRows []int
	var ps []float64
	alpha := 1.0
	for i := range n {
		if fc.Values[i] == "holm" {
			holmRows = append(holmRows, i)
			p := math.NaN()
			if pc.Values[i] != nil {
				p = pc.Float(i)
			}
			ps = append(ps, p)
			alpha = math.Min(alpha, 1-cc.Float(i))
		}
	}
	rejected := map[int]bool{}
	for k, r := range audit.Holm(ps, alpha) {
		rejected[holmRows[k]] = r
	}
	viol, how := make([]any, n), make([]any, n)
	for i := range n {
		switch fc.Values[i] {
		case "holm":
			viol[i] = uc.Values[i] == true && rejected[i]
			how[i] = fmt.Sprintf("holm over %d point(s), family-wise α = %.3g", len(holmRows), alpha)
		case "none":
			viol[i] = uc.Values[i] == true
			how[i] = fmt.Sprintf("none (each point at its own α = %.3g)", 1-cc.Float(i))
		}
	}
	if err := t.Add("violation", pipeline.Bool, viol); err != nil {
		return err
	}
	return t.Add("violation_familywise", pipeline.String, how)
}

// paramColumn picks the column type of parameter values (which come from
// JSON-able spec values) and converts them: integers stay int64 unless
// mixed with fractions; lists become JSON text.
func paramColumn(vals []any) (pipeline.ColType, []any) {
	var sawInt, sawFloat, sawBool, sawStr, sawOther bool
	for _, v := range vals {
		switch v.(type) {
		case nil:
		case int64:
			sawInt = true
		case float64:
			sawFloat = true
		case bool:
			sawBool = true
		case string:
			sawStr = true
		default:
			sawOther = true
		}
	}
	out := make([]any, len(vals))
	kinds := 0
	for _, b := range []bool{sawInt || sawFloat, sawBool, sawStr, sawOther} {
		if b {
			kinds++
		}
	}
	switch {
	case kinds <= 1 && sawInt && !sawFloat:
		copy(out, vals)
		return pipeline.Int64, out
	case kinds == 1 && (sawInt || sawFloat):
		for i, v := range vals {
			switch x := v.(type) {
			case int64:
				out[i] = float64(x)
			case float64:
				out[i] = x
			}
		}
		return pipeline.Float64, out
	case kinds == 1 && sawBool:
		copy(out, vals)
		return pipeline.Bool, out
	case kinds == 1 && sawStr:
		copy(out, vals)
		return pipeline.String, out
	case kinds == 0:
		return pipeline.Float64, out // all null
	}
	for i, v := range vals {
		if v != nil {
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
	}
	return pipeline.String, out
}
