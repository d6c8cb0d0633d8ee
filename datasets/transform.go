package datasets

import (
	"context"
	"math"
	"runtime"
	"slices"

	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/rng"
)

// apply turns a source's pools into the split the options ask for.
func apply(sd *sourceData, o Options) (*Split, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	mode := o.Normalize
	if mode == "" || mode == NormalizeAuto {
		mode = sd.defaultNormalize
	}
	if mode == NormalizeUnit && sd.unitMax == 0 {
		return nil, invalidf("%s has no fixed value range, so normalize %q is undefined; use %q or %q",
			sd.name, NormalizeUnit, NormalizeNone, NormalizeStandardize)
	}
	classMap, names, err := o.classMap(sd.classNames)
	if err != nil {
		return nil, err
	}
	trainIdx, err := chooseRows(sd, &sd.train, classMap, o, "train", o.TrainSize)
	if err != nil {
		return nil, err
	}
	testIdx, err := chooseRows(sd, &sd.test, classMap, o, "test", o.TestSize)
	if err != nil {
		return nil, err
	}
	var heldIdx []int
	if o.HeldOut > 0 {
		if heldIdx, err = chooseHeldOut(sd, classMap, trainIdx, o); err != nil {
			return nil, err
		}
	}
	div := 1.0
	if mode == NormalizeUnit {
		div = sd.unitMax
	}
	train := materialise(sd, &sd.train, trainIdx, classMap, div, names)
	test := materialise(sd, &sd.test, testIdx, classMap, div, names)
	var held *Dataset
	if heldIdx != nil {
		held = materialise(sd, &sd.train, heldIdx, classMap, div, names)
	}
	if mode == NormalizeStandardize {
		mean, inv := featureStats(train)
		standardize(train, mean, inv)
		standardize(test, mean, inv)
		if held != nil {
			standardize(held, mean, inv)
		}
	}
	parts := []struct {
		label string
		ds    *Dataset
	}{{"train", train}, {"test", test}}
	if held != nil {
		parts = append(parts, struct {
			label string
			ds    *Dataset
		}{"held-out", held})
	}
	for _, part := range parts {
		// Bytes cannot encode NaN or Inf, and the steps above map finite
		// bytes to finite values, so only float sources (and
		// standardisation, which divides) need the scan.
		if sd.train.u8 == nil || mode == NormalizeStandardize {
			if i := firstNonFinite(part.ds.X); i >= 0 {
				return nil, formatf("%s: %s split: value %v at example %d, feature %d",
					sd.name, part.label, part.ds.X[i], i/part.ds.D, i%part.ds.D)
			}
		}
		if o.L2Ball > 0 {
			if err := scaleL2(part.ds, o.L2Ball, o.L2Exact); err != nil {
				return nil, err
			}
		}
		if o.Flatten {
			part.ds.Shape = []int{part.ds.D}
		}
	}
	return &Split{Train: train, Test: test, HeldOut: held}, nil
}

// chooseHeldOut draws o.HeldOut rows of the training pool (after the class
// filter) outside trainIdx, uniformly from their own stream, in ascending
// order.
func chooseHeldOut(sd *sourceData, classMap []int32, trainIdx []int, o Options) ([]int, error) {
	in := make(map[int]bool, len(trainIdx))
	for _, i := range trainIdx {
		in[i] = true
	}
	rest := make([]int, 0, sd.train.n-len(trainIdx))
	for i, y := range sd.train.y {
		if classMap[y] >= 0 && !in[i] {
			rest = append(rest, i)
		}
	}
	if o.HeldOut > len(rest) {
		return nil, invalidf("%s: held-out size %d exceeds the %d training-pool examples outside the training set of %d",
			sd.name, o.HeldOut, len(rest), len(trainIdx))
	}
	r := rng.New(o.Seed, "datasets", sd.name, "held_out")
	for i := 0; i < o.HeldOut; i++ {
		j := i + r.IntN(len(rest)-i)
		rest[i], rest[j] = rest[j], rest[i]
	}
	idx := rest[:o.HeldOut]
	slices.Sort(idx)
	return idx, nil
}

