package spec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// calibrateStub stands in for the caller's calibrate function.
func testFuncs() map[string]Func {
	f := MathFunctions()
	f["calibrate"] = func(args ...any) (any, error) {
		eps, err := ToFloat(args[0])
		if err != nil {
			return nil, err
		}
		return 10 / eps, nil
	}
	return f
}

func parse(t *testing.T, src string, o Options) (*Spec, error) {
	t.Helper()
	if o.Functions == nil {
		o.Functions = testFuncs()
	}
	return Parse("quick.yaml", []byte(src), o)
}

func expand(t *testing.T, src string, o Options) ([]Point, []Column, error) {
	t.Helper()
	s, err := parse(t, src, o)
	if err != nil {
		return nil, nil, err
	}
	return s.Expand()
}

func mustErr(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error containing %q, got none", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not contain %q", err, w)
		}
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not spec.Errors", err)
	}
}

const base = `name: quick
dpsgd:
  noise_multiplier: 1.1
  sampling_rate: 0.01
  steps: 100
bound:
  - kind: accountant
`

func TestMinimalSpecDefaults(t *testing.T) {
	pts, cols, err := expand(t, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || len(cols) != 0 {
		t.Fatalf("got %d points, %d columns", len(pts), len(cols))
	}
	d := pts[0].Exp.DPSGD
	if d.Delta != 1e-5 || d.ClipNorm != 1 || d.Sampling != "poisson" {
		t.Fatalf("defaults not applied: %+v", d)
	}
	acc := pts[0].Exp.Bound[0].Accountant
	if acc == nil || strings.Join(acc.Accountants, ",") != "rdp,pld,gdp" || acc.PLDInterval != 1e-4 || acc.Conversion != "improved" {
		t.Fatalf("accountant defaults: %+v", acc)
	}
}

func TestPositionedErrorFormat(t *testing.T) {
	src := "name: quick\ndpsgd:\n  noise_multiplier: -1\n  sampling_rate: 0.01\n  steps: 100\n"
	_, _, err := expand(t, src, Options{})
	mustErr(t, err, "quick.yaml:3:21: dpsgd.noise_multiplier: must be > 0, got -1")
}

func TestAllErrorsReportedTogether(t *testing.T) {
	src := `name: quick
dpsgd:
  noise_multiplier: 0
  sampling_rate: 1.5
  steps: 0
  delta: 1
  colour: red
bound:
  - kind: acountant
`
	_, err := parse(t, src, Options{})
	mustErr(t, err,
		"quick.yaml:3:21: dpsgd.noise_multiplier: must be > 0, got 0",
		"quick.yaml:4:18: dpsgd.sampling_rate: must be <= 1, got 1.5",
		"quick.yaml:5:10: dpsgd.steps: must be >= 1, got 0",
		"quick.yaml:6:10: dpsgd.delta: must be < 1, got 1",
		"quick.yaml:7:3: dpsgd.colour: unknown key",
		`quick.yaml:9:11: bound[0].kind: unknown kind "acountant"; did you mean "accountant"?`)
	if n := strings.Count(err.Error(), "\n") + 1; n != 6 {
		t.Fatalf("want 6 errors, got %d:\n%v", n, err)
	}
}

func TestWrongTypes(t *testing.T) {
	src := "name: quick\nseed: abc\ndpsgd:\n  noise_multiplier: [1]\n  sampling_rate: 0.1\n  steps: 2.5\n"
	_, err := parse(t, src, Options{})
	mustErr(t, err, "seed: expected an integer, got the string \"abc\"", "dpsgd.noise_multiplier: expected a number, got a list", "dpsgd.steps: expected an integer, got 2.5")
}

func TestMissingRequired(t *testing.T) {
	_, err := parse(t, "name: quick\ndpsgd:\n  sampling_rate: 0.1\n", Options{})
	mustErr(t, err, "dpsgd.noise_multiplier: missing (required)", "dpsgd.steps: missing (required)")
	_, err = parse(t, "dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\n", Options{})
	mustErr(t, err, "name: missing (required)")
}

func TestMalformedYAML(t *testing.T) {
	_, err := parse(t, "name: quick\ndpsgd: {noise_multiplier: 1\n", Options{})
	mustErr(t, err, "malformed YAML")
	_, err = parse(t, "", Options{})
	mustErr(t, err, "empty")
	_, err = parse(t, "- 1\n- 2\n", Options{})
	mustErr(t, err, "must be a mapping")
	_, err = parse(t, "name: a\nname: b\n", Options{})
	mustErr(t, err, "duplicate key")
}

func TestAliasBombRefused(t *testing.T) {
	// The classic "billion laughs": nine levels of ten aliases each.
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	_, err := parse(t, b.String(), Options{})
	mustErr(t, err, "alias bomb")
}

func TestAliasesWithinBudgetWork(t *testing.T) {
	src := "name: quick\nvars:\n  e: &e 4\n  f: *e\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\nbound: [{kind: accountant}]\n"
	pts, _, err := expand(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Exp.Vars["f"] != int64(4) {
		t.Fatalf("alias not expanded: %v", pts[0].Exp.Vars)
	}
}

func TestGridZipAndRanges(t *testing.T) {
	src := base + `vars:
  target: 1
sweep:
  grid:
    dpsgd.noise_multiplier: [0.5, 1.0]
    target: {linspace: [1, 3, 3]}
  zip:
    dpsgd.steps: [10, 20]
    dpsgd.sampling_rate: {logspace: [0.001, 0.1, 2]}
`
	pts, cols, err := expand(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2*3*2 {
		t.Fatalf("want 12 points, got %d", len(pts))
	}
	// First key outermost, zip innermost.
	p := pts[1].Exp
	if p.DPSGD.NoiseMultiplier != 0.5 || p.Vars["target"] != 1.0 || p.DPSGD.Steps != 20 || p.DPSGD.SamplingRate != 0.1 {
		t.Fatalf("point 1 = %+v vars %v", p.DPSGD, p.Vars)
	}
	if pts[11].Exp.DPSGD.NoiseMultiplier != 1.0 || pts[11].Exp.Vars["target"] != 3.0 {
		t.Fatalf("last point wrong: %+v", pts[11].Exp.DPSGD)
	}
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "noise_multiplier,target,steps,sampling_rate" {
		t.Fatalf("columns %s", got)
	}
	ids := map[string]bool{}
	for _, pt := range pts {
		ids[pt.ID] = true
	}
	if len(ids) != len(pts) {
		t.Fatal("point IDs are not distinct")
	}
}

func TestZipLengthMismatch(t *testing.T) {
	src := base + "sweep:\n  zip:\n    dpsgd.steps: [1, 2]\n    dpsgd.noise_multiplier: [1, 2, 3]\n"
	_, err := parse(t, src, Options{})
	mustErr(t, err, "zip lists must have the same length")
}

func TestUnknownSweepKey(t *testing.T) {
	src := base + "sweep:\n  grid:\n    dpsgd.noise_multplier: [1, 2]\n    epsilon: [1]\n"
	_, err := parse(t, src, Options{})
	mustErr(t, err, `did you mean "noise_multiplier"?`, "sweep.grid.epsilon: unknown sweep key")
}

func TestExpressionsDerivedInDependencyOrder(t *testing.T) {
	src := `name: quick
vars:
  target_epsilon: 2
  steps_per_epoch: "=ceil(1 / dpsgd.sampling_rate)"
dpsgd:
  noise_multiplier: "=calibrate(target_epsilon, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)"
  sampling_rate: 0.01
  steps: "=steps_per_epoch * 3"
bound: [{kind: accountant}]
sweep:
  grid: {target_epsilon: [1, 4]}
`
	pts, cols, err := expand(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Exp.DPSGD.NoiseMultiplier != 10 || pts[1].Exp.DPSGD.NoiseMultiplier != 2.5 {
		t.Fatalf("calibrate not applied: %v %v", pts[0].Exp.DPSGD.NoiseMultiplier, pts[1].Exp.DPSGD.NoiseMultiplier)
	}
	if pts[0].Exp.DPSGD.Steps != 300 {
		t.Fatalf("steps = %d", pts[0].Exp.DPSGD.Steps)
	}
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "target_epsilon,noise_multiplier,steps,steps_per_epoch" {
		t.Fatalf("columns %s", got)
	}
}

func TestExpressionErrors(t *testing.T) {
	cases := map[string][]string{
		"noise_multiplier: \"=1 +\"":                    {"dpsgd.noise_multiplier: expression \"1 +\" does not compile"},
		"noise_multiplier: \"=sigma * 2\"":              {`unknown name "sigma"`},
		"noise_multiplier: \"=dpsgd.dleta * 2\"":        {`unknown name dpsgd.dleta`, `did you mean "delta"?`},
		"noise_multiplier: \"=1 / 0\"":                  {"evaluates to +Inf (division by zero?)"},
		"noise_multiplier: \"=frobnicate(2)\"":          {`unknown function "frobnicate"`},
		"noise_multiplier: \"=dpsgd.noise_multiplier\"": {"reads its own value"},
		"noise_multiplier: \"=log(-1)\"":                {"log(-1) is undefined"},
	}
	for line, wants := range cases {
		src := "name: quick\ndpsgd:\n  " + line + "\n  sampling_rate: 0.01\n  steps: 100\n"
		_, _, err := expand(t, src, Options{})
		mustErr(t, err, append(wants, "quick.yaml:3:")...)
	}
}

func TestExpressionCycle(t *testing.T) {
	src := "name: quick\nvars:\n  a: \"=b + 1\"\n  b: \"=a * 2\"\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\n"
	_, _, err := expand(t, src, Options{})
	mustErr(t, err, "cycle", "vars.a", "vars.b")
}

func TestIntegerFieldFromExpression(t *testing.T) {
	src := "name: quick\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: \"=10 / 4\"}\n"
	_, _, err := expand(t, src, Options{})
	mustErr(t, err, "dpsgd.steps: expected an integer, got 2.5 (use ceil() or floor()")
}

func TestWhereFilter(t *testing.T) {
	src := base + "sweep:\n  grid:\n    dpsgd.noise_multiplier: [0.5, 1, 2]\n    dpsgd.steps: [10, 100]\n  where: dpsgd.noise_multiplier * dpsgd.steps > 20\n"
	pts, _, err := expand(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3 { // (0.5,100) (1,100) (2,100); (2,10) gives 20, not > 20
		for _, p := range pts {
			t.Log(p.Exp.DPSGD.NoiseMultiplier, p.Exp.DPSGD.Steps)
		}
		t.Fatalf("want 3 points, got %d", len(pts))
	}
}

func TestEmptySweepAfterWhere(t *testing.T) {
	src := base + "sweep:\n  grid:\n    dpsgd.steps: [10, 100]\n  where: \"=dpsgd.steps > 1000\"\n"
	_, _, err := expand(t, src, Options{})
	mustErr(t, err, "no point is left after the where filter")
}

func TestSweepLimit(t *testing.T) {
	src := base + "sweep:\n  grid:\n    dpsgd.steps: {linspace: [1, 1000, 1000]}\n    dpsgd.noise_multiplier: {linspace: [1, 2, 1000]}\n"
	_, err := parse(t, src, Options{})
	mustErr(t, err, "expands to 1000000 points", "--allow-large")
	if _, err := parse(t, src, Options{AllowLarge: true}); err != nil {
		t.Fatal(err)
	}
	_, err = parse(t, src, Options{MaxPoints: 10})
	mustErr(t, err, "more than the limit of 10")
}

func TestNotImplemented(t *testing.T) {
	src := base + "model: {arch: cnn}\n"
	_, err := parse(t, src, Options{Implemented: func(block, kind string) bool { return block != "model" }})
	mustErr(t, err, `model.arch: arch "cnn" is not implemented yet`)
	_, err = parse(t, base+"audit: {trials: 10}\n", Options{Implemented: func(block, kind string) bool { return block != "audit" }})
	mustErr(t, err, "the audit block is not implemented yet")
}

func TestLogspaceEndpointsExact(t *testing.T) {
	vals := []float64{spaced("logspace", 1e-3, 1, 4, 0), spaced("logspace", 1e-3, 1, 4, 1), spaced("logspace", 1e-3, 1, 4, 3)}
	if vals[0] != 1e-3 || vals[1] != 1e-2 || vals[2] != 1 {
		t.Fatalf("logspace values %v", vals)
	}
	src := base + "sweep:\n  grid:\n    dpsgd.sampling_rate: {logspace: [-3, 0, 4]}\n"
	_, err := parse(t, src, Options{})
	mustErr(t, err, "numpy.geomspace")
}

// TestExpressionErrorsWithStructuralOnes: expression errors (bad syntax,
// unknown function, unknown name) are reported with the structural ones in
// one pass, not only once the structural errors are fixed.
func TestExpressionErrorsWithStructuralOnes(t *testing.T) {
	src := `name: quick
vars:
  k: "=ceil("
dpsgd:
  noise_multiplier: "=calibrat(4, 1e-5, 0.01, 100)"
  sampling_rate: 1.5
  steps: "=dpsgd.stps * 2"
  learning_rate: "=sigma"
  colour: red
sweep:
  grid: {dpsgd.delta: [1e-5, 1e-6]}
  where: "dpsgd.delta <"
`
	_, err := parse(t, src, Options{})
	mustErr(t, err,
		`quick.yaml:3:6: vars.k: expression "ceil(" does not compile`,
		`quick.yaml:5:21: dpsgd.noise_multiplier: expression "calibrat(4, 1e-5, 0.01, 100)" unknown function "calibrat"; did you mean "calibrate"?`,
		"quick.yaml:6:18: dpsgd.sampling_rate: must be <= 1, got 1.5",
		`quick.yaml:7:10: dpsgd.steps: expression "dpsgd.stps * 2": unknown name dpsgd.stps`,
		`quick.yaml:8:18: dpsgd.learning_rate: expression "sigma": unknown name "sigma"`,
		"quick.yaml:9:3: dpsgd.colour: unknown key",
		`sweep.where: expression "dpsgd.delta <" does not compile`)
	if n := strings.Count(err.Error(), "\n") + 1; n != 7 {
		t.Fatalf("want 7 errors, got %d:\n%v", n, err)
	}
	// Reading a swept key, a variable or a default is no error.
	ok := base + "vars: {v: 2}\nsweep:\n  grid: {dpsgd.steps: [10, 20]}\n  where: dpsgd.steps > 10\n"
	ok = strings.Replace(ok, "noise_multiplier: 1.1", `noise_multiplier: "=v * dpsgd.steps / dpsgd.steps + dpsgd.delta"`, 1)
	if _, _, err := expand(t, ok, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestNaNNamesItsPath: a NaN literal names the spec path
// it sits at, in a map and in a list; ±Inf where a finite value is needed
// too.
func TestNaNNamesItsPath(t *testing.T) {
	_, err := parse(t, "name: quick\nvars: {b: [1, .nan]}\ndpsgd: {noise_multiplier: .NaN, sampling_rate: 0.1, steps: 3}\n", Options{})
	mustErr(t, err, "quick.yaml:2:15: vars.b[1]: NaN is not a valid value",
		"quick.yaml:3:27: dpsgd.noise_multiplier: NaN is not a valid value")
	_, err = parse(t, "name: quick\ndpsgd: {noise_multiplier: 1, sampling_rate: .inf, steps: .inf}\n", Options{})
	mustErr(t, err, "dpsgd.sampling_rate: must be <= 1, got +Inf", "dpsgd.steps: expected an integer, got +Inf")
}
