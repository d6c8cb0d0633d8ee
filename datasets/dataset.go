package datasets

// Dataset is a labelled data set held in memory, ready for training.
//
// X is row-major N × D with D the product of Shape; example i is
// X[i*D : (i+1)*D]. For images Shape is (C, H, W) unless the caller asked
// for flattening, in which case it is [D]; the memory layout is the same
// either way, so flattening never copies.
type Dataset struct {
	X          []float32 // N × D, row-major
	Y          []int32   // labels in 0..Classes-1
	N, D       int
	Shape      []int    // per-example shape, e.g. [1, 28, 28]; [D] when flattened
	Classes    int      // number of labels after any class filter
	ClassNames []string // ClassNames[k] names label k (after remapping)
	Name       string   // source name, e.g. "mnist"
}

// Split is a train/test pair from one source. Both parts share D, Shape,
// Classes and ClassNames.
type Split struct {
	Train, Test *Dataset
	// HeldOut is set when Options.HeldOut > 0: training-pool examples
	// disjoint from Train (see Options.HeldOut).
	HeldOut *Dataset
}

// Row returns example i as a slice aliasing X.
func (d *Dataset) Row(i int) []float32 {
	return d.X[i*d.D : (i+1)*d.D]
}

// ClassCounts returns how many examples carry each label.
func (d *Dataset) ClassCounts() []int {
	counts := make([]int, d.Classes)
	for _, y := range d.Y {
		counts[y]++
	}
	return counts
}
