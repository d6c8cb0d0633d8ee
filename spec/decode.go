package spec

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/internal/textdist"
)

// decoder turns a Node tree (after sweep substitution and expression
// evaluation) into the typed Experiment, reporting every problem with its
// position and spec path.
type decoder struct {
	e           *errs
	implemented func(block, kind string) bool
	// template is set when checking the file before sweep expansion:
	// expressions and swept values are placeholders and are skipped.
	template bool
}

var (
	typeSweepAxes = reflect.TypeOf(SweepAxes(nil))
	typeAnyMap    = reflect.TypeOf(map[string]any(nil))
	nameRE        = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// blockName is the name used for "not implemented yet" checks.
func blockName(t reflect.Type) string { return strings.ToLower(t.Name()) }

func (d *decoder) decodeStruct(n *Node, v reflect.Value, path string) {
	si := infoOf(v.Type())
	if n.Kind != MapNode {
		d.e.add(n.Pos, path, "expected a mapping, got %s", n.Describe())
		return
	}
	fields := si.Fields
	if si.Discriminator != nil {
		br := d.decodeDiscriminator(n, v, si, path)
		if br == nil {
			return
		}
		// The branch's own keys sit beside the discriminator.
		bv := reflect.New(br.Type)
		v.FieldByIndex(br.Index).Set(bv)
		rest := &Node{Kind: MapNode, Pos: n.Pos}
		for i, k := range n.Keys {
			if k != si.Discriminator.Key {
				rest.Keys = append(rest.Keys, k)
				rest.KeyPos = append(rest.KeyPos, n.KeyPos[i])
				rest.Vals = append(rest.Vals, n.Vals[i])
			}
		}
		d.decodeStruct(rest, bv.Elem(), path)
		return
	}
	for i, k := range n.Keys {
		fi := si.field(k)
		if fi == nil {
			d.e.add(n.KeyPos[i], join(path, k), "unknown key%s", suggestOrList(k, keysOf(si)))
			continue
		}
		d.decodeField(n.Vals[i], v.FieldByIndex(fi.Index), join(path, k), fi)
	}
	for _, fi := range fields {
		if fi.Required && n.Get(fi.Key) == nil {
			d.e.add(n.Pos, join(path, fi.Key), "missing (required)")
		}
	}
}

func (d *decoder) decodeDiscriminator(n *Node, v reflect.Value, si *structInfo, path string) *branchInfo {
	key := si.Discriminator.Key
	kn := n.Get(key)
	if kn == nil {
		d.e.add(n.Pos, join(path, key), "missing (required; one of %s)", strings.Join(si.kinds(), ", "))
		return nil
	}
	if kn.Kind == ScalarNode && kn.Expr != "" && d.template {
		return nil
	}
	s, ok := kn.Value.(string)
	if kn.Kind != ScalarNode || !ok {
		d.e.add(kn.Pos, join(path, key), "expected one of %s, got %s", strings.Join(si.kinds(), ", "), kn.Describe())
		return nil
	}
	br := si.branch(s)
	if br == nil {
		d.e.add(kn.Pos, join(path, key), "unknown %s %q%s; one of %s", key, s, suggest(s, si.kinds()), strings.Join(si.kinds(), ", "))
		return nil
	}
	if d.implemented != nil && !d.implemented(blockName(si.Type), s) {
		d.e.add(kn.Pos, join(path, key), "%s %q is not implemented yet", key, s)
		return nil
	}
	v.FieldByIndex(si.Discriminator.Index).SetString(s)
	return br
}

func (d *decoder) decodeField(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	if n.Kind == ScalarNode && n.Expr != "" {
		if d.template {
			return
		}
		d.e.add(n.Pos, path, "expression was not evaluated (internal error)")
		return
	}
	if n.Kind == ScalarNode && n.Value == nil && fi != nil && fi.Type.Kind() == reflect.Pointer {
		return // "key:" with no value leaves an optional block unset
	}
	d.decodeValue(n, v, path, fi)
}

// decodeValue decodes n into v (of the field's type) by the kind of v,
// adding every problem to d.e with its position and path.
func (d *decoder) decodeValue(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	t := v.Type()
	switch {
	case t == typeSweepAxes:
		d.decodeAxes(n, v, path)
		return
	case t == typeAnyMap:
		d.decodeVars(n, v, path)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct {
			d.decodeBlock(n, v, path)
			return
		}
	case reflect.Struct:
		d.decodeStruct(n, v, path)
		return
	case reflect.Slice:
		d.decodeList(n, v, path, fi)
		return
	case reflect.String:
		d.decodeString(n, v, path, fi)
		return
	case reflect.Bool:
		b, ok := n.Value.(bool)
		if n.Kind != ScalarNode || !ok {
			d.e.add(n.Pos, path, "expected true or false, got %s", n.Describe())
			return
		}
		v.SetBool(b)
		return
	case reflect.Int, reflect.Int64:
		d.decodeInt(n, v, path, fi)
		return
	case reflect.Float64:
		d.decodeFloat(n, v, path, fi)
		return
	}
	d.e.add(n.Pos, path, "unsupported field type %s (internal error)", t)
}

// decodeVars decodes a map of named values (vars), whose keys must be
// identifiers because expressions refer to them.
func (d *decoder) decodeVars(n *Node, v reflect.Value, path string) {
	if n.Kind != MapNode {
		d.e.add(n.Pos, path, "expected a mapping, got %s", n.Describe())
		return
	}
	m := map[string]any{}
	for i, k := range n.Keys {
		if !identRE.MatchString(k) {
			d.e.add(n.KeyPos[i], join(path, k), "variable names must be identifiers (letters, digits, '_')")
		}
		m[k] = n.Vals[i].Interface()
	}
	v.Set(reflect.ValueOf(m))
}

// decodeBlock decodes an optional block (a pointer to a struct), refusing
// a top-level block the caller has not implemented.
func (d *decoder) decodeBlock(n *Node, v reflect.Value, path string) {
	if n.Kind != MapNode {
		d.e.add(n.Pos, path, "expected a mapping, got %s", n.Describe())
		return
	}
	t := v.Type()
	p := reflect.New(t.Elem())
	if d.implemented != nil && !isUnion(t.Elem()) && !strings.Contains(path, ".") && !d.implemented(path, "") {
		d.e.add(n.Pos, path, "the %s block is not implemented yet", path)
		return
	}
	d.decodeStruct(n, p.Elem(), path)
	v.Set(p)
}

// decodeList decodes a list item by item (each with the field's checks)
// and applies the list's own check, nonempty.
func (d *decoder) decodeList(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	if n.Kind != ListNode {
		d.e.add(n.Pos, path, "expected a list, got %s", n.Describe())
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Items), len(n.Items))
	for i, it := range n.Items {
		d.decodeField(it, s.Index(i), fmt.Sprintf("%s[%d]", path, i), fi)
	}
	v.Set(s)
	if fi != nil {
		for _, c := range fi.Checks {
			if c.Op == "nonempty" && len(n.Items) == 0 {
				d.e.add(n.Pos, path, "must not be empty")
			}
		}
	}
}

