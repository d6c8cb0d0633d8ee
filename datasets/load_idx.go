package datasets

import (
	"context"
	"fmt"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// loadIDXSource reads and verifies the four files of an MNIST-shaped data
// set. The files are read concurrently: on MNIST the larger image file
// dominates and the others hide behind it. Every file is opened even when
// another fails, and the first failure in file order is reported, so the
// error does not depend on which read finished first.
func loadIDXSource(ds *fetchable, dataDir string) (*sourceData, error) {
	var arrays [4]*IDXArray
	var verify [4]func() error
	var errs [4]error
	err := parallel.For(context.Background(), len(ds.Files), len(ds.Files), func(i int) error {
		arrays[i], verify[i], errs[i] = openStoredIDX(ds, dataDir, ds.Files[i])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	sd, err := idxSourceData(ds, arrays)
	if err != nil {
		// Prefer a digest mismatch: it says why the shapes are wrong.
		for _, v := range verify {
			if verr := v(); verr != nil {
				return nil, verr
			}
		}
		return nil, err
	}
	sd.pending = verify[:]
	return sd, nil
}

// idxSourceData assembles the pools of the four parsed files.
func idxSourceData(ds *fetchable, arrays [4]*IDXArray) (*sourceData, error) {
	train, shape, err := idxPool(ds, arrays[trainImages], arrays[trainLabels], ds.Files[trainImages].Name)
	if err != nil {
		return nil, err
	}
	test, testShape, err := idxPool(ds, arrays[testImages], arrays[testLabels], ds.Files[testImages].Name)
	if err != nil {
		return nil, err
	}
	if shape[1] != testShape[1] || shape[2] != testShape[2] {
		return nil, formatf("%s: train images are %v, test images %v", ds.Name, shape[1:], testShape[1:])
	}
	return &sourceData{
		name:             ds.Name,
		train:            train,
		test:             test,
		shape:            shape,
		classNames:       ds.ClassNames,
		unitMax:          255,
		defaultNormalize: NormalizeUnit,
	}, nil
}

// idxPool checks that images and labels fit together and wraps them. The
// digests are pinned, so these checks only fail for hand-edited pins; they
// are cheap and keep the invariants local.
func idxPool(ds *fetchable, img, lab *IDXArray, name string) (pool, []int, error) {
	if img.Type != IDXUint8 || len(img.Dims) != 3 {
		return pool{}, nil, formatf("%s: %s: want unsigned bytes with 3 dimensions (N, H, W), got type %#02x dims %v",
			ds.Name, name, byte(img.Type), img.Dims)
	}
	if lab.Type != IDXUint8 || len(lab.Dims) != 1 || lab.Dims[0] != img.Dims[0] {
		return pool{}, nil, formatf("%s: labels for %s: want %d unsigned bytes, got type %#02x dims %v",
			ds.Name, name, img.Dims[0], byte(lab.Type), lab.Dims)
	}
	y := make([]int32, len(lab.Data))
	for i, b := range lab.Data {
		if int(b) >= len(ds.ClassNames) {
			return pool{}, nil, formatf("%s: labels for %s: label %d at row %d, want 0..%d",
				ds.Name, name, b, i, len(ds.ClassNames)-1)
		}
		y[i] = int32(b)
	}
	d := img.Dims[1] * img.Dims[2]
	shape := []int{1, img.Dims[1], img.Dims[2]}
	return pool{n: img.Dims[0], d: d, u8: img.Data, y: y}, shape, nil
}

// fetchableFor returns the registry entry of a canonical name.
func fetchableFor(name string) (*fetchable, error) {
	ds, ok := fetchables[name]
	if !ok {
		return nil, invalidf("no fetchable data set %q (known: %v)", name, FetchableNames())
	}
	return ds, nil
}
