package datasets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dpaudit/dpaudit/internal/npy"
)

// readNPY reads a feature array (N, …) and a label array (N,) from two
// .npy files.
func readNPY(path, labelsPath string) (*table, error) {
	x, err := npy.ReadFile(path)
	if err != nil {
		return nil, npyError(path, err)
	}
	y, err := npy.ReadFile(labelsPath)
	if err != nil {
		return nil, &FieldError{Field: "label", Err: npyError(labelsPath, err)}
	}
	return arrayTable(baseName(path), x, baseName(labelsPath), y)
}

// readNPZ reads the feature and label arrays of a .npz archive.
func readNPZ(path, label string, features []string) (*table, error) {
	z, err := npy.OpenNPZ(path)
	if err != nil {
		return nil, npyError(path, err)
	}
	defer z.Close()
	what := baseName(path)
	names := z.Names()
	if !slices.Contains(names, label) {
		return nil, &FieldError{Field: "label", Err: invalidf("%s has no label array %q%s", what, label, arrayHint(label, names))}
	}
	var feat string
	switch len(features) {
	case 0:
		var rest []string
		for _, n := range names {
			if n != label {
				rest = append(rest, n)
			}
		}
		if len(rest) != 1 {
			return nil, &FieldError{Field: "features", Err: invalidf("%s holds %d arrays besides the label %q (%s): name the feature array in features", what, len(rest), label, strings.Join(rest, ", "))}
		}
		feat = rest[0]
	case 1:
		feat = features[0]
		if !slices.Contains(names, feat) {
			return nil, &FieldError{Field: "features", Err: invalidf("%s has no feature array %q%s", what, feat, arrayHint(feat, names))}
		}
	default:
		return nil, &FieldError{Field: "features", Err: invalidf("features of a .npz name one array (N, …), got %d", len(features))}
	}
	x, err := z.Read(feat)
	if err != nil {
		return nil, npyError(path, err)
	}
	y, err := z.Read(label)
	if err != nil {
		return nil, &FieldError{Field: "label", Err: npyError(path, err)}
	}
	return arrayTable(what+":"+feat, x, what+":"+label, y)
}

func arrayHint(want string, names []string) string {
	return strings.Replace(columnHint(want, names), "its columns are", "its arrays are", 1)
}

func npyError(path string, err error) error {
	if errors.Is(err, npy.ErrFormat) {
		return formatf("%s: %v", baseName(path), strings.TrimPrefix(err.Error(), path+": "))
	}
	return openError(path, err)
}

// arrayTable turns a feature array (N, …) and a label array (N,) into a
// table. 8-bit features stay bytes; others become float32.
func arrayTable(xWhat string, x *npy.Array, yWhat string, y *npy.Array) (*table, error) {
	t := &table{what: xWhat}
	if len(x.Shape) == 0 || x.Shape[0] == 0 {
		return nil, t.errorf("want an array of examples (N, …), got shape %v", x.Shape)
	}
	t.n = x.Shape[0]
	t.d = 1
	for _, s := range x.Shape[1:] {
		t.d *= s
	}
	switch rest := x.Shape[1:]; len(rest) {
	case 2:
		t.shape = []int{1, rest[0], rest[1]}
	case 3:
		t.shape = slices.Clone(rest)
	default:
		t.shape = []int{t.d}
	}
	if len(y.Shape) == 0 || y.Shape[0] != t.n || (len(y.Shape) == 2 && y.Shape[1] != 1) || len(y.Shape) > 2 {
		return nil, &FieldError{Field: "label", Err: formatf("%s: want %d labels, shape (%d,), got shape %v", yWhat, t.n, t.n, y.Shape)}
	}
	if u, ok := x.Data.([]uint8); ok {
		t.u8 = u
	} else {
		f, err := npy.Float32s(x)
		if err != nil {
			return nil, t.errorf("%v", err)
		}
		for i, v := range f {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, t.errorf("row %d, feature %d is %v (features must be finite)", i/t.d, i%t.d, v)
			}
		}
		t.x = f
	}
	labels, err := arrayLabels(yWhat, y)
	if err != nil {
		return nil, &FieldError{Field: "label", Err: err}
	}
	t.y = labels
	return t, nil
}

// arrayLabels converts a label array to class ids.
func arrayLabels(what string, y *npy.Array) ([]int32, error) {
	var vals []float64
	switch d := y.Data.(type) {
	case []float32:
		vals = make([]float64, len(d))
		convert(vals, d, func(x float32) float64 { return float64(x) })
	case []float64:
		vals = d
	default:
		ints, err := npy.Int64s(y)
		if err != nil {
			return nil, formatf("%s: %v", what, err)
		}
		vals = make([]float64, len(ints))
		for i, v := range ints {
			vals[i] = float64(v)
		}
	}
	out := make([]int32, len(vals))
	for i, v := range vals {
		c, err := labelOf(v, func() string { return fmt.Sprintf("%s: row %d", what, i) })
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
