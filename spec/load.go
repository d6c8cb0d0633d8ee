package spec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// Options are supplied by the caller of Load: the functions expressions may
// call, which component kinds are implemented, and sweep limits.
type Options struct {
	// Functions callable from expressions, in addition to expr-lang's
	// builtins (abs, ceil, floor, round, min, max, …). See MathFunctions.
	Functions map[string]Func
	// Implemented reports whether a component kind has an implementation
	// (block is "dataset", "model", "crafter", "distinguisher", "bound",
	// "figure" with kind set, or a top-level block name with kind ""). A
	// spec that uses an unimplemented kind fails validation. Nil accepts all.
	Implemented func(block, kind string) bool
	// MaxPoints, MaxNodes and MaxTrials bound the sweep, the plan's nodes
	// and one point's trials (0 = the defaults); AllowLarge raises each
	// LargeFactor times (see limits.go).
	MaxPoints, MaxNodes, MaxTrials int
	AllowLarge                     bool
	// Overrides are "key.path=value" settings from the command line
	// (dpaudit run -s), applied over the file in order; see applyOverrides.
	Overrides []string
}

// Spec is a parsed and checked spec file, ready to expand.
type Spec struct {
	File   string // as given
	Source []byte
	SHA256 string
	// Name of the experiment (results go to <results>/<Name>).
	Name string
	// Overrides are the command-line settings applied over the file
	// (Options.Overrides), recorded in the run's manifest.
	Overrides []string

	root  *Node
	sweep *sweepPlan
	opts  Options
	ev    *evaluator
}

// Point is one fully resolved configuration.
type Point struct {
	Index int    // position in expansion order, after the where filter
	ID    string // hash of the resolved configuration (16 hex digits)
	Exp   *Experiment
	// Values holds the swept and derived values by spec path
	// (vars are "vars.<name>").
	Values map[string]any
}

// Column is a swept or derived parameter that becomes a summary column.
type Column struct {
	Name    string // column name in the summary table
	Path    string // spec path
	Swept   bool
	Derived bool
}

// Load reads and checks a spec file.
func Load(path string, o Options) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("cannot read the spec: %v", errUnwrapPath(err))}}
	}
	return Parse(path, data, o)
}

func errUnwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Parse checks a spec given as bytes; file names it in errors.
func Parse(file string, data []byte, o Options) (*Spec, error) {
	if o.Functions == nil {
		o.Functions = MathFunctions()
	}
	s := &Spec{File: file, Source: data, Overrides: o.Overrides, opts: o, ev: newEvaluator(o.Functions)}
	sum := sha256.Sum256(data)
	s.SHA256 = hex.EncodeToString(sum[:])
	root, perrs := parseYAML(filepath.Base(file), data)
	e := s.errs()
	if len(perrs) > 0 {
		return nil, perrs.Sorted()
	}
	applyOverrides(root, o.Overrides, e)
	s.root = root
	if err := checkPoints(e.file, root, o); err != nil {
		return nil, err
	}
	s.sweep = readSweep(root, e)

	// Check the file once before expansion, with swept values and
	// expressions as placeholders: unknown keys, types, ranges and missing
	// keys are reported here, once.
	tmpl := root.Clone()
	placeholders := map[*Node]bool{}
	for _, list := range [][]axis{s.sweep.grid, s.sweep.zip} {
		for _, a := range list {
			if a.path != nil {
				ph := &Node{Kind: ScalarNode, Pos: a.pos, Expr: "swept"}
				if setPath(tmpl, a.path, ph) == nil {
					placeholders[ph] = true
				}
			}
		}
	}
	var exp Experiment
	d := &decoder{e: e, implemented: o.Implemented, template: true}
	applyDefaults(tmpl, typeExperiment)
	d.decodeStruct(tmpl, reflect.ValueOf(&exp).Elem(), "")
	validate(&exp, tmpl, e)
	checkVars(root, o, e)
	s.checkExprs(tmpl, placeholders, e)
	if err := e.err(); err != nil {
		return nil, err
	}
	s.Name = exp.Name
	return s, nil
}

