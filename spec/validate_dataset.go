package spec

import (
	"path/filepath"
	"strings"
)

// validateDatasetFile checks the rules of a user's data file that involve
// more than one key. Whether the file exists and has the named columns is
// checked when it is read (the runner positions those errors too).
func validateDatasetFile(f *DatasetFile, root *Node, pos func(string) Pos, e *errs) {
	report := func(path, format string, args ...any) { e.add(pos(path), path, format, args...) }
	if placeholder(root, "dataset.path") || placeholder(root, "dataset.format") || placeholder(root, "dataset.label") {
		return
	}
	format := f.FileFormat()
	if format == "" && f.Path != "" {
		report("dataset.path", "cannot tell the format of %q from its extension: set format (parquet, csv, npy or npz)", filepath.Base(f.Path))
	}
	switch format {
	case "npy":
		if f.Label != "" && !strings.HasSuffix(f.Label, ".npy") {
			report("dataset.label", "with format npy, label is the .npy file of labels (e.g. labels.npy), got %q", f.Label)
		}
		if len(f.Features) > 0 {
			report("dataset.features", "format npy has one feature array, the file itself: remove features")
		}
		if f.Split != nil && f.Split.TestPath != "" {
			report("dataset.split.test_path", "a separate test file needs its own labels, which format npy cannot name: use npz (features and labels in one archive) or test_fraction")
		}
	case "npz":
		if len(f.Features) > 1 {
			report("dataset.features", "a .npz has one feature array (N, …): name it alone, got %d names", len(f.Features))
		}
	}
	for i, d := range f.Shape {
		if d <= 0 {
			report(indexPath("dataset.shape", i), "dimensions must be ≥ 1, got %d", d)
		}
	}
	if s := f.Split; s != nil {
		switch {
		case s.TestFraction != 0 && s.TestPath != "":
			report("dataset.split", "give test_fraction or test_path, not both")
		case s.TestFraction == 0 && s.TestPath == "" && !placeholder(root, "dataset.split.test_fraction") && !placeholder(root, "dataset.split.test_path"):
			report("dataset.split", "needs test_fraction or test_path")
		}
	}
}
