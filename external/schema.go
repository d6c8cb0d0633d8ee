package external

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// RequestSchema is the JSON Schema of request.json, generated from the
// Request type and its doc tags (schemas/external-request.schema.json is
// this, checked by a test).
func RequestSchema() ([]byte, error) {
	s := schemaOf(reflect.TypeOf(Request{}))
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = "dpaudit external-trainer request, protocol version " + strconv.Itoa(Version)
	return json.MarshalIndent(s, "", "  ")
}

// HyperparametersSchema is the JSON Schema of hyperparameters.json.
func HyperparametersSchema() map[string]any { return schemaOf(reflect.TypeOf(Hyperparameters{})) }

func schemaOf(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object"}
	}
	props := map[string]any{}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		p := schemaOf(f.Type)
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		props[name] = p
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}
