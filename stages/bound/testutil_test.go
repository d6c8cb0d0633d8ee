package bound

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// boundOutputs runs one bound entry through BoundValues (the same stages
// a spec compiles to) and returns its outputs by column name.
func boundOutputs(t *testing.T, entry spec.Bound, d *spec.DPSGD, seed int64) map[string]any {
	t.Helper()
	outs, err := Values(entry, d, seed)
	if err != nil {
		t.Fatalf("%s: %v", entry.Kind, err)
	}
	m := map[string]any{}
	for _, o := range outs {
		if _, dup := m[o.Name]; dup {
			t.Fatalf("%s: column %s written twice", entry.Kind, o.Name)
		}
		m[o.Name] = o.Value
	}
	return m
}

// col returns a float column of boundOutputs, failing if it is missing.
func col(t *testing.T, outs map[string]any, name string) float64 {
	t.Helper()
	v, ok := outs[name].(float64)
	if !ok {
		t.Fatalf("column %s = %v (%T), want a float64", name, outs[name], outs[name])
	}
	return v
}

// nearAbs fails unless |got − want| ≤ tol.
func nearAbs(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.10g, want %.10g ± %.3g (off by %.3g)", what, got, want, tol, got-want)
	}
}

// nearRel fails unless |got − want| ≤ rel·|want|.
func nearRel(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g (relative tolerance %.1g)", what, got, want, rel)
	}
}

// dpsgd is a DP-SGD block with hard clipping.
func dpsgd(sigma, q float64, steps int, delta float64) *spec.DPSGD {
	return &spec.DPSGD{NoiseMultiplier: sigma, SamplingRate: q, Steps: steps, Delta: delta, Clip: "hard"}
}

// rero is a rero entry with the spec's defaults.
func reroEntry(priorSize int, kappa float64, method string, compare ...string) spec.Bound {
	return spec.Bound{Kind: "rero", Rero: &spec.ReroBound{PriorSize: priorSize, Kappa: kappa, Method: method,
		Samples: 1_000_000, Confidence: 0.999, Tolerance: 1e-3, Compare: compare}}
}

// nodeOf compiles exp as point index of a one-point spec with only this
// game and returns its first node of the kind.
func nodeOf(t *testing.T, exp *spec.Experiment, index int, kind string) *pipeline.Node {
	t.Helper()
	c, err := stages.Compile([]*stages.Game{Game}, "x", []spec.Point{{Index: index, Exp: exp}}, nil, stages.Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Graph.Nodes() {
		if n.Kind == kind {
			return n
		}
	}
	t.Fatalf("no %s node", kind)
	return nil
}
