package dpaudit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
)

const digitsSpec = `name: digits
seed: 5
dataset: {source: digits}
model: {arch: mlp, hidden: [16], activation: tanh}
dpsgd:
  noise_multiplier: 1.0
  sampling_rate: 0.05
  steps: 200
  learning_rate: 0.5
train: {runs: 3}
sweep:
  grid:
    dpsgd.noise_multiplier: [0.8, 4.0]
`

// Training runs end to end from a spec; the summary does not depend on the
// number of workers; more noise costs accuracy.
func TestTrainDigitsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "digits.yaml", digitsSpec)
	var sums [][]byte
	for _, jobs := range []int{1, 2} {
		o := Options{Store: filepath.Join(dir, "store", string(rune('a'+jobs))), Results: filepath.Join(dir, "results", string(rune('a'+jobs))), Jobs: jobs}
		p, res := runSpec(t, path, o)
		if run, _ := pipeline.Counts(p.Steps); run != 2*3+2+1 {
			t.Fatalf("%d nodes run, want 6 runs + 2 aggregates + summary", run)
		}
		b, err := os.ReadFile(res.Summary)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, b)
		tb, err := pipeline.ReadParquet(res.Summary)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"runs", "test_accuracy", "test_accuracy_lo", "test_accuracy_hi", "train_loss", "train_seconds", "epsilon", "matches_accountant"} {
			if tb.Col(c) == nil {
				t.Fatalf("no column %s", c)
			}
		}
		lowNoise, highNoise := tb.Col("test_accuracy").Float(0), tb.Col("test_accuracy").Float(1)
		// sklearn digits, 10 classes: chance is 0.1; a 16-unit MLP with
		// σ = 0.8 for 200 steps of q = 0.05 reaches well above 0.7.
		if !(lowNoise > 0.7 && lowNoise > highNoise) {
			t.Fatalf("accuracy σ=0.8: %v, σ=4: %v", lowNoise, highNoise)
		}
		if lo, hi := tb.Col("test_accuracy_lo").Float(0), tb.Col("test_accuracy_hi").Float(0); !(lo <= lowNoise && lowNoise <= hi) {
			t.Fatalf("interval [%v, %v] does not hold the mean %v", lo, hi, lowNoise)
		}
		if tb.Col("matches_accountant").Values[0] != true {
			t.Fatal("Poisson + hard clip must match the accountant")
		}
	}
	// train_seconds is the only timing column; equal bytes would need equal
	// wall times, so compare the tables without it.
	a, _ := readWithout(t, sums[0], "train_seconds")
	b, _ := readWithout(t, sums[1], "train_seconds")
	if !bytes.Equal(a, b) {
		t.Fatal("the summary depends on -j")
	}
}

// readWithout rewrites a Parquet table without the named columns, so two
// tables can be compared apart from timing.
func readWithout(t *testing.T, data []byte, drop ...string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	os.WriteFile(in, data, 0o644)
	tb, err := pipeline.ReadParquet(in)
	if err != nil {
		t.Fatal(err)
	}
	out := &pipeline.Table{}
	for _, c := range tb.Columns {
		keep := true
		for _, d := range drop {
			keep = keep && c.Name != d
		}
		if keep {
			out.Add(c.Name, c.Type, c.Values)
		}
	}
	p := filepath.Join(dir, "out.parquet")
	if err := pipeline.WriteParquet(p, out); err != nil {
		t.Fatal(err)
	}
	return os.ReadFile(p)
}

// Sanity check of training: non-private logistic regression on MNIST
// 0-vs-1 reaches ≥ 99.5% test accuracy. Needs MNIST (CI fetches it).
func TestMNISTNonPrivateLogReg(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "m.yaml", `name: m
dataset: {source: mnist, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 0, clip_norm: .inf, sampling_rate: 0.01, steps: 1000, learning_rate: 0.5}
train: {runs: 1}
`)
	p, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	if errors.Is(err, datasets.ErrNotFetched) && os.Getenv("DPAUDIT_REQUIRE_DATA") == "" {
		t.Skip("MNIST is not fetched (dpaudit data fetch mnist); CI sets DPAUDIT_REQUIRE_DATA=1")
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := pipeline.ReadParquet(res.Summary)
	if acc := tb.Col("test_accuracy").Float(0); acc < 0.995 {
		t.Fatalf("non-private logistic regression on MNIST 0-vs-1: test accuracy %v < 0.995", acc)
	}
}

// A model that does not fit the data, a class filter that leaves nothing,
// and a missing data set are spec errors (exit 2) before anything runs.
func TestTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"cnn on flat features": "name: b\ndataset: {source: gaussian, dim: 10}\nmodel: {arch: cnn}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\ntrain: {}\n",
		"empty class filter":   "name: b\ndataset: {source: digits, classes: [11]}\nmodel: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\ntrain: {}\n",
		"train without model":  "name: b\ndataset: {source: digits}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\ntrain: {}\n",
		"σ = 0 with clipping":  "name: b\ndataset: {source: digits}\nmodel: {arch: logreg}\ndpsgd: {noise_multiplier: 0, sampling_rate: 0.1, steps: 2}\ntrain: {}\n",
	}
	for name, src := range cases {
		path := writeSpec(t, dir, "b.yaml", src)
		_, err := Load(path, Options{Store: filepath.Join(dir, "store"), DataDir: filepath.Join(dir, "nodata")})
		if err == nil || !IsInputError(err) {
			t.Errorf("%s: want an input error, got %v", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	path := writeSpec(t, dir, "m.yaml", "name: b\ndataset: {source: mnist}\nmodel: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\ntrain: {}\n")
	_, err := Load(path, Options{Store: filepath.Join(dir, "store"), DataDir: filepath.Join(dir, "nodata")})
	if !errors.Is(err, datasets.ErrNotFetched) || !IsInputError(err) {
		t.Fatalf("missing MNIST: %v", err)
	}
}
