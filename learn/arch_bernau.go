package learn

// BernauCNN is the MNIST CNN of Bernau et al. (2021) as far as this package
// supports it: conv 16 k3 → relu → pool 2 s2 → conv 16 k3 → relu → pool 2
// s2 → dense 10 (softmax). On 1×28×28 with 10 classes it has 6,490
// parameters. The authors' network (reference note §5.2) uses max pooling
// (BernauCNNMaxPool) and batch normalisation after each convolution (6,554
// parameters); this package has no batch norm. Without batch norm
// every example's gradient depends on that example alone, so the
// unbounded local sensitivity is at most C and the bounded one at most 2C,
// as the analysis assumes; with batch norm the authors observed unbounded
// "LS" up to 13.9 > C = 3, i.e. their GS noise did not cover the
// mechanism's true sensitivity.
func BernauCNN() Arch {
	return Arch{
		Kind:       KindCNN,
		Activation: ReLU,
		Conv: []ConvSpec{
			{Filters: 16, Kernel: 3, Stride: 1, Pool: 2, PoolStride: 2},
			{Filters: 16, Kernel: 3, Stride: 1, Pool: 2, PoolStride: 2},
		},
	}
}

// BernauCNNMaxPool is BernauCNN with max pooling, as the authors' network
// (still without its batch norm).
func BernauCNNMaxPool() Arch {
	a := BernauCNN()
	a.Conv = append([]ConvSpec(nil), a.Conv...)
	for i := range a.Conv {
		a.Conv[i].MaxPool = true
	}
	return a
}
