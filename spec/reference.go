package spec

import (
	"fmt"
	"reflect"
	"strings"
)

// ReferenceMarkdown returns docs/spec.md: every key of the spec language with its
// type, default, allowed values and description, generated from the same
// struct tags as the decoder and JSONSchema, so that it cannot drift
// (TestReferenceIsCurrent fails when the checked-in page is stale).
func ReferenceMarkdown() string {
	r := &refGen{anchors: map[reflect.Type]string{}}
	r.queue(typeExperiment, "top level")
	for i := 0; i < len(r.order); i++ {
		r.section(r.order[i])
	}
	var b strings.Builder
	b.WriteString("# Spec reference\n\n")
	b.WriteString("<!-- Generated from the spec types (spec/types*.go); do not edit. Regenerate with:\n     go test ./spec -run TestReferenceIsCurrent -update -->\n\n")
	b.WriteString(refIntro)
	for _, t := range r.order {
		fmt.Fprintf(&b, "- [%s](#%s)\n", r.titles[t], r.anchors[t])
	}
	b.WriteString("\n")
	b.WriteString(r.body.String())
	return b.String()
}

const refIntro = "Every key a spec file may hold, block by block. A spec is YAML; " +
	"`schemas/experiment.schema.json` is the same language as a JSON Schema for editors.\n\n" +
	"- **Expressions**: any scalar may be an expression, a string starting with `=`, " +
	"evaluated per sweep point: `steps: \"=ceil(epochs / dpsgd.sampling_rate)\"`. " +
	"`==` escapes a literal string that starts with `=`.\n" +
	"- **Sweeps**: `sweep.grid` (every combination) and `sweep.zip` (lists walked together) " +
	"map a spec path (`dpsgd.noise_multiplier`, `bound[0].pld_interval`) or a name under " +
	"`vars` to a list of values or `{linspace: [a, b, n]}` / `{logspace: [a, b, n]}`; " +
	"`sweep.where` filters the points. A key a sweep provides may be left out of its block.\n" +
	"- **Command line**: `dpaudit run|plan|validate SPEC -s key.path=value` sets a key over the " +
	"file (see [the command reference](cli.md#dpaudit-run)).\n" +
	"- **Kinds**: a block with a `kind` key (dataset, model, bound entries, …) takes the keys " +
	"common to every kind plus those of the kind chosen.\n\n" +
	"Types: *integer* and *number* accept expressions; *list of X* is a YAML list; " +
	"a default is what an absent key means; *allowed* is checked when the spec is loaded.\n\n"

type refGen struct {
	order   []reflect.Type
	anchors map[reflect.Type]string
	titles  map[reflect.Type]string
	body    strings.Builder
}

// queue adds a struct type to the page (once), titled by the first path
// that reaches it.
func (r *refGen) queue(t reflect.Type, path string) string {
	if a, ok := r.anchors[t]; ok {
		return a
	}
	if r.titles == nil {
		r.titles = map[reflect.Type]string{}
	}
	title := fmt.Sprintf("%s (%s)", path, t.Name())
	r.titles[t] = title
	r.anchors[t] = refAnchor(title)
	r.order = append(r.order, t)
	return r.anchors[t]
}

// refAnchor is GitHub's anchor of a heading: lower case, spaces to '-',
// punctuation other than '-' and '_' dropped.
func refAnchor(h string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(h) {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'):
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (r *refGen) section(t reflect.Type) {
	si := infoOf(t)
	path := strings.TrimSuffix(r.titles[t], " ("+t.Name()+")")
	fmt.Fprintf(&r.body, "## %s\n\n", r.titles[t])
	if si.Discriminator == nil {
		r.table(si.Fields, path)
		return
	}
	d := si.Discriminator
	fmt.Fprintf(&r.body, "%s `%s` selects one of:\n\n", strings.TrimSuffix(d.Doc, "."), d.Key)
	for _, br := range si.Branches {
		fmt.Fprintf(&r.body, "- [`%s`](#%s): %s\n", br.Kind, refAnchor(path+" "+d.Key+" "+br.Kind), br.Doc)
	}
	r.body.WriteString("\n")
	var common []*fieldInfo
	for _, f := range si.Fields {
		if f.Key != d.Key {
			common = append(common, f)
		}
	}
	if len(common) > 0 {
		r.body.WriteString("Keys of every kind:\n\n")
		r.table(common, path)
	}
	for _, br := range si.Branches {
		fmt.Fprintf(&r.body, "### %s %s %s\n\n%s\n\n", path, d.Key, br.Kind, br.Doc)
		if fields := infoOf(br.Type).Fields; len(fields) > 0 {
			r.table(fields, path)
		} else {
			r.body.WriteString("No keys of its own.\n\n")
		}
	}
}

func (r *refGen) table(fields []*fieldInfo, path string) {
	r.body.WriteString("| key | type | default | allowed | description |\n|---|---|---|---|---|\n")
	for _, f := range fields {
		desc := f.Doc
		if f.Required {
			desc += " **Required** (or given by a sweep)."
		}
		def := ""
		if f.Default != "" {
			def = "`" + f.Default + "`"
		}
		fmt.Fprintf(&r.body, "| `%s` | %s | %s | %s | %s |\n", f.Key, r.typeName(f.Type, join(path, f.Key)), refCell(def), refCell(allowed(f)), refCell(strings.TrimSpace(desc)))
	}
	r.body.WriteString("\n")
}

// typeName says a key's type, linking to the section of a block.
func (r *refGen) typeName(t reflect.Type, path string) string {
	switch {
	case t == typeSweepAxes:
		return "mapping of path → values"
	case t == typeAnyMap:
		return "mapping of name → value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return r.typeName(t.Elem(), path)
	case reflect.Struct:
		return fmt.Sprintf("[%s](#%s)", t.Name(), r.queue(t, strings.TrimPrefix(path, "top level.")))
	case reflect.Slice:
		return "list of " + r.typeName(t.Elem(), path+"[i]")
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	}
	return t.Kind().String()
}

// allowed states a key's enum and range checks.
func allowed(f *fieldInfo) string {
	var parts []string
	if len(f.Enum) > 0 {
		parts = append(parts, "`"+strings.Join(f.Enum, "`, `")+"`")
	}
	for _, c := range f.Checks {
		switch c.Op {
		case "nonempty":
			parts = append(parts, "at least one item")
		case "name":
			parts = append(parts, "letters, digits, `-`, `_`, `.`")
		default:
			parts = append(parts, fmt.Sprintf("%s %s", c.Op, fmtNum(c.Bound)))
		}
	}
	if f.Min != "" {
		parts = append(parts, ">= "+f.Min)
	}
	return strings.Join(parts, "; ")
}

func refCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}