// decodeString decodes a string, checked against the field's enum (with a
// suggestion for a near miss) and its name pattern.
func (d *decoder) decodeString(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	s, ok := n.Value.(string)
	if n.Kind != ScalarNode || !ok {
		d.e.add(n.Pos, path, "expected a string, got %s", n.Describe())
		return
	}
	if fi != nil && len(fi.Enum) > 0 && !contains(fi.Enum, s) {
		d.e.add(n.Pos, path, "must be one of %s, got %q%s", strings.Join(fi.Enum, ", "), s, suggest(s, fi.Enum))
		return
	}
	if fi != nil {
		for _, c := range fi.Checks {
			if c.Op == "name" && !nameRE.MatchString(s) {
				d.e.add(n.Pos, path, "must start with a letter or digit and hold only letters, digits, '-', '_' and '.', got %q", s)
			}
		}
	}
	v.SetString(s)
}

// decodeInt decodes an integer; a float that is a whole number (an
// expression's result) is accepted up to 2⁵³, where float64 stops
// counting exactly.
func (d *decoder) decodeInt(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	var i int64
	switch x := n.Value.(type) {
	case int64:
		i = x
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
			d.e.add(n.Pos, path, "expected an integer, got %s (use ceil() or floor() in an expression)", fmtNum(x))
			return
		}
		i = int64(x)
	default:
		d.e.add(n.Pos, path, "expected an integer, got %s", n.Describe())
		return
	}
	if d.applyChecks(n, path, fi, float64(i)) {
		v.SetInt(i)
	}
}

// decodeFloat decodes a number (an integer literal included).
func (d *decoder) decodeFloat(n *Node, v reflect.Value, path string, fi *fieldInfo) {
	var f float64
	switch x := n.Value.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		d.e.add(n.Pos, path, "expected a number, got %s", n.Describe())
		return
	}
	if d.applyChecks(n, path, fi, f) {
		v.SetFloat(f)
	}
}

func (d *decoder) applyChecks(n *Node, path string, fi *fieldInfo, x float64) bool {
	if fi == nil {
		return true
	}
	ok := true
	for _, c := range fi.Checks {
		if msg := c.fails(x); msg != "" {
			d.e.add(n.Pos, path, "%s", msg)
			ok = false
		}
	}
	return ok
}

// decodeAxes reads a sweep grid or zip mapping, keeping the key order.
func (d *decoder) decodeAxes(n *Node, v reflect.Value, path string) {
	if n.Kind != MapNode {
		d.e.add(n.Pos, path, "expected a mapping of swept keys to values, got %s", n.Describe())
		return
	}
	var axes SweepAxes
	for i, k := range n.Keys {
		axes = append(axes, SweepAxis{Key: k, Values: []*Node{n.Vals[i]}, Pos: n.KeyPos[i]})
	}
	v.Set(reflect.ValueOf(axes))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func keysOf(si *structInfo) []string {
	var out []string
	for _, f := range si.Fields {
		out = append(out, f.Key)
	}
	return out
}

// suggest returns "; did you mean X?" for the closest candidate when it is
// a plausible typo (at most one edit per three characters), or "".
func suggest(s string, cands []string) string {
	best, bestD := "", max(1, len(s)/3)+1
	for _, c := range cands {
		if dd := textdist.Distance(s, c); dd < bestD {
			best, bestD = c, dd
		}
	}
	if best == "" || best == s {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// suggestOrList is suggest, falling back to the list of allowed names.
func suggestOrList(s string, cands []string) string {
	if m := suggest(s, cands); m != "" {
		return m
	}
	c := append([]string(nil), cands...)
	sort.Strings(c)
	return " (allowed: " + strings.Join(c, ", ") + ")"
}
