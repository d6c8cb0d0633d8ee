package learn

import "github.com/dpaudit/dpaudit/rng"

// noiseBlock is the number of coordinates that share one noise stream.
// Fixed, so the noise does not depend on how many threads draw it.
const noiseBlock = 1 << 14

// noiseGen draws the Gaussian noise of every step. Coordinates
// [k·noiseBlock, (k+1)·noiseBlock) come from their own ChaCha8 stream
// rng.Key(master, "learn/noise", k), consumed in order step after step, so
// blocks can be filled in parallel with bit-identical results.
type noiseGen struct {
	streams []*wordStream
}

func newNoiseGen(master uint64, n int) *noiseGen {
	g := &noiseGen{}
	for k := 0; k*noiseBlock < n; k++ {
		g.streams = append(g.streams, newWordStream(rng.Key(master, "learn/noise", k)))
	}
	return g
}

func (g *noiseGen) blocks() int { return len(g.streams) }

// addBlock adds scale·N(0, I) to block k of v and reports whether the
// block is finite afterwards.
func (g *noiseGen) addBlock(k int, v []float32, scale float32) bool {
	lo, hi := k*noiseBlock, min((k+1)*noiseBlock, len(v))
	return addNormalStream(g.streams[k], v[lo:hi], scale)
}
