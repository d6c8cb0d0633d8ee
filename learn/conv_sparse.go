package learn

import (
	"math/bits"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// The convolution's backward pass skips zero output deltas where they are
// most of them: behind max pooling only each window's maximum receives a
// gradient, and behind a ReLU only its active outputs, so in Bernau et
// al.'s CNN at least 79% of the second layer's deltas are exact zeros
// (one maximum per window of four, and the last row and column are in no
// window).
// The GEMMs of the dense pass multiply every one of them. Each sum here is
// the GEMM's FMA chain with the zero terms left out: a chain starts at +0
// and is never −0, so a term 0·u adds nothing and the result has the
// GEMM's bits (u is finite: non-finite inputs are refused before
// training). The sparse pass needs accRows's kernels, no padding, kernel
// rows of whole vectors (k·inC a multiple of 8) and channels in whole
// vectors (outC a multiple of 8).

// sparseMaxDensity is the largest fraction of non-zero deltas for which
// the sparse pass is taken: per non-zero delta it does the dense pass's
// multiply-adds for that delta at about half the GEMM's speed per
// multiply-add.
const sparseMaxDensity = 0.4

// sparseDeltas lists one example's non-zero output deltas two ways: by
// position p (for the input gradient: entries rowStart[p]..rowStart[p+1]
// of rowOff, the delta's channel c as the weight row's offset c·K, and
// rowCoef) and by channel c (for the weight gradient: entries
// c·P..c·P+chanLen[c] of chanPos, the position, chanOff, its input
// offset, and chanCoef), both in ascending order.
type sparseDeltas struct {
	rowStart []int32
	rowOff   []int32
	rowCoef  []float32
	chanLen  []int32
	chanOff  []int32
	chanCoef []float32
	mask     []uint8 // bit j of mask[p·outC/8+v]: delta (p, 8v+j) ≠ 0
}

// sparseBackwardOK reports whether the layer's shape allows the sparse
// pass.
func (l *conv) sparseBackwardOK() bool {
	return haveAccRows && gemm.Path() != "purego" && l.pad == 0 && (l.k*l.inC)%8 == 0 && l.outC%8 == 0
}

// list fills sd with the non-zero deltas of one example's dOut (P×outC)
// and returns how many there are. The deltas are first reduced to bit
// masks by vector compares (a delta's zero test is a coin flip the branch
// predictor cannot learn), then only the set bits are visited.
func (l *conv) list(sd *sparseDeltas, dOut []float32) int {
	P, O, K := l.positions(), l.outC, l.kdim()
	V := O / 8 // mask bytes per position
	sd.mask = grow(sd.mask, P*V)
	nonzeroMasks(dOut[:P*O], sd.mask)
	sd.rowStart = grow(sd.rowStart, P+1)
	sd.rowOff = grow(sd.rowOff, P*O)
	sd.rowCoef = grow(sd.rowCoef, P*O)
	sd.chanLen = grow(sd.chanLen, O)
	sd.chanOff = grow(sd.chanOff, P*O)
	sd.chanCoef = grow(sd.chanCoef, P*O)
	clear(sd.chanLen)
	n := 0
	for p, at := range l.posOff {
		sd.rowStart[p] = int32(n)
		row := dOut[p*O : (p+1)*O]
		masks := sd.mask[p*V : (p+1)*V]
		for v0 := 0; v0 < V; v0 += 8 {
			// Up to 64 channels' bits in one word: one loop exit to
			// mispredict per word instead of one per byte.
			var m uint64
			for v, b := range masks[v0:min(v0+8, V)] {
				m |= uint64(b) << (8 * v)
			}
			for ; m != 0; m &= m - 1 {
				c := v0*8 + bits.TrailingZeros64(m)
				d := row[c]
				sd.rowOff[n], sd.rowCoef[n] = int32(c*K), d
				n++
				j := c*P + int(sd.chanLen[c])
				sd.chanOff[j], sd.chanCoef[j] = at, d
				sd.chanLen[c]++
			}
		}
	}
	sd.rowStart[P] = int32(n)
	return n
}

// backwardSparse is backward on the sparse pass, and reports whether it
// took it: it declines (having written nothing) when the first example's
// deltas are denser than sparseMaxDensity.
func (l *conv) backwardSparse(s *scratch, in, dOut, dIn []float32, b int, sq []float64, norms bool) bool {
	P, O, n := l.positions(), l.outC, l.numParams()
	if norms {
		s.pex = grow(s.pex, b*n)
	}
	for i := 0; i < b; i++ {
		d := dOut[i*P*O : (i+1)*P*O]
		nnz := l.list(&s.sparse, d)
		if i == 0 && float64(nnz) > sparseMaxDensity*float64(P*O) {
			return false
		}
		if dIn != nil {
			l.inputGradSparse(&s.sparse, dIn[i*l.inSize():(i+1)*l.inSize()])
		}
		if norms {
			g := s.pex[i*n : (i+1)*n]
			l.weightGradSparse(&s.sparse, in[i*l.inSize():(i+1)*l.inSize()], g)
			colSums(d, P, O, g[l.numWeights():])
			sq[i] += sumSq(g)
		}
	}
	s.materialised = norms
	return true
}

// inputGradSparse sets dx to one example's input gradient: what the dense
// pass's GEMM dOut·W and col2im compute, patch by patch in the same order
// (each input element receives its patches' sums p ascending).
func (l *conv) inputGradSparse(sd *sparseDeltas, dx []float32) {
	rowLen := l.k * l.inC
	clear(dx)
	for p, at := range l.posOff {
		lo, hi := sd.rowStart[p], sd.rowStart[p+1]
		if lo == hi {
			continue // the dense pass adds +0 here
		}
		accRowsSeg(dx[at:], l.inW*l.inC, l.w, rowLen, l.k, sd.rowOff[lo:hi], sd.rowCoef[lo:hi], rowLen, true)
	}
}

// weightGradSparse sets g's weights to one example's weight gradient Δᵀ·U
// (outC×K) from its input image x, the sums over positions cut into the
// dense GEMM's k-chunks.
func (l *conv) weightGradSparse(sd *sparseDeltas, x, g []float32) {
	P, K, rowLen := l.positions(), l.kdim(), l.k*l.inC
	kc := gemm.ChunkLength(P)
	for c := 0; c < l.outC; c++ {
		off := sd.chanOff[c*P : c*P+int(sd.chanLen[c])]
		coef := sd.chanCoef[c*P : c*P+len(off)]
		lo := 0
		for q := 0; q < P; q += kc {
			hi := len(off)
			if q+kc < P {
				// off ascends with the position: the chunk ends at the
				// first entry at or past position q+kc's offset.
				for hi = lo; hi < len(off) && off[hi] < l.posOff[q+kc]; hi++ {
				}
			}
			accRowsSeg(g[c*K:], rowLen, x, l.inW*l.inC, l.k, off[lo:hi], coef[lo:hi], rowLen, q > 0)
			lo = hi
		}
	}
}
