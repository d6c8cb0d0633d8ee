package spec

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Func is a function that expressions may call. Arguments arrive as int or
// float64 (or whatever the expression passes); use ToFloat to read numbers.
type Func func(args ...any) (any, error)

// ToFloat reads a numeric expression argument.
func ToFloat(v any) (float64, error) {
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	}
	return 0, fmt.Errorf("expected a number, got %T", v)
}

// compiled is one expression, compiled once and run per point.
type compiled struct {
	prog    *vm.Program
	refs    []ref
	calls   []string
	usesInf bool
	err     error
}

// ref is a name chain an expression reads, e.g. dpsgd.delta → [dpsgd delta].
type ref []seg

// constants are names every expression may read: inf (+∞, e.g. for
// clip_norm) and pi. An expression whose result is infinite is an error
// (a division by zero, usually) unless it reads inf.
var constants = map[string]any{"inf": math.Inf(1), "pi": math.Pi}

// evaluator compiles expressions once and evaluates them per point.
type evaluator struct {
	funcs map[string]Func
	opts  []expr.Option
	mu    sync.Mutex
	cache map[string]*compiled
}

func newEvaluator(funcs map[string]Func) *evaluator {
	ev := &evaluator{funcs: funcs, cache: map[string]*compiled{}}
	names := make([]string, 0, len(funcs))
	for name := range funcs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := funcs[name]
		ev.opts = append(ev.opts, expr.Function(name, func(params ...any) (any, error) { return f(params...) }))
	}
	return ev
}

func (ev *evaluator) compile(src string) *compiled {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if c, ok := ev.cache[src]; ok {
		return c
	}
	c := &compiled{}
	ev.cache[src] = c
	tree, err := parser.Parse(src)
	if err != nil {
		c.err = fmt.Errorf("does not compile: %s", firstLine(err.Error()))
		return c
	}
	refs, calls := collectRefs(tree.Node)
	for _, r := range refs {
		if _, isConst := constants[r[0].Key]; isConst && len(r) == 1 {
			c.usesInf = c.usesInf || r[0].Key == "inf"
			continue
		}
		c.refs = append(c.refs, r)
	}
	c.calls = calls
	for _, name := range c.calls {
		if _, ok := ev.funcs[name]; ok {
			continue
		}
		if _, ok := builtin.Index[name]; ok {
			continue
		}
		c.err = fmt.Errorf("unknown function %q%s", name, suggest(name, ev.funcNames()))
		return c
	}
	prog, err := expr.Compile(src, ev.opts...)
	if err != nil {
		c.err = fmt.Errorf("does not compile: %s", firstLine(err.Error()))
		return c
	}
	c.prog = prog
	return c
}

func (ev *evaluator) funcNames() []string {
	var out []string
	for n := range ev.funcs {
		out = append(out, n)
	}
	return append(out, "abs", "ceil", "floor", "round", "min", "max")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// collectRefs finds the name chains an expression reads and the functions
// it calls.
func collectRefs(root ast.Node) ([]ref, []string) {
	v := &refVisitor{chains: map[*ast.IdentifierNode]ref{}, callees: map[*ast.IdentifierNode]bool{}, locals: map[string]bool{}}
	ast.Walk(&root, v)
	var refs []ref
	for _, id := range v.idents {
		if v.callees[id] || v.locals[id.Value] {
			continue
		}
		if r, ok := v.chains[id]; ok {
			refs = append(refs, r)
		} else {
			refs = append(refs, ref{{Key: id.Value}})
		}
	}
	var calls []string
	for id := range v.callees {
		calls = append(calls, id.Value)
	}
	sort.Strings(calls)
	return refs, calls
}

type refVisitor struct {
	idents  []*ast.IdentifierNode
	chains  map[*ast.IdentifierNode]ref
	callees map[*ast.IdentifierNode]bool
	locals  map[string]bool
}

func (v *refVisitor) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		v.idents = append(v.idents, x)
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			v.callees[id] = true
		}
	case *ast.VariableDeclaratorNode:
		v.locals[x.Name] = true
	case *ast.MemberNode:
		if id, chain, ok := memberChain(x); ok && len(chain) > len(v.chains[id]) {
			v.chains[id] = chain
		}
	}
}

