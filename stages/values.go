package stages

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dpaudit/dpaudit/pipeline"
)

// valuesFile holds a point stage's outputs in its store directory.
const valuesFile = "values.json"

// wireOutput is the JSON form of an Output. Non-finite floats, which JSON
// cannot hold, are written as the strings "+Inf", "-Inf" and "NaN".
type wireOutput struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// WriteValues writes a node's outputs (the columns it adds to its point's
// summary row) into dir's values.json.
func WriteValues(dir string, outs []Output) error {
	wire := make([]wireOutput, len(outs))
	for i, o := range outs {
		var raw []byte
		var err error
		if f, ok := o.Value.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			raw, err = json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
		} else {
			raw, err = json.Marshal(o.Value)
		}
		if err != nil {
			return err
		}
		wire[i] = wireOutput{Name: o.Name, Type: o.Type.String(), Value: raw}
	}
	b, err := json.MarshalIndent(wire, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, valuesFile), b, 0o644)
}

// ReadValues reads the outputs WriteValues wrote into dir.
func ReadValues(dir string) ([]Output, error) {
	b, err := os.ReadFile(filepath.Join(dir, valuesFile))
	if err != nil {
		return nil, err
	}
	var wire []wireOutput
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	outs := make([]Output, len(wire))
	for i, w := range wire {
		o := Output{Name: w.Name}
		isNull := string(w.Value) == "null"
		switch w.Type {
		case "float64":
			o.Type = pipeline.Float64
			var s string
			if isNull {
				break
			}
			if json.Unmarshal(w.Value, &s) == nil {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, err
				}
				o.Value = f
			} else {
				var f float64
				if err := json.Unmarshal(w.Value, &f); err != nil {
					return nil, err
				}
				o.Value = f
			}
		case "int64":
			o.Type = pipeline.Int64
			if !isNull {
				var v int64
				if err := json.Unmarshal(w.Value, &v); err != nil {
					return nil, err
				}
				o.Value = v
			}
		case "string":
			o.Type = pipeline.String
			if !isNull {
				var v string
				if err := json.Unmarshal(w.Value, &v); err != nil {
					return nil, err
				}
				o.Value = v
			}
		case "bool":
			o.Type = pipeline.Bool
			if !isNull {
				var v bool
				if err := json.Unmarshal(w.Value, &v); err != nil {
					return nil, err
				}
				o.Value = v
			}
		default:
			return nil, fmt.Errorf("%s: unknown value type %q", dir, w.Type)
		}
		outs[i] = o
	}
	return outs, nil
}

// F64, Int, Str and Bool are outputs of type float64, int64, string and
// bool; v is a value of that type, or nil for a null cell.
func F64(name string, v any) Output { return Output{name, pipeline.Float64, v} }

// Int is an int64 output (see F64).
func Int(name string, v any) Output { return Output{name, pipeline.Int64, v} }

// Str is a string output (see F64).
func Str(name string, v any) Output { return Output{name, pipeline.String, v} }

// Bool is a bool output (see F64).
func Bool(name string, v any) Output { return Output{name, pipeline.Bool, v} }

// Typed is an output whose type is its value's Go type: int64, string
// and bool as such, anything else float64.
func Typed(name string, v any) Output {
	switch v.(type) {
	case int64:
		return Int(name, v)
	case string:
		return Str(name, v)
	case bool:
		return Bool(name, v)
	}
	return F64(name, v)
}

// OrNull maps NaN, which says "no value", to a null cell.
func OrNull(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}
