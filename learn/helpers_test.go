package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// randomData returns n records of d features uniform in [−1, 1] and labels
// uniform in 0…classes−1, from the stream rng.New(seed, "test/data").
func randomData(seed uint64, n, d, classes int) ([]float32, []int32) {
	r := rng.New(seed, "test/data")
	X := make([]float32, n*d)
	for i := range X {
		X[i] = float32(2*r.Float64() - 1)
	}
	Y := make([]int32, n)
	for i := range Y {
		Y[i] = int32(r.IntN(classes))
	}
	return X, Y
}

func mustModel(t testing.TB, a Arch, in []int, classes int, seed uint64) *Model {
	t.Helper()
	m, err := NewModel(a, in, classes, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustTrain(t testing.TB, m *Model, X []float32, Y []int32, cfg DPSGD, r *rand.Rand, h *Hooks) *Result {
	t.Helper()
	res, err := Train(m, X, Y, cfg, r, h)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// exampleLoss returns the loss of one record under m's current parameters.
func exampleLoss(t testing.TB, m *Model, x []float32, y int32) float64 {
	t.Helper()
	out := make([]float64, 1)
	if err := m.PerExampleLoss(x, []int32{y}, out); err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// closeTo reports |got − want| ≤ abs + rel·|want|.
func closeTo(got, want, abs, rel float64) bool {
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}
