package spec

import (
	"fmt"
	"math"
)

// axis is one swept key with its expanded values.
type axis struct {
	key    string
	pos    Pos
	path   specPath
	values []*Node
}

// sweepPlan is the parsed sweep block.
type sweepPlan struct {
	grid  []axis
	zip   []axis
	where *Node
}

// readSweep parses the sweep block of root (and removes it from root).
func readSweep(root *Node, e *errs) *sweepPlan {
	plan := &sweepPlan{}
	sn := root.Get("sweep")
	if sn == nil || sn.Kind != MapNode {
		return plan
	}
	for i, k := range sn.Keys {
		v := sn.Vals[i]
		switch k {
		case "grid":
			plan.grid = readAxes(root, v, "sweep.grid", e)
		case "zip":
			plan.zip = readAxes(root, v, "sweep.zip", e)
			for _, a := range plan.zip[min(1, len(plan.zip)):] {
				if len(a.values) != len(plan.zip[0].values) {
					e.add(a.pos, "sweep.zip."+a.key, "zip lists must have the same length: %s has %d values, %s has %d", plan.zip[0].key, len(plan.zip[0].values), a.key, len(a.values))
				}
			}
		case "where":
			if v.Kind != ScalarNode || v.Expr == "" {
				if s, ok := v.Value.(string); ok && v.Kind == ScalarNode {
					// Allow the '=' to be omitted: where is always an expression.
					plan.where = &Node{Kind: ScalarNode, Pos: v.Pos, Expr: s}
					continue
				}
				e.add(v.Pos, "sweep.where", "expected an expression, got %s", v.Describe())
				continue
			}
			plan.where = v
		}
	}
	seen := map[string]Pos{}
	for _, list := range [][]axis{plan.grid, plan.zip} {
		for _, a := range list {
			if a.path == nil {
				continue
			}
			k := a.path.String()
			if p, dup := seen[k]; dup {
				e.add(a.pos, "sweep", "%s is swept twice (also at line %d)", k, p.Line)
			}
			seen[k] = a.pos
		}
	}
	return plan
}

func readAxes(root, n *Node, where string, e *errs) []axis {
	if n.Kind != MapNode {
		e.add(n.Pos, where, "expected a mapping of keys to value lists, got %s", n.Describe())
		return nil
	}
	var out []axis
	for i, k := range n.Keys {
		a := axis{key: k, pos: n.KeyPos[i]}
		path := where + "." + k
		p, err := sweepKeyPath(root, k)
		if err != nil {
			e.add(a.pos, path, "%v", err)
		} else {
			a.path = p
		}
		a.values = readValues(n.Vals[i], path, e)
		if len(a.values) == 0 {
			e.add(n.Vals[i].Pos, path, "needs at least one value")
		}
		out = append(out, a)
	}
	return out
}

// sweepKeyPath resolves a swept key: a spec path or a declared variable.
func sweepKeyPath(root *Node, k string) (specPath, error) {
	p, err := parsePath(k)
	if err != nil {
		return nil, err
	}
	if len(p) == 1 && p[0].Key != "" && infoOf(typeExperiment).field(p[0].Key) == nil {
		if vars := root.Get("vars"); vars.Get(p[0].Key) != nil {
			return append(specPath{{Key: "vars"}}, p...), nil
		}
		return nil, fmt.Errorf("unknown sweep key: not a spec path (like dpsgd.noise_multiplier) and not a variable declared under vars%s", suggest(k, varNames(root)))
	}
	switch p[0].Key {
	case "sweep", "name", "report", "expect":
		return nil, fmt.Errorf("%s cannot be swept", p[0].Key)
	}
	if _, _, err := checkTypePath(root, p); err != nil {
		return nil, err
	}
	if p[0].Key == "vars" && (len(p) != 2 || root.Get("vars").Get(p[1].Key) == nil) {
		return nil, fmt.Errorf("declare %s under vars before sweeping it", p)
	}
	return p, nil
}

func varNames(root *Node) []string {
	if v := root.Get("vars"); v != nil && v.Kind == MapNode {
		return v.Keys
	}
	return nil
}

// readValues reads a list of values or a {linspace|logspace: [a, b, n]} range.
func readValues(n *Node, path string, e *errs) []*Node {
	switch n.Kind {
	case ListNode:
		return n.Items
	case MapNode:
		if len(n.Keys) != 1 || (n.Keys[0] != "linspace" && n.Keys[0] != "logspace") {
			e.add(n.Pos, path, "expected a list of values or {linspace: [a, b, n]} or {logspace: [a, b, n]}")
			return nil
		}
		kind := n.Keys[0]
		args := n.Vals[0]
		if args.Kind != ListNode || len(args.Items) != 3 {
			e.add(args.Pos, path+"."+kind, "expected [start, stop, count]")
			return nil
		}
		var a, b float64
		var cnt int64
		var ok = true
		for i, it := range args.Items {
			var f float64
			switch x := it.Value.(type) {
			case int64:
				f = float64(x)
			case float64:
				f = x
			default:
				e.add(it.Pos, path+"."+kind, "expected a number, got %s", it.Describe())
				ok = false
				continue
			}
			switch i {
			case 0:
				a = f
			case 1:
				b = f
			case 2:
				if f != math.Trunc(f) || f < 1 {
					e.add(it.Pos, path+"."+kind, "count must be an integer ≥ 1, got %s", fmtNum(f))
					ok = false
				}
				cnt = int64(f)
			}
		}
		if !ok {
			return nil
		}
		if kind == "logspace" && (a <= 0 || b <= 0) {
			e.add(args.Pos, path+"."+kind, "logspace takes the endpoint values themselves (geometric spacing, like numpy.geomspace), which must be > 0; got %s and %s", fmtNum(a), fmtNum(b))
			return nil
		}
		if cnt > 10_000_000 {
			e.add(args.Pos, path+"."+kind, "count %d is too large", cnt)
			return nil
		}
		vals := make([]*Node, cnt)
		for i := range vals {
			vals[i] = &Node{Kind: ScalarNode, Pos: n.Pos, Value: spaced(kind, a, b, int(cnt), i)}
		}
		return vals
	}
	e.add(n.Pos, path, "expected a list of values or a {linspace|logspace: [a, b, n]} range, got %s", n.Describe())
	return nil
}

// spaced returns the i-th of n values from a to b, evenly (linspace) or
// geometrically (logspace); the endpoints are exact.
func spaced(kind string, a, b float64, n, i int) float64 {
	if n == 1 {
		return a
	}
	if i == 0 {
		return a
	}
	if i == n-1 {
		return b
	}
	t := float64(i) / float64(n-1)
	if kind == "linspace" {
		return a + (b-a)*t
	}
	// Base 10 keeps decades exact: logspace [1e-3, 1, 4] gives 0.01, 0.1.
	return math.Pow(10, math.Log10(a)+(math.Log10(b)-math.Log10(a))*t)
}