// memberChain resolves a.b[0].c into its root identifier and static chain.
// A dynamic index stops the chain (the prefix is then the dependency).
func memberChain(m *ast.MemberNode) (*ast.IdentifierNode, ref, bool) {
	var rev ref
	var node ast.Node = m
	for {
		switch x := node.(type) {
		case *ast.MemberNode:
			switch p := x.Property.(type) {
			case *ast.StringNode:
				rev = append(rev, seg{Key: p.Value})
			case *ast.IntegerNode:
				rev = append(rev, seg{Index: p.Value})
			default:
				rev = rev[:0] // dynamic: depend on the whole prefix
			}
			node = x.Node
		case *ast.IdentifierNode:
			out := ref{{Key: x.Value}}
			for i := len(rev) - 1; i >= 0; i-- {
				out = append(out, rev[i])
			}
			return x, out, true
		default:
			return nil, nil, false
		}
	}
}

// exprSite is one expression in a point's tree.
type exprSite struct {
	path specPath
	node *Node
	c    *compiled
	deps []int // indices of sites this one reads
	done bool
}

// pointEval evaluates the expressions of one point's tree.
type pointEval struct {
	ev    *evaluator
	root  *Node
	vars  map[string]bool
	sites []*exprSite
	env   map[string]any
	e     *errs
}

func (ev *evaluator) newPointEval(root *Node, e *errs) *pointEval {
	pe := &pointEval{ev: ev, root: root, vars: map[string]bool{}, e: e}
	if vn := root.Get("vars"); vn != nil && vn.Kind == MapNode {
		for _, k := range vn.Keys {
			pe.vars[k] = true
		}
	}
	walkExprs(root, nil, func(p specPath, n *Node) {
		pe.sites = append(pe.sites, &exprSite{path: p, node: n})
	})
	return pe
}

func walkExprs(n *Node, p specPath, f func(specPath, *Node)) {
	switch n.Kind {
	case ScalarNode:
		if n.Expr != "" {
			f(append(specPath(nil), p...), n)
		}
	case MapNode:
		for i, k := range n.Keys {
			walkExprs(n.Vals[i], append(p, seg{Key: k}), f)
		}
	case ListNode:
		for i, it := range n.Items {
			walkExprs(it, append(p, seg{Index: i}), f)
		}
	}
}

// resolve maps a ref to the tree path it reads, checking it exists.
func (pe *pointEval) resolve(r ref) (specPath, error) {
	name := r[0].Key
	var p specPath
	switch {
	case pe.vars[name]:
		p = append(specPath{{Key: "vars"}}, r...)
	case infoOf(typeExperiment).field(name) != nil:
		p = append(specPath(nil), r...)
	default:
		var known []string
		for v := range pe.vars {
			known = append(known, v)
		}
		return nil, fmt.Errorf("unknown name %q%s (variables are declared under vars; spec values are read as dpsgd.delta, …)", name, suggest(name, append(known, keysOf(infoOf(typeExperiment))...)))
	}
	if getPath(pe.root, p) != nil {
		return p, nil
	}
	// Absent: either a valid key that is not set, or a typo.
	if p[0].Key == "vars" {
		return nil, fmt.Errorf("%s is not set", r.String())
	}
	if _, _, err := checkTypePath(pe.root, p); err != nil {
		return nil, fmt.Errorf("unknown name %s: %v", specPath(r), err)
	}
	return nil, fmt.Errorf("%s is not set in this spec", specPath(r))
}

func (r ref) String() string { return specPath(r).String() }

// prepare compiles every site and computes dependencies. It returns false
// after reporting errors.
func (pe *pointEval) prepare() bool {
	ok := true
	for _, s := range pe.sites {
		s.c = pe.ev.compile(s.node.Expr)
		if s.c.err != nil {
			pe.e.add(s.node.Pos, s.path.String(), "expression %q %v", s.node.Expr, s.c.err)
			ok = false
		}
	}
	if !ok {
		return false
	}
	for i, s := range pe.sites {
		for _, r := range s.c.refs {
			p, err := pe.resolve(r)
			if err != nil {
				pe.e.add(s.node.Pos, s.path.String(), "expression %q: %v", s.node.Expr, err)
				ok = false
				continue
			}
			for j, t := range pe.sites {
				if t.path.hasPrefix(p) || p.hasPrefix(t.path) {
					if j == i {
						pe.e.add(s.node.Pos, s.path.String(), "expression %q reads its own value", s.node.Expr)
						ok = false
						continue
					}
					s.deps = append(s.deps, j)
				}
			}
		}
	}
	if ok {
		ok = pe.checkCycles()
	}
	if ok {
		pe.env = pe.root.Interface().(map[string]any)
		for k, v := range constants {
			pe.env[k] = v
		}
		if vars, isMap := pe.env["vars"].(map[string]any); isMap {
			for k, v := range vars {
				if _, clash := pe.env[k]; clash {
					continue // reported by validation
				}
				pe.env[k] = v
			}
		}
	}
	return ok
}