// checkExprs reports, with the structural errors, what is wrong with the
// expressions themselves — bad syntax, unknown functions, names that
// resolve to nothing — so that a file's errors come at once (they used to
// wait for Expand, after the structural ones were fixed). tmpl is the
// template (defaults applied, swept keys as placeholders, which are not
// expressions of the file); the per-point evaluation in Expand checks the
// rest (cycles, types, values).
func (s *Spec) checkExprs(tmpl *Node, placeholders map[*Node]bool, e *errs) {
	chk := tmpl.Clone()
	removeKey(chk, "sweep")
	pe := s.ev.newPointEval(chk, e)
	for _, site := range pe.sites {
		if site.node.Expr == "swept" && getPath(tmpl, site.path) != nil && placeholders[getPath(tmpl, site.path)] {
			continue
		}
		c := s.ev.compile(site.node.Expr)
		if c.err != nil {
			e.add(site.node.Pos, site.path.String(), "expression %q %v", site.node.Expr, c.err)
			continue
		}
		for _, r := range c.refs {
			// A read of a swept key resolves to its placeholder.
			if _, err := pe.resolve(r); err != nil {
				e.add(site.node.Pos, site.path.String(), "expression %q: %v", site.node.Expr, err)
			}
		}
	}
	if w := s.sweep.where; w != nil && w.Expr != "" {
		if c := s.ev.compile(w.Expr); c.err != nil {
			e.add(w.Pos, "sweep.where", "expression %q %v", w.Expr, c.err)
		}
	}
}

// checkVars rejects variable names that shadow spec blocks or functions.
func checkVars(root *Node, o Options, e *errs) {
	vn := root.Get("vars")
	if vn == nil || vn.Kind != MapNode {
		return
	}
	for i, k := range vn.Keys {
		if infoOf(typeExperiment).field(k) != nil {
			e.add(vn.KeyPos[i], "vars."+k, "a variable may not be named like a top-level block")
		}
		if _, ok := constants[k]; ok {
			e.add(vn.KeyPos[i], "vars."+k, "a variable may not be named like a constant (inf, pi)")
		}
		if _, ok := o.Functions[k]; ok {
			e.add(vn.KeyPos[i], "vars."+k, "a variable may not be named like a function")
		}
	}
}

// Expand returns every point of the sweep (after the where filter), fully
// resolved and validated, and the summary columns of the swept and derived
// parameters. All problems of all points are reported together. Points are
// evaluated in parallel (expressions may calibrate noise, which takes a
// fraction of a second each); the result does not depend on the order.
func (s *Spec) Expand() ([]Point, []Column, error) {
	file := filepath.Base(s.File)
	base := s.root.Clone()
	removeKey(base, "sweep")

	var combos [][]assign
	s.combos(func(c []assign) { combos = append(combos, append([]assign(nil), c...)) })

	results := make([]expanded, len(combos))
	// Neighbouring combinations often share an expensive call (the same
	// calibration for every prior size of a q), which the memo computes
	// once while the others wait; visiting them in a fixed shuffled order
	// keeps the workers on different calls. Results are stored by index, so
	// the order does not change them. There is no context to observe:
	// Expand's callers (dpaudit.Load) have none, and Ctrl-C while a spec
	// loads ends the process.
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(combos))
	err := parallel.For(context.Background(), len(combos), 0, func(k int) error {
		i := order[k]
		results[i] = s.expandOne(base, combos[i], file)
		return nil
	})
	if err != nil { // a panic while resolving a point, with its stack
		return nil, nil, fmt.Errorf("%s: expanding the sweep: %w", file, err)
	}

	e := s.errs()
	var points []Point
	derivedPaths := map[string]bool{}
	sweptPaths := map[string]bool{}
	for _, r := range results {
		e.list = append(e.list, r.errs...)
		for _, p := range r.swept {
			sweptPaths[p] = true
		}
		for _, p := range r.derived {
			derivedPaths[p] = true
		}
		if r.point != nil {
			points = append(points, *r.point)
		}
	}
	if err := e.err(); err != nil {
		return nil, nil, err
	}
	if len(points) == 0 {
		pos := Pos{Line: 1, Col: 1}
		if sn := s.root.Get("sweep"); sn != nil {
			pos = sn.Pos
		}
		return nil, nil, Errors{{File: source(file, s.Overrides, pos), Pos: pos, Path: "sweep.where", Msg: "no point is left after the where filter"}}
	}
	for i := range points {
		points[i].Index = i
	}
	if err := s.checkExpanded(points); err != nil {
		return nil, nil, err
	}
	cols := columns(sweptPaths, derivedPaths, s.sweepOrder())
	return points, cols, nil
}

