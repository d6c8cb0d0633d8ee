package datasets

// pool holds one part (train or test) of a source before options apply.
// Images stay as bytes until the rows to keep are known, so a class filter
// or a subsample converts only what it keeps.
type pool struct {
	n, d int
	u8   []byte    // n×d, or nil
	f32  []float32 // n×d, or nil
	y    []int32
	// owned: nothing else refers to the pool's memory (it was read for
	// this Load alone), so a split that keeps every row in order may take
	// it instead of copying it.
	owned bool
}

// sourceData is what a source yields: its train and test pools and how to
// interpret them.
type sourceData struct {
	name       string
	train      pool
	test       pool
	shape      []int // per-example shape, product = d
	classNames []string
	// unitMax is the nominal maximum value: "unit" normalisation divides
	// by it (255 for MNIST, 16 for digits, 1 for tabular data already in
	// [0,1]). 0 means the source has no fixed range.
	unitMax float64
	// defaultNormalize applies when Options.Normalize is empty.
	defaultNormalize string
	// pending are digest checks still running on the files the pools
	// alias; nothing derived from the pools may leave Load before they
	// all return nil.
	pending []func() error
}

// verified waits for every pending digest check.
func (sd *sourceData) verified() error {
	for _, wait := range sd.pending {
		if err := wait(); err != nil {
			return err
		}
	}
	return nil
}

// splitPool cuts a generated data set into a train pool (the first n−t
// rows) and a test pool (the last t rows). The rows alias ds.X.
func splitPool(ds *Dataset, testN int) (train, test pool) {
	cut := ds.N - testN
	train = pool{n: cut, d: ds.D, f32: ds.X[:cut*ds.D], y: ds.Y[:cut]}
	test = pool{n: testN, d: ds.D, f32: ds.X[cut*ds.D:], y: ds.Y[cut:]}
	return train, test
}
