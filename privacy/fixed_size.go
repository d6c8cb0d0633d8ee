package privacy

// Fixed-size batches (sampling without replacement) under replace-one
// adjacency.
//
// Each step draws a uniformly random b-subset of the n records; γ = b/n.
// D and D′ differ in record i (gradient g versus g′). Coupling the batches
// that miss i with those that hold it (replace i by a uniformly random
// other record k), each step's outputs are mixtures, over the same
// coupling, of
//
//	(1−γ)·N(a + g_k, σ²I) + γ·N(a + g, σ²I)   against   (1−γ)·N(a + g_k, σ²I) + γ·N(a + g′, σ²I),
//
// so by joint convexity the step is dominated by the worst
// (1−γ)N(0) + γN(v) against (1−γ)N(0) + γN(v′) with v = g − g_k,
// v′ = g′ − g_k: shifts of norm up to 2C, not C as under Poisson sampling,
// because the record displaced from a fixed-size batch is another one.
// Zhu, Dong & Wang (AISTATS 2022, their subsampling-without-replacement
// result for replace-one) give the dominating pair: the add/remove pair
// of the Poisson-subsampled Gaussian with rate γ and sensitivity 2 (σ/2),
// its remove orientation for ε ≥ 0 and its add orientation for ε < 0. It
// is attained (every other record's gradient −C·e, record i changed from
// −C·e to +C·e gives exactly the remove pair), so it is tight — and the
// fixed-size sampler is then no more private than the σ/2 bound of
// Poisson replace-one, as Lebeda, Regehr, Kamath & Steinke (2024) point
// out. Because one run can mix orientations step by step (the gradients
// are adaptive), the two orientations are not composed separately as for
// add/remove: the one curve
//
//	δ(ε) = δ_remove(ε) for ε ≥ 0,   δ_add(ε) = 1 − e^ε + e^ε·δ_remove(−ε) for ε < 0
//
// (convex in e^ε: the slopes meet at ε = 0 in the right order) is turned
// into one PMF by connect-the-dots and composed.

// fixedSizeStep is the PLD of one fixed-size replace-one step (arguments
// checked by the caller).
func fixedSizeStep(gamma, sigma, interval float64, pessimistic bool, limit int) (*PLD, error) {
	if gamma == 1 {
		// The whole dataset every step: the Gaussian mechanism with
		// sensitivity 2, which the add/remove pair at q = 1 and σ/2 is.
		return sampledGaussianStep(1, sigma/2, interval, pessimistic, limit)
	}
	remove := sampledGaussianLoss(gamma, sigma/2, false)
	if err := remove.check(interval); err != nil {
		return nil, err
	}
	top := remove.Loss(remove.XLow)
	var pmf *PMF
	var err error
	if pessimistic {
		// The curve is its own mirror image by construction.
		pmf, err = symmetricConnectDots(interval, top, remove.split, limit)
	} else {
		// Optimistic: the larger of the two orientations' bucket PMFs is
		// not a lower bound of this curve in general, so the lower
		// estimate uses the remove orientation alone (a pair the sampler
		// does attain).
		pmf, err = remove.buckets(interval, false, limit)
	}
	if err != nil {
		return nil, err
	}
	pmf.limit = limit
	return &PLD{Remove: pmf}, nil
}
