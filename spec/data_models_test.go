package spec

import (
	"path/filepath"
	"testing"
)

// A file dataset and a layer list decode with their defaults; relative
// paths resolve against the spec's folder, absolute ones stay.
func TestDatasetFileAndLayersDecode(t *testing.T) {
	src := `name: own
dataset: {source: file, path: data/train.parquet, label: y, features: ["px_*"], shape: [1, 28, 28], max_value: 255,
  split: {test_path: /abs/test.parquet}, classes: [0, 1]}
model:
  arch: layers
  layers:
    - {kind: conv2d, filters: 8, kernel: 5}
    - {kind: relu}
    - {kind: avgpool}
    - {kind: flatten}
    - {kind: dense, units: 2, bias: false}
`
	s, err := Parse(filepath.Join("specs", "own.yaml"), []byte(src), Options{Functions: testFuncs()})
	if err != nil {
		t.Fatal(err)
	}
	pts, _, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	f := pts[0].Exp.Dataset.File
	if f.FileFormat() != "parquet" || f.Label != "y" || f.MaxValue != 255 || f.Classes[1] != 1 {
		t.Fatalf("file %+v", f)
	}
	if got := f.Resolve(f.Path); got != filepath.Join("specs", "data", "train.parquet") {
		t.Errorf("resolved path %q", got)
	}
	if got := f.Resolve(f.Split.TestPath); got != "/abs/test.parquet" {
		t.Errorf("absolute path %q", got)
	}
	if got := pts[0].Exp.ResolvePath("scores.csv"); got != filepath.Join("specs", "scores.csv") {
		t.Errorf("ResolvePath %q", got)
	}
	l := pts[0].Exp.Model.Layers
	if len(l.Layers) != 5 || l.Init != "pytorch" {
		t.Fatalf("layers %+v", l)
	}
	c, p, d := l.Layers[0].Conv2D, l.Layers[2].AvgPool, l.Layers[4].Dense
	if c.Stride != 1 || c.Padding != 0 || p.Size != 2 || p.Stride != 0 || d.Bias || d.Units != 2 || l.Layers[3].Flatten == nil {
		t.Errorf("defaults: conv %+v, pool %+v, dense %+v", c, p, d)
	}
}

// The rules between a file's keys are positioned errors.
func TestDatasetFileRules(t *testing.T) {
	head := "name: own\nmodel: {arch: logreg}\n"
	for _, c := range []struct{ dataset, want string }{
		{"{source: file, path: data.txt, label: y}", `quick.yaml:3:31: dataset.path: cannot tell the format of "data.txt" from its extension`},
		{"{source: file, path: x.npy, label: y}", `dataset.label: with format npy, label is the .npy file of labels`},
		{"{source: file, path: x.npy, label: y.npy, split: {test_path: t.npy}}", `dataset.split.test_path: a separate test file needs its own labels`},
		{"{source: file, path: d.npz, label: y, features: [a, b]}", `dataset.features: a .npz has one feature array`},
		{"{source: file, path: d.csv, label: y, split: {test_fraction: 0.3, test_path: t.csv}}", `dataset.split: give test_fraction or test_path, not both`},
		{"{source: file, path: d.csv, label: y, split: {}}", `dataset.split: needs test_fraction or test_path`},
		{"{source: file, path: d.csv, label: y, shape: [1, 0, 4]}", `dataset.shape[1]: dimensions must be ≥ 1, got 0`},
		{"{source: file, path: d.csv}", `dataset.label: missing`},
		{"{source: file, path: d.csv, label: y, format: xlsx}", `dataset.format`},
	} {
		_, err := parse(t, head+"dataset: "+c.dataset+"\n", Options{})
		mustErr(t, err, c.want)
	}
	_, err := parse(t, "name: own\ndataset: {source: digits}\nmodel: {arch: layers, layers: [{kind: dense}, {kind: conv3d}]}\n", Options{})
	mustErr(t, err, "model.layers[0].units: missing", "model.layers[1].kind")
}

// FIL accounting through a layer list names the non-smooth layer.
func TestLayersFIL(t *testing.T) {
	_, err := parse(t, `name: fil
dataset: {source: digits}
model:
  arch: layers
  layers: [{kind: flatten}, {kind: dense, units: 8}, {kind: relu}, {kind: dense, units: 10}]
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2, clip: soft}
train: {fil: {}}
`, Options{})
	mustErr(t, err, "model.layers[2].kind: FIL accounting needs smooth activations: relu")
	_, err = parse(t, `name: fil
dataset: {source: digits}
model:
  arch: layers
  layers: [{kind: flatten}, {kind: dense, units: 8}, {kind: tanh}, {kind: dense, units: 10}]
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2, clip: soft}
train: {fil: {}}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
}