// expanded is the outcome of one sweep combination.
type expanded struct {
	point   *Point // nil when filtered out or invalid
	swept   []string
	derived []string
	errs    Errors
}

// expandOne substitutes one combination, evaluates its expressions,
// filters it, and decodes and validates the result.
func (s *Spec) expandOne(base *Node, combo []assign, file string) (r expanded) {
	e := s.errs()
	defer func() { r.errs = e.list }()
	tree := base.Clone()
	for _, a := range combo {
		if err := setPath(tree, a.path, a.value.Clone()); err != nil {
			e.add(a.value.Pos, a.path.String(), "%v", err)
			continue
		}
		r.swept = append(r.swept, a.path.String())
	}
	applyDefaults(tree, typeExperiment)
	pe := s.ev.newPointEval(tree, e)
	if !pe.prepare() {
		return r
	}
	if s.sweep.where != nil {
		keep, ok := pe.filter(s.sweep.where)
		if !ok || !keep {
			return r
		}
	}
	if !pe.evalAll() {
		return r
	}
	for _, site := range pe.sites {
		r.derived = append(r.derived, site.path.String())
	}
	var exp Experiment
	d := &decoder{e: e, implemented: s.opts.Implemented}
	d.decodeStruct(tree, reflect.ValueOf(&exp).Elem(), "")
	exp.setDir(filepath.Dir(s.File))
	validate(&exp, tree, e)
	if len(e.list) > 0 {
		return r
	}
	values := map[string]any{}
	for _, a := range combo {
		values[a.path.String()] = getPath(tree, a.path).Interface()
	}
	for _, site := range pe.sites {
		values[site.path.String()] = integral(tree, site.path, getPath(tree, site.path).Interface())
	}
	r.point = &Point{Exp: &exp, Values: values, ID: pointID(tree)}
	return r
}

func removeKey(n *Node, k string) {
	for i, key := range n.Keys {
		if key == k {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.KeyPos = append(n.KeyPos[:i], n.KeyPos[i+1:]...)
			n.Vals = append(n.Vals[:i], n.Vals[i+1:]...)
			return
		}
	}
}

type assign struct {
	path  specPath
	value *Node
}

// combos calls f for each combination: grid keys in file order (first
// outermost), then the zip group innermost.
func (s *Spec) combos(f func([]assign)) {
	var axes [][][]assign
	for _, a := range s.sweep.grid {
		var opts [][]assign
		for _, v := range a.values {
			opts = append(opts, []assign{{a.path, v}})
		}
		axes = append(axes, opts)
	}
	if len(s.sweep.zip) > 0 {
		var opts [][]assign
		for i := range s.sweep.zip[0].values {
			var row []assign
			for _, a := range s.sweep.zip {
				row = append(row, assign{a.path, a.values[i]})
			}
			opts = append(opts, row)
		}
		axes = append(axes, opts)
	}
	var rec func(i int, cur []assign)
	rec = func(i int, cur []assign) {
		if i == len(axes) {
			f(cur)
			return
		}
		for _, o := range axes[i] {
			rec(i+1, append(cur, o...))
		}
	}
	rec(0, nil)
}

func (s *Spec) sweepOrder() []string {
	var out []string
	for _, list := range [][]axis{s.sweep.grid, s.sweep.zip} {
		for _, a := range list {
			out = append(out, a.path.String())
		}
	}
	return out
}

