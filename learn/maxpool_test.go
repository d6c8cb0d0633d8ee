package learn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxPool2MatchesGeneral: the 2×2 stride-2 kernel gives the general
// loop's outputs and argmax, ties (first maximum wins), NaN and ±Inf
// included, on odd and even sizes.
func TestMaxPool2MatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for _, sh := range [][3]int{{26, 26, 16}, {11, 11, 16}, {7, 5, 3}, {2, 2, 1}} {
		p, err := newMaxPool(sh[0], sh[1], sh[2], 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		const b = 3
		in := make([]float32, b*p.inSize())
		for i := range in {
			switch r.IntN(20) {
			case 0:
				in[i] = 0.5 // ties
			case 1:
				in[i] = float32(math.NaN())
			case 2:
				in[i] = float32(math.Inf(-1 + 2*r.IntN(2)))
			default:
				in[i] = float32(r.NormFloat64())
			}
		}
		s1, s2 := p.newScratch(b), p.newScratch(b)
		o1, o2 := make([]float32, b*p.outSize()), make([]float32, b*p.outSize())
		p.forward2(s1, in, o1, b)
		p.forwardAny(s2, in, o2, b)
		for i := range o1 {
			if math.Float32bits(o1[i]) != math.Float32bits(o2[i]) || s1.argmax[i] != s2.argmax[i] {
				t.Fatalf("%v output %d: %v at %d, general %v at %d", sh, i, o1[i], s1.argmax[i], o2[i], s2.argmax[i])
			}
		}
	}
}

// TestMaxPoolThroughReLUMatchesTwoPasses: the fused backward pass of a
// max pool on a ReLU's output gives the bits of the pool's backward
// followed by the ReLU's, for disjoint windows on odd and even sizes, with
// zeros (ties of clipped negatives), −0 gradients, NaN and ±Inf.
func TestMaxPoolThroughReLUMatchesTwoPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2))
	for _, sh := range [][5]int{{26, 26, 16, 2, 2}, {11, 11, 16, 2, 2}, {7, 5, 3, 2, 3}, {9, 9, 2, 3, 3}} {
		p, err := newMaxPool(sh[0], sh[1], sh[2], sh[3], sh[4])
		if err != nil {
			t.Fatal(err)
		}
		relu := &activation{kind: ReLU, n: p.inSize()}
		const b = 3
		x := make([]float32, b*p.inSize())
		for i := range x {
			switch r.IntN(20) {
			case 0:
				x[i] = float32(math.NaN())
			case 1:
				x[i] = float32(math.Inf(-1 + 2*r.IntN(2)))
			case 2:
				x[i] = float32(math.Copysign(0, -1))
			default:
				x[i] = float32(r.NormFloat64())
			}
		}
		g := make([]float32, b*p.outSize())
		for i := range g {
			g[i] = float32(r.NormFloat64())
			if r.IntN(8) == 0 {
				g[i] = float32(math.Copysign(0, -1))
			}
		}
		y := make([]float32, len(x))
		relu.forward(nil, x, y, b)
		s := p.newScratch(b)
		pooled := make([]float32, len(g))
		p.forward(s, y, pooled, b)
		mid, want, got := make([]float32, len(x)), make([]float32, len(x)), make([]float32, len(x))
		p.backward(s, y, nil, g, mid, b, nil, false)
		relu.backward(nil, x, y, mid, want, b, nil, false)
		for i := range got {
			got[i] = float32(math.NaN()) // must be overwritten
		}
		p.backwardThroughReLU(s, y, pooled, g, got, b)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: dx[%d] = %v, two passes %v", sh, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkMaxPool2: the first pooling layer of the Bernau CNN (26×26×16,
// batch 102), the 2×2 kernel against the general loop.
func BenchmarkMaxPool2(b *testing.B) {
	p, _ := newMaxPool(26, 26, 16, 2, 2)
	const batch = 102
	r := rand.New(rand.NewPCG(1, 1))
	in := make([]float32, batch*p.inSize())
	for i := range in {
		in[i] = float32(r.NormFloat64())
	}
	s := p.newScratch(batch)
	out := make([]float32, batch*p.outSize())
	b.Run("2x2", func(b *testing.B) {
		for b.Loop() {
			p.forward2(s, in, out, batch)
		}
	})
	b.Run("general", func(b *testing.B) {
		for b.Loop() {
			p.forwardAny(s, in, out, batch)
		}
	})
}
