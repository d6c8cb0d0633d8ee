package spec

import (
	"reflect"
)

// ToValue turns a decoded spec value back into plain values keyed as in
// the spec (snake_case keys, a union's branch keys beside its
// discriminator), leaving out empty values. The result marshals to JSON
// that is also valid YAML for the same block, so a block recorded in a
// manifest can be decoded again with the same checks.
func ToValue(v any) any { return toValue(reflect.ValueOf(v)) }

func toValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return toValue(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(SweepAxis{}) {
			return nil
		}
		si := infoOf(v.Type())
		m := map[string]any{}
		for _, fi := range si.Fields {
			if x := toValue(v.FieldByIndex(fi.Index)); !empty(x) {
				m[fi.Key] = x
			}
		}
		for _, br := range si.Branches {
			bv := v.FieldByIndex(br.Index)
			if bv.IsNil() {
				continue
			}
			if bm, ok := toValue(bv).(map[string]any); ok {
				for k, x := range bm {
					m[k] = x
				}
			}
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[k.String()] = toValue(v.MapIndex(k))
		}
		return m
	}
	return v.Interface()
}

func empty(x any) bool {
	switch y := x.(type) {
	case nil:
		return true
	case string:
		return y == ""
	case map[string]any:
		return len(y) == 0
	case []any:
		return len(y) == 0
	}
	return false
}