// pointID hashes the resolved configuration (without name, description,
// sweep, report and expect, which do not change what is computed).
func pointID(tree *Node) string {
	var b strings.Builder
	writeCanonical(&b, tree, true)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// executionOnly are spec paths that change how a point is computed but not
// what: they are left out of the point's identity.
var executionOnly = map[string]bool{"audit.shard_size": true, "reconstruction.shard_size": true}

// writeCanonical serialises a resolved tree with sorted keys and exact
// float text (including ±Inf, which JSON cannot hold).
func writeCanonical(b *strings.Builder, n *Node, top bool) {
	writeCanonicalAt(b, n, top, "")
}

func writeCanonicalAt(b *strings.Builder, n *Node, top bool, path string) {
	switch n.Kind {
	case MapNode:
		idx := make([]int, len(n.Keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return n.Keys[idx[i]] < n.Keys[idx[j]] })
		b.WriteByte('{')
		for _, i := range idx {
			if top && (n.Keys[i] == "name" || n.Keys[i] == "description" || n.Keys[i] == "sweep" || n.Keys[i] == "report" || n.Keys[i] == "expect") {
				continue
			}
			p := join(path, n.Keys[i])
			if executionOnly[p] {
				continue
			}
			b.WriteString(strconv.Quote(n.Keys[i]))
			b.WriteByte(':')
			writeCanonicalAt(b, n.Vals[i], false, p)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case ListNode:
		b.WriteByte('[')
		for _, it := range n.Items {
			writeCanonicalAt(b, it, false, path+"[]")
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		switch v := n.Value.(type) {
		case nil:
			b.WriteString("null")
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case float64:
			b.WriteString("f" + strconv.FormatFloat(v, 'g', -1, 64))
		case string:
			b.WriteString(strconv.Quote(v))
		}
	}
}

// columns names the swept and derived parameters: swept keys in sweep
// order, then derived paths sorted. A column is named by its last path
// element when that is unique, else by the whole path with '_' for '.'.
func columns(swept, derived map[string]bool, order []string) []Column {
	var cols []Column
	for _, p := range order {
		if swept[p] {
			cols = append(cols, Column{Path: p, Swept: true, Derived: derived[p]})
		}
	}
	var rest []string
	for p := range derived {
		if !swept[p] {
			rest = append(rest, p)
		}
	}
	sort.Strings(rest)
	for _, p := range rest {
		cols = append(cols, Column{Path: p, Derived: true})
	}
	count := map[string]int{}
	for _, c := range cols {
		count[leafName(c.Path)]++
	}
	for i := range cols {
		if n := leafName(cols[i].Path); count[n] == 1 {
			cols[i].Name = n
		} else {
			cols[i].Name = flatName(cols[i].Path)
		}
	}
	return cols
}

func leafName(p string) string {
	pp, err := parsePath(p)
	if err != nil {
		return flatName(p)
	}
	for i := len(pp) - 1; i >= 0; i-- {
		if pp[i].Key != "" {
			if i == len(pp)-1 {
				return pp[i].Key
			}
			return flatName(pp[i:].String())
		}
	}
	return flatName(p)
}

func flatName(p string) string {
	r := strings.NewReplacer(".", "_", "[", "_", "]", "")
	return r.Replace(strings.TrimPrefix(p, "vars."))
}

// ErrorAt returns a positioned error for a spec path, for problems found
// after validation (e.g. a data set that is not fetched). The position is
// that of the deepest part of the path present in the file.
func (s *Spec) ErrorAt(path string, err error) Errors {
	pos := s.root.Pos
	if p, err := parsePath(path); err == nil {
		for len(p) > 0 {
			if n := getPath(s.root, p); n != nil {
				pos = n.Pos
				break
			}
			p = p[:len(p)-1]
		}
	}
	return Errors{{File: source(filepath.Base(s.File), s.Overrides, pos), Pos: pos, Path: path, Msg: err.Error(), Err: err}}
}

// errs starts a list of errors in this spec's file and overrides.
func (s *Spec) errs() *errs {
	return &errs{file: filepath.Base(s.File), overrides: s.Overrides}
}

// integral turns the float result of an expression (ceil() returns a
// float) into int64 when its key is an integer, so that the summary column
// of a derived step count is int64 like a literal one.
func integral(root *Node, p specPath, v any) any {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return v
	}
	t, _, err := checkTypePath(root, p)
	if err != nil {
		return v
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return int64(f)
	}
	return v
}
