package stages

import (
	"errors"
	"fmt"

	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/spec"
)

// fileSourceOf converts a spec's data file block, with every file's path
// resolved against the spec's folder and its SHA-256 recorded: the digest,
// not the path, is what the dataset's cache identity (and so every node
// key downstream) holds, and the loader refuses content that differs.
func fileSourceOf(d *spec.DatasetFile) (*datasets.FileSource, error) {
	f := &datasets.FileSource{
		Format: d.FileFormat(), Features: d.Features, Shape: d.Shape, MaxValue: d.MaxValue,
	}
	ref := func(key, path string) (*datasets.FileRef, error) {
		p := d.Resolve(path)
		sum, err := datasets.Digest(p)
		if err != nil {
			return nil, &PathError{key, err}
		}
		return &datasets.FileRef{Path: p, SHA256: sum}, nil
	}
	train, err := ref("dataset.path", d.Path)
	if err != nil {
		return nil, err
	}
	f.Train = *train
	if f.Format == datasets.FormatNPY {
		if f.Labels, err = ref("dataset.label", d.Label); err != nil {
			return nil, err
		}
	} else {
		f.Label = d.Label
	}
	if s := d.Split; s != nil {
		f.TestFraction = s.TestFraction
		if s.TestPath != "" {
			if f.Test, err = ref("dataset.split.test_path", s.TestPath); err != nil {
				return nil, err
			}
		}
	}
	return f, nil
}

// DataFile is a user's data file a run reads, for the manifest.
type DataFile struct {
	Path   string `json:"path"` // as resolved from the spec's folder
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// DataFiles lists the distinct data files the points read (their digests
// are remembered from compiling, so this hashes nothing again).
func DataFiles(points []spec.Point) ([]DataFile, error) {
	var out []DataFile
	seen := map[string]bool{}
	for _, pt := range points {
		for _, p := range filesOf(pt.Exp) {
			if seen[p] {
				continue
			}
			seen[p] = true
			// A file's SHA-256; a folder of Parquet parts (a score
			// table), the digest over its parts.
			sum, size, err := scorefile.Digest(p)
			if err != nil {
				return nil, err
			}
			out = append(out, DataFile{Path: p, SHA256: sum, Bytes: size})
		}
	}
	return out, nil
}

// filesOf lists the user's files a point reads, resolved: the dataset
// file's (with its labels and test split) and a score table's (with its
// canary plan).
func filesOf(exp *spec.Experiment) []string {
	var out []string
	if exp.Dataset != nil && exp.Dataset.File != nil {
		d := exp.Dataset.File
		paths := []string{d.Path}
		if d.FileFormat() == datasets.FormatNPY {
			paths = append(paths, d.Label)
		}
		if d.Split != nil && d.Split.TestPath != "" {
			paths = append(paths, d.Split.TestPath)
		}
		for _, p := range paths {
			out = append(out, d.Resolve(p))
		}
	}
	if exp.Audit != nil && exp.Audit.Source != nil {
		s := exp.Audit.Source
		out = append(out, exp.ResolvePath(s.Scores))
		if s.Plan != "" {
			out = append(out, exp.ResolvePath(s.Plan))
		}
	}
	return out
}

// DataError positions a problem with the dataset block found while
// converting it (a missing file is at dataset.path, …).
func DataError(err error) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe
	}
	return &PathError{"dataset.source", err}
}

// fileFields maps a datasets.FieldError's field to its spec key.
var fileFields = map[string]string{
	"path": "dataset.path", "label": "dataset.label", "features": "dataset.features",
	"shape": "dataset.shape", "test_path": "dataset.split.test_path",
}

// loadError positions a problem found while loading the data: a user's
// file names the key (label, features, shape, …) where it can.
func loadError(err error) error {
	var fe *datasets.FieldError
	if errors.As(err, &fe) {
		if key, ok := fileFields[fe.Field]; ok {
			return &PathError{key, err}
		}
	}
	return &PathError{"dataset", err}
}

// layerError positions a layer list's misfit at the layer (model.layers[i]),
// with the shapes it got; nil for other errors and other architectures.
func layerError(arch learn.Arch, err error) error {
	var le *learn.LayerError
	if arch.Kind != learn.KindLayers || !errors.As(err, &le) {
		return nil
	}
	return &PathError{fmt.Sprintf("model.layers[%d]", le.Index), errors.New(le.Msg)}
}

// layersArch converts the spec's layer list.
func layersArch(m *spec.ModelLayers) learn.Arch {
	a := learn.Arch{Kind: learn.KindLayers, Init: m.Init}
	for _, l := range m.Layers {
		s := learn.LayerSpec{Kind: l.Kind}
		switch {
		case l.Dense != nil:
			s.Units, s.NoBias = l.Dense.Units, !l.Dense.Bias
		case l.Conv2D != nil:
			c := l.Conv2D
			s.Filters, s.Kernel, s.Stride, s.Padding = c.Filters, c.Kernel, c.Stride, c.Padding
		case l.MaxPool != nil:
			s.Size, s.Stride = l.MaxPool.Size, l.MaxPool.Stride
		case l.AvgPool != nil:
			s.Size, s.Stride = l.AvgPool.Size, l.AvgPool.Stride
		}
		a.Layers = append(a.Layers, s)
	}
	return a
}
