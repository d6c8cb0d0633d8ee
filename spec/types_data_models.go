package spec

import "path/filepath"

// The user's own data (dataset source "file") and own layer shapes (model
// arch "layers"). Kept apart from types.go so that gofmt's alignment of
// the Dataset and Model unions there stays merge-friendly.

// DatasetFile is a labelled data set in the user's own file.
type DatasetFile struct {
	DatasetCommon `yaml:",inline"`
	Path          string        `yaml:"path" required:"true" doc:"The data file, relative to the spec file (or absolute). Its SHA-256 enters the manifest and every cache key that depends on the data, so a changed file re-runs what it feeds."`
	Format        string        `yaml:"format" enum:"parquet|csv|npy|npz" doc:"File format; absent: from the extension (.parquet or .pq, .csv, .npy, .npz)."`
	Label         string        `yaml:"label" required:"true" doc:"The label column (Parquet, CSV), the label array (npz), or the .npy file of labels relative to the spec (npy). Labels are class ids 0, 1, …; the number of classes is the largest + 1."`
	Features      []string      `yaml:"features" doc:"Feature columns in this order (names, or glob patterns such as pixel_* expanded in file order), or for npz the one feature array. Absent: every column but the label (npz: the one array besides the label). A Parquet column may hold a fixed-length list of numbers (an image)."`
	Shape         []int         `yaml:"shape" doc:"Per-example shape, e.g. [1, 28, 28] for images ([C, H, W]: what conv2d and pooling layers need); its product must be the number of feature values per row. Absent: the array's own shape (npy, npz: (N, H, W) → [1, H, W], (N, C, H, W) → [C, H, W]), else [number of features]."`
	MaxValue      float64       `yaml:"max_value" default:"0" check:">=0" doc:"The features' nominal maximum, e.g. 255 for 8-bit pixels: normalize unit divides by it and becomes the default. 0: no fixed range (the default normalisation is none; unit is refused)."`
	Split         *DatasetSplit `yaml:"split" doc:"Where the test split comes from; absent: test_fraction 0.2."`

	// dir is the spec file's folder, which relative paths start from.
	dir string
}

// DatasetSplit says where a file's test split comes from: a share of its
// rows or a second file of the same layout.
type DatasetSplit struct {
	TestFraction float64 `yaml:"test_fraction" check:">0,<1" doc:"Share of the rows held out for testing, stratified by label and fixed (independent of the seed, so every experiment on the file tests on the same rows). Default 0.2 when test_path is absent."`
	TestPath     string  `yaml:"test_path" doc:"A second file of the same layout (columns, or arrays) holding the test split, relative to the spec; its digest is recorded like the data file's. Not for format npy (use npz)."`
}

// Resolve returns p relative to the spec file's folder (p itself when
// absolute).
func (f *DatasetFile) Resolve(p string) string { return resolvePath(f.dir, p) }

// ResolvePath returns a path given in the spec relative to the spec
// file's folder (p itself when absolute), e.g. a data or score file.
func (e *Experiment) ResolvePath(p string) string { return resolvePath(e.dir, p) }

func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// setDir records the spec file's folder where relative paths need it.
func (e *Experiment) setDir(dir string) {
	e.dir = dir
	if e.Dataset != nil && e.Dataset.File != nil {
		e.Dataset.File.dir = dir
	}
}

// FileFormat is the format of the data file: Format, or the extension's.
// "" when neither tells.
func (f *DatasetFile) FileFormat() string {
	if f.Format != "" {
		return f.Format
	}
	switch filepath.Ext(f.Path) {
	case ".parquet", ".pq":
		return "parquet"
	case ".csv":
		return "csv"
	case ".npy":
		return "npy"
	case ".npz":
		return "npz"
	}
	return ""
}

// ModelLayers is the user's own network: a list of layers for the Go
// trainer. The logreg, mlp and cnn archs are names for such lists.
type ModelLayers struct {
	Layers []Layer `yaml:"layers" required:"true" check:"nonempty" doc:"The layers from input to output; the last is a dense layer of one unit per class (1 for a sigmoid head on 2 classes), whose logits go to the softmax (or sigmoid) cross-entropy. Checked against the data's shape when the spec is loaded."`
	Init   string  `yaml:"init" default:"pytorch" enum:"pytorch|glorot" doc:"Parameter initialisation: pytorch = U(±1/√fan_in) for weights and biases; glorot."`
}

// Layer is one layer of a ModelLayers list.
type Layer struct {
	Kind    string       `yaml:"kind" discriminator:"true" doc:"Layer."`
	Dense   *LayerDense  `kind:"dense" doc:"Fully connected layer on a flat input (use flatten after convolutions)."`
	Conv2D  *LayerConv2D `kind:"conv2d" doc:"2-D convolution on a [C, H, W] input, square kernel, symmetric zero padding."`
	MaxPool *LayerPool   `kind:"maxpool" doc:"Max pooling on a [C, H, W] input, square window, no padding."`
	AvgPool *LayerPool   `kind:"avgpool" doc:"Average pooling on a [C, H, W] input, square window, no padding."`
	Flatten *ModelEmpty  `kind:"flatten" doc:"[C, H, W] → [C·H·W] (no parameters, no copy)."`
	ReLU    *ModelEmpty  `kind:"relu" doc:"max(0, x)."`
	Tanh    *ModelEmpty  `kind:"tanh" doc:"tanh(x)."`
	ELU     *ModelEmpty  `kind:"elu" doc:"x for x > 0, eˣ − 1 otherwise (α = 1)."`
	Sigmoid *ModelEmpty  `kind:"sigmoid" doc:"1 / (1 + e⁻ˣ)."`
}

// LayerDense is a fully connected layer.
type LayerDense struct {
	Units int  `yaml:"units" required:"true" check:">=1" doc:"Output width; for the last layer, the number of classes (or 1: sigmoid head, 2 classes)."`
	Bias  bool `yaml:"bias" default:"true" doc:"Learn a bias."`
}

// LayerConv2D is a 2-D convolution.
type LayerConv2D struct {
	Filters int `yaml:"filters" required:"true" check:">=1" doc:"Output channels."`
	Kernel  int `yaml:"kernel" required:"true" check:">=1" doc:"Square kernel size."`
	Stride  int `yaml:"stride" default:"1" check:">=1" doc:"Stride."`
	Padding int `yaml:"padding" default:"0" check:">=0" doc:"Zero padding on every side."`
}

// LayerPool is a max or average pooling.
type LayerPool struct {
	Size   int `yaml:"size" default:"2" check:">=1" doc:"Square window size."`
	Stride int `yaml:"stride" default:"0" check:">=0" doc:"Stride; 0 = size (non-overlapping windows)."`
}