func (pe *pointEval) checkCycles() bool {
	state := make([]int, len(pe.sites)) // 0 new, 1 on stack, 2 done
	var stack []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = 1
		stack = append(stack, i)
		for _, j := range pe.sites[i].deps {
			if state[j] == 1 {
				var names []string
				start := 0
				for k, x := range stack {
					if x == j {
						start = k
					}
				}
				for _, x := range stack[start:] {
					names = append(names, pe.sites[x].path.String())
				}
				names = append(names, pe.sites[j].path.String())
				s := pe.sites[j]
				pe.e.add(s.node.Pos, s.path.String(), "expressions form a cycle: %s", strings.Join(names, " → "))
				return false
			}
			if state[j] == 0 && !visit(j) {
				return false
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = 2
		return true
	}
	for i := range pe.sites {
		if state[i] == 0 && !visit(i) {
			return false
		}
	}
	return true
}

// evalSite evaluates site i after its dependencies.
func (pe *pointEval) evalSite(i int) bool {
	s := pe.sites[i]
	if s.done {
		return true
	}
	for _, j := range s.deps {
		if !pe.evalSite(j) {
			return false
		}
	}
	out, err := vmRun(s.c.prog, pe.env)
	if err != nil {
		pe.e.add(s.node.Pos, s.path.String(), "expression %q failed: %s", s.node.Expr, firstLine(err.Error()))
		return false
	}
	if f, isFloat := out.(float64); isFloat && (math.IsNaN(f) || (math.IsInf(f, 0) && !s.c.usesInf)) {
		pe.e.add(s.node.Pos, s.path.String(), "expression %q evaluates to %v (division by zero?)", s.node.Expr, f)
		return false
	}
	n, err := FromValue(out, s.node.Pos)
	if err != nil {
		pe.e.add(s.node.Pos, s.path.String(), "expression %q: %v", s.node.Expr, err)
		return false
	}
	if err := setPath(pe.root, s.path, n); err != nil {
		pe.e.add(s.node.Pos, s.path.String(), "%v", err)
		return false
	}
	setEnv(pe.env, s.path, out)
	if s.path[0].Key == "vars" && len(s.path) == 2 {
		pe.env[s.path[1].Key] = out
	}
	s.done = true
	return true
}

func vmRun(prog *vm.Program, env map[string]any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return expr.Run(prog, env)
}

func setEnv(env map[string]any, p specPath, v any) {
	var cur any = env
	for i, s := range p {
		last := i == len(p)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[s.Key] = v
				return
			}
			cur = c[s.Key]
		case []any:
			if s.Index >= len(c) {
				return
			}
			if last {
				c[s.Index] = v
				return
			}
			cur = c[s.Index]
		default:
			return
		}
	}
}

// evalAll evaluates every site.
func (pe *pointEval) evalAll() bool {
	for i := range pe.sites {
		if !pe.evalSite(i) {
			return false
		}
	}
	return true
}

// filter evaluates the where expression (after the sites it reads).
func (pe *pointEval) filter(where *Node) (keep, ok bool) {
	c := pe.ev.compile(where.Expr)
	if c.err != nil {
		pe.e.add(where.Pos, "sweep.where", "expression %q %v", where.Expr, c.err)
		return false, false
	}
	for _, r := range c.refs {
		p, err := pe.resolve(r)
		if err != nil {
			pe.e.add(where.Pos, "sweep.where", "expression %q: %v", where.Expr, err)
			return false, false
		}
		for j, t := range pe.sites {
			if t.path.hasPrefix(p) || p.hasPrefix(t.path) {
				if !pe.evalSite(j) {
					return false, false
				}
			}
		}
	}
	out, err := vmRun(c.prog, pe.env)
	if err != nil {
		pe.e.add(where.Pos, "sweep.where", "expression %q failed: %s", where.Expr, firstLine(err.Error()))
		return false, false
	}
	b, isBool := out.(bool)
	if !isBool {
		pe.e.add(where.Pos, "sweep.where", "expression %q must be true or false, got %v", where.Expr, out)
		return false, false
	}
	return b, true
}
