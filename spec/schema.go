package spec

import (
	"encoding/json"
	"reflect"
	"strings"
)

// SchemaID is where the checked-in schema lives in the repository.
const SchemaID = "https://github.com/dpaudit/dpaudit/schemas/experiment.schema.json"

// JSONSchema returns the JSON Schema (draft-07) of the spec language,
// generated from the Go types so that it cannot drift from the decoder.
// Editors' YAML plugins use it for completion and checking.
//
// Two rules of the language cannot be said in the schema and are left to
// the validator: keys that a sweep provides may be absent from their block
// (so the schema marks no key required except name and the kind selectors),
// and any scalar may be an expression, a string starting with '='.
func JSONSchema() []byte {
	g := &schemaGen{defs: map[string]any{}}
	root := g.structSchema(typeExperiment)
	root["$schema"] = "http://json-schema.org/draft-07/schema#"
	root["$id"] = SchemaID
	root["title"] = "dpaudit experiment spec"
	root["required"] = []string{"name"}
	g.defs["expression"] = map[string]any{
		"type":        "string",
		"pattern":     "^=",
		"description": "An expression (expr-lang), evaluated per sweep point: '=calibrate(target_epsilon, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)'.",
	}
	g.defs["sweepValues"] = map[string]any{
		"description": "Values of a swept key: a list, or {linspace: [start, stop, count]}, or {logspace: [start, stop, count]} (geometric spacing between the two positive endpoint values).",
		"anyOf": []any{
			map[string]any{"type": "array", "minItems": 1},
			rangeSchema("linspace"),
			rangeSchema("logspace"),
		},
	}
	g.defs["sweepAxes"] = map[string]any{
		"type":                 "object",
		"description":          "Swept keys: spec paths like dpsgd.noise_multiplier or bound[0].pld_interval, or names declared under vars.",
		"propertyNames":        map[string]any{"pattern": `^[A-Za-z_][A-Za-z0-9_-]*(\[[0-9]+\])*(\.[A-Za-z_][A-Za-z0-9_-]*(\[[0-9]+\])*)*$`},
		"additionalProperties": map[string]any{"$ref": "#/definitions/sweepValues"},
	}
	root["definitions"] = g.defs
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func rangeSchema(kind string) map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{kind},
		"properties": map[string]any{
			kind: map[string]any{
				"type":     "array",
				"items":    []any{map[string]any{"type": "number"}, map[string]any{"type": "number"}, map[string]any{"type": "integer", "minimum": 1}},
				"minItems": 3, "maxItems": 3,
			},
		},
	}
}

type schemaGen struct {
	defs map[string]any
}

func defRef(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }

func exprOr(s map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{s, defRef("expression")}}
}

// structSchema describes a struct type inline (used for the root).
func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	si := infoOf(t)
	props := map[string]any{}
	for _, f := range si.Fields {
		props[f.Key] = g.fieldSchema(f)
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
}

// defFor returns a $ref to the definition of a struct type, creating it.
func (g *schemaGen) defFor(t reflect.Type) map[string]any {
	name := t.Name()
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = true // placeholder against recursion
		si := infoOf(t)
		if si.Discriminator == nil {
			g.defs[name] = g.structSchema(t)
		} else {
			g.defs[name] = g.unionSchema(si)
		}
	}
	return defRef(name)
}

func (g *schemaGen) unionSchema(si *structInfo) map[string]any {
	disc := si.Discriminator.Key
	var branches []any
	for _, br := range si.Branches {
		props := map[string]any{disc: map[string]any{"const": br.Kind, "description": br.Doc}}
		for _, f := range si.Fields {
			if f.Key != disc {
				props[f.Key] = g.fieldSchema(f)
			}
		}
		for _, f := range infoOf(br.Type).Fields {
			props[f.Key] = g.fieldSchema(f)
		}
		branches = append(branches, map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{disc}, "properties": props,
			"description": br.Doc,
		})
	}
	return map[string]any{
		"type":     "object",
		"required": []string{disc},
		"properties": map[string]any{
			disc: map[string]any{"enum": si.kinds(), "description": si.Discriminator.Doc},
		},
		"oneOf": branches,
	}
}

func (g *schemaGen) fieldSchema(f *fieldInfo) map[string]any {
	s := g.typeSchema(f.Type, f)
	desc := f.Doc
	if f.Required {
		desc += " Required (may be given by a sweep)."
	}
	if desc != "" {
		s["description"] = strings.TrimSpace(desc)
	}
	if f.Default != "" {
		if n := defaultNode(f.Default); n != nil {
			s["default"] = n.Interface()
		}
	}
	return s
}

func (g *schemaGen) typeSchema(t reflect.Type, f *fieldInfo) map[string]any {
	switch {
	case t == typeSweepAxes:
		return defRef("sweepAxes")
	case t == typeAnyMap:
		return map[string]any{
			"type":          "object",
			"propertyNames": map[string]any{"pattern": identRE.String()},
			"additionalProperties": map[string]any{
				"type": []string{"number", "string", "boolean", "array"},
			},
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"allOf": []any{g.defFor(t.Elem())}}
	case reflect.Struct:
		return map[string]any{"allOf": []any{g.defFor(t)}}
	case reflect.Slice:
		arr := map[string]any{"type": "array", "items": g.typeSchema(t.Elem(), f)}
		if f != nil {
			for _, c := range f.Checks {
				if c.Op == "nonempty" {
					arr["minItems"] = 1
				}
			}
		}
		if t.Elem().Kind() == reflect.Struct {
			return arr
		}
		return exprOr(arr)
	case reflect.String:
		s := map[string]any{"type": "string"}
		if f != nil && len(f.Enum) > 0 {
			s["enum"] = f.Enum
		}
		if f != nil {
			for _, c := range f.Checks {
				if c.Op == "name" {
					s["pattern"] = nameRE.String()
				}
			}
		}
		return exprOr(s)
	case reflect.Bool:
		return exprOr(map[string]any{"type": "boolean"})
	case reflect.Int, reflect.Int64:
		return exprOr(numberSchema("integer", f))
	case reflect.Float64:
		return exprOr(numberSchema("number", f))
	}
	return map[string]any{}
}

func numberSchema(typ string, f *fieldInfo) map[string]any {
	s := map[string]any{"type": typ}
	if f == nil {
		return s
	}
	if f.Min != "" {
		s["minimum"] = mustFloat(f.Min)
	}
	for _, c := range f.Checks {
		switch c.Op {
		case ">":
			s["exclusiveMinimum"] = c.Bound
		case ">=":
			s["minimum"] = c.Bound
		case "<":
			s["exclusiveMaximum"] = c.Bound
		case "<=":
			s["maximum"] = c.Bound
		}
	}
	return s
}