// chooseRows applies the class filter and the subsample to one pool and
// returns the kept row indices in ascending order.
func chooseRows(sd *sourceData, p *pool, classMap []int32, o Options, part string, size int) ([]int, error) {
	idx := make([]int, 0, p.n)
	for i, y := range p.y {
		if classMap[y] >= 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		if len(o.Classes) > 0 {
			return nil, invalidf("%s: the class filter %v leaves no %s examples", sd.name, o.Classes, part)
		}
		return nil, invalidf("%s: the %s split is empty", sd.name, part)
	}
	if size == 0 || size == len(idx) {
		return idx, nil
	}
	if size > len(idx) {
		filter := ""
		if len(o.Classes) > 0 {
			filter = " after the class filter"
		}
		return nil, invalidf("%s: %s size %d exceeds the %d %s examples available%s",
			sd.name, part, size, len(idx), part, filter)
	}
	r := rng.New(o.Seed, "datasets", sd.name, part)
	// Partial Fisher–Yates: the first size entries are a uniform sample.
	for i := 0; i < size; i++ {
		j := i + r.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	idx = idx[:size]
	slices.Sort(idx)
	return idx, nil
}

// materialise copies the chosen rows into a new Dataset, dividing values
// by div (rounded once, from float64, so 7/255 is the float32 nearest
// 7/255) and remapping labels.
func materialise(sd *sourceData, p *pool, idx []int, classMap []int32, div float64, names []string) *Dataset {
	if ds := takePool(sd, p, idx, classMap, div, names); ds != nil {
		return ds
	}
	d := p.d
	x := make([]float32, len(idx)*d)
	y := make([]int32, len(idx))
	var table [256]float32
	for v := range table {
		table[v] = float32(float64(v) / div)
	}
	parallelRows(len(idx), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := idx[r]
			dst := x[r*d : (r+1)*d]
			if p.u8 != nil {
				for j, b := range p.u8[i*d : (i+1)*d] {
					dst[j] = table[b]
				}
			} else {
				copy(dst, p.f32[i*d:(i+1)*d])
				if div != 1 {
					for j := range dst {
						dst[j] = float32(float64(dst[j]) / div)
					}
				}
			}
			y[r] = classMap[p.y[i]]
		}
	})
	return &Dataset{
		X: x, Y: y, N: len(idx), D: d,
		Shape:      slices.Clone(sd.shape),
		Classes:    len(names),
		ClassNames: slices.Clone(names),
		Name:       sd.name,
	}
}

// takePool is materialise without the copy: when the pool owns float32
// memory and every row is kept in order, its slices become the Dataset's
// (a large file is then held once, not twice). It returns nil otherwise.
// The pool must not be read again (the division happens in place).
func takePool(sd *sourceData, p *pool, idx []int, classMap []int32, div float64, names []string) *Dataset {
	if !p.owned || p.f32 == nil || len(idx) != p.n {
		return nil
	}
	for r, i := range idx {
		if r != i {
			return nil
		}
	}
	x, y := p.f32, p.y
	p.f32, p.y, p.n = nil, nil, 0
	parallelRows(len(y), p.d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if div != 1 {
				row := x[r*p.d : (r+1)*p.d]
				for j := range row {
					row[j] = float32(float64(row[j]) / div)
				}
			}
			y[r] = classMap[y[r]]
		}
	})
	return &Dataset{
		X: x, Y: y, N: len(y), D: p.d,
		Shape:      slices.Clone(sd.shape),
		Classes:    len(names),
		ClassNames: slices.Clone(names),
		Name:       sd.name,
	}
}

// featureStats returns per-feature means and inverse standard deviations
// (population form, computed in float64; 1 for constant features).
func featureStats(ds *Dataset) (mean, inv []float64) {
	d := ds.D
	mean = make([]float64, d)
	sq := make([]float64, d)
	for i := 0; i < ds.N; i++ {
		for j, v := range ds.Row(i) {
			mean[j] += float64(v)
		}
	}
	n := float64(ds.N)
	for j := range mean {
		mean[j] /= n
	}
	for i := 0; i < ds.N; i++ {
		for j, v := range ds.Row(i) {
			dv := float64(v) - mean[j]
			sq[j] += dv * dv
		}
	}
	inv = make([]float64, d)
	for j := range inv {
		sd := math.Sqrt(sq[j] / n)
		inv[j] = 1
		if sd > 0 {
			inv[j] = 1 / sd
		}
	}
	return mean, inv
}

func standardize(ds *Dataset, mean, inv []float64) {
	for i := 0; i < ds.N; i++ {
		row := ds.Row(i)
		for j, v := range row {
			row[j] = float32((float64(v) - mean[j]) * inv[j])
		}
	}
}

// scaleL2 projects every example onto the ball of radius r, or onto its
// sphere when exact. Norms are accumulated in float64.
func scaleL2(ds *Dataset, r float64, exact bool) error {
	for i := 0; i < ds.N; i++ {
		row := ds.Row(i)
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		norm := math.Sqrt(ss)
		switch {
		case exact && norm == 0:
			return invalidf("%s: example %d is all zeros and cannot be scaled to norm %v", ds.Name, i, r)
		case !exact && norm <= r:
			continue
		}
		f := r / norm
		for j := range row {
			row[j] = float32(float64(row[j]) * f)
		}
	}
	return nil
}

// parallelRows splits rows 0..n-1 into contiguous blocks over the
// available CPUs when there is enough work (about a million values) to pay
// for the goroutines; fn must only touch its own rows. A panic in fn (a
// bug: fn returns nothing that can fail) is raised again on the calling
// goroutine, carrying the worker's stack, where the caller's recovery (a
// pipeline node's) can catch it; in a worker it would end the process.
// There is no context: loading a data set is not cancellable, and one
// block takes milliseconds.
func parallelRows(n, d int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n*d < 1<<20 {
		workers = 1
	}
	block := (n + workers - 1) / workers
	err := parallel.Chunks(context.Background(), n, block, workers, func(_, lo, hi int) error {
		fn(lo, hi)
		return nil
	})
	if err != nil {
		panic(err)
	}
}
