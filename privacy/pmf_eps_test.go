package privacy

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// epsilonForDeltaRef is EpsilonForDelta as it was written before its
// weights came from numeric.ExpBlock: one math.Exp per grid point.
func epsilonForDeltaRef(p *PMF, delta float64) float64 {
	if p.infMass > delta {
		return math.Inf(1)
	}
	upper, lower := p.infMass, 0.0
	ref := 0.0
	if n := len(p.probs); n > 0 {
		ref = p.Loss(n - 1)
	}
	for i := len(p.probs) - 1; i >= 0; i-- {
		l := p.Loss(i)
		if ref-l > 600 {
			lower *= math.Exp(l - ref)
			ref = l
		}
		ex := math.Exp(ref - l)
		if upper > delta && lower > 0 && (upper-delta)*ex >= lower {
			break
		}
		upper += p.probs[i]
		lower += ex * p.probs[i]
	}
	if upper <= delta || lower <= 0 {
		return 0
	}
	return math.Max(0, math.Log((upper-delta)/lower)+ref)
}

// TestEpsilonForDeltaBitsAsBefore: the blocked walk gives the bits of the
// one-exp-per-point walk, on PMFs whose losses span more than 600 nats
// (the reference moves), short ones, tiny and large δ, and the composed
// PLD of the MNIST schedule.
func TestEpsilonForDeltaBitsAsBefore(t *testing.T) {
	r := rng.New(11, "eps-walk")
	var pmfs []*PMF
	for _, c := range []struct {
		n        int
		interval float64
		offset   int
	}{{1, 0.1, 0}, {3, 0.1, -1}, {257, 1e-3, -100}, {5000, 0.5, -4000}, {20000, 0.07, -10000}, {1000, 2, -100}} {
		probs := make([]float64, c.n)
		var s float64
		for i := range probs {
			probs[i] = math.Exp(-30 * r.Float64())
			if r.Float64() < 0.1 {
				probs[i] = 0
			}
			s += probs[i]
		}
		for i := range probs {
			probs[i] /= s
		}
		p, err := NewPMF(c.interval, c.offset, probs, 1e-16, true)
		if err != nil {
			t.Fatal(err)
		}
		pmfs = append(pmfs, p)
	}
	d, err := SampledGaussianPLD(mnistQ, 1.1, mnistT, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	pmfs = append(pmfs, d.Remove, d.Add)
	for k, p := range pmfs {
		for _, delta := range []float64{1e-300, 1e-15, 1e-10, 1e-5, 1e-3, 0.1, 0.5, 0.99} {
			got, want := p.EpsilonForDelta(delta), epsilonForDeltaRef(p, delta)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("PMF %d, δ = %g: %v, before %v", k, delta, got, want)
			}
		}
	}
}
