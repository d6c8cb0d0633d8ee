package stages

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

func TestValuesRoundTripNonFinite(t *testing.T) {
	dir := t.TempDir()
	in := []Output{
		{"a", pipeline.Float64, math.Inf(1)},
		{"b", pipeline.Float64, math.NaN()},
		{"c", pipeline.Float64, 1.25},
		{"d", pipeline.Int64, int64(7)},
		{"e", pipeline.String, "x"},
		{"f", pipeline.Bool, true},
		{"g", pipeline.Float64, nil},
	}
	if err := WriteValues(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadValues(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(out[0].Value.(float64), 1) || !math.IsNaN(out[1].Value.(float64)) || out[2].Value != 1.25 ||
		out[3].Value != int64(7) || out[4].Value != "x" || out[5].Value != true || out[6].Value != nil {
		t.Fatalf("round trip: %+v", out)
	}
}

func TestParamColumnTypes(t *testing.T) {
	cases := []struct {
		in   []any
		typ  pipeline.ColType
		want []any
	}{
		{[]any{int64(1), int64(2)}, pipeline.Int64, []any{int64(1), int64(2)}},
		{[]any{int64(1), 2.5}, pipeline.Float64, []any{1.0, 2.5}},
		{[]any{"a", nil}, pipeline.String, []any{"a", nil}},
		{[]any{true, false}, pipeline.Bool, []any{true, false}},
		{[]any{[]any{int64(1)}, "a"}, pipeline.String, []any{"[1]", `"a"`}},
	}
	for _, c := range cases {
		typ, got := paramColumn(c.in)
		if typ != c.typ {
			t.Fatalf("%v: type %s, want %s", c.in, typ, c.typ)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%v: got %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func TestCalibrateIsMemoisedAndFlushed(t *testing.T) {
	store := pipeline.NewStore(filepath.Join(t.TempDir(), "store"))
	f := Functions(NewMemo(store))
	a, err := f["calibrate"](4.0, 1e-5, 0.01, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var cached float64
	if store.MemoGet("calibrate", []any{"best", 4.0, 1e-5, 0.01, 1000.0}, &cached) {
		t.Fatal("memo written before Flush")
	}
	m := NewMemo(store)
	f = Functions(m)
	f["calibrate"](4.0, 1e-5, 0.01, 1000)
	if err := m.Flush(); err != nil {
		t.Fatal(err)
	}
	if !store.MemoGet("calibrate", []any{"best", 4.0, 1e-5, 0.01, 1000.0}, &cached) || cached != a.(float64) {
		t.Fatalf("memo after Flush: %v vs %v", cached, a)
	}
	// ε of the calibrated σ is the target (best, the default accountant; relative tolerance 1e-6 on σ).
	e, err := f["epsilon"](a, 0.01, 1000, 1e-5)
	if err != nil || math.Abs(e.(float64)-4) > 1e-3 {
		t.Fatalf("epsilon(calibrate(4)) = %v, %v", e, err)
	}
	if _, err := f["calibrate"](4.0, 1e-5, 0.01, 10.5); err == nil {
		t.Fatal("fractional steps accepted")
	}
	if _, err := f["epsilon"](1.0, 0.01, 100, 1e-5, "moments"); err == nil {
		t.Fatal("unknown accountant accepted")
	}
}

func TestColumnClashIsAnError(t *testing.T) {
	if err := checkClashes([]string{"epsilon_pld", "epsilon_pld"}, nil); err == nil {
		t.Fatal("duplicate outputs accepted")
	}
}
