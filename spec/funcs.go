package spec

import (
	"fmt"
	"math"
)

// MathFunctions returns the pure math functions every spec may call:
// log, exp, sqrt, pow, log10, log2, log1p, expm1. (ceil, floor, round,
// abs, min and max are expr-lang builtins.) Callers add domain functions
// such as calibrate and epsilon to this map.
func MathFunctions() map[string]Func {
	unary := func(name string, f func(float64) float64) Func {
		return func(args ...any) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("%s takes 1 argument, got %d", name, len(args))
			}
			x, err := ToFloat(args[0])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			y := f(x)
			if math.IsNaN(y) {
				return nil, fmt.Errorf("%s(%v) is undefined", name, x)
			}
			return y, nil
		}
	}
	return map[string]Func{
		"log":   unary("log", math.Log),
		"exp":   unary("exp", math.Exp),
		"sqrt":  unary("sqrt", math.Sqrt),
		"log10": unary("log10", math.Log10),
		"log2":  unary("log2", math.Log2),
		"log1p": unary("log1p", math.Log1p),
		"expm1": unary("expm1", math.Expm1),
		"pow": func(args ...any) (any, error) {
			if len(args) != 2 {
				return nil, fmt.Errorf("pow takes 2 arguments, got %d", len(args))
			}
			x, err := ToFloat(args[0])
			if err != nil {
				return nil, fmt.Errorf("pow: %v", err)
			}
			y, err := ToFloat(args[1])
			if err != nil {
				return nil, fmt.Errorf("pow: %v", err)
			}
			return math.Pow(x, y), nil
		},
	}
}
