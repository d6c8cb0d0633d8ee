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
