package glm

import (
	"math"
	"slices"
)

// quadRows is the training set's rows by aligned quadruples of columns
// (quadruple q covers columns 4q … 4q+3): row j's quadruples are
// index[ptr[j]:ptr[j+1]], increasing, with their four values, zero where
// the row has no entry, at vals[4·ptr[j]:4·ptr[j+1]]. A quadratic form
// reads its matrix four columns at a time this way: MNIST's non-zeros
// come in runs of about five columns, so its 136 non-zeros per row fill
// about 54 quadruples.
type quadRows struct {
	ptr   []int
	index []int32
	vals  []float64
}

// quadsOf sets q to the rows of a CSR slice by quadruples: row j has the
// columns col[ptr[j]−ptr[0] : ptr[j+1]−ptr[0]] and their values in val
// alike, and its quadruples start at q.ptr[j]. q's storage is reused.
// Whether a non-zero starts a quadruple is added, not branched on: it is
// as good as random, and the branch's mispredictions took most of the
// time.
func quadsOf(ptr []int, col []int32, val []float64, q *quadRows) {
	rows := len(ptr) - 1
	q.ptr = append(q.ptr[:0], 0)
	n := 0
	for j := range rows { // count first: one allocation
		prev := int32(-1)
		for _, c := range col[ptr[j]-ptr[0] : ptr[j+1]-ptr[0]] {
			n += b2i(c>>2 != prev)
			prev = c >> 2
		}
		q.ptr = append(q.ptr, n)
	}
	q.index = slices.Grow(q.index[:0], n)[:n]
	q.vals = slices.Grow(q.vals[:0], 4*n)[:4*n]
	clear(q.vals)
	i := -1
	for j := range rows {
		lo, hi := ptr[j]-ptr[0], ptr[j+1]-ptr[0]
		prev := int32(-1)
		for k, c := range col[lo:hi] {
			i += b2i(c>>2 != prev)
			prev = c >> 2
			q.index[i] = prev
			q.vals[4*i+int(c&3)] = val[lo+k]
		}
	}
}

// b2i is 1 for true, 0 for false (the compiler emits a SETcc, no branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// quadMasks[c mod 4] weighs the quadruple holding column c in row c of a
// quadratic form's upper triangle: the columns left of c are the lower
// triangle's (0), c the diagonal (½, as the whole is doubled), the rest
// once (1).
var quadMasks = [16]float64{
	0.5, 1, 1, 1,
	0, 0.5, 1, 1,
	0, 0, 0.5, 1,
	0, 0, 0, 0.5,
}

// quadFormGo returns Σ_k kv[k]·(½·B[c_k][c_k]·x_{c_k} + Σ_{c > c_k}
// B[c_k][c]·x_c), where c_k = kc[k], x is the row given by its quadruples
// (index, vals; every c_k's quadruple among them) and B is symmetric, row
// c at b[c·stride:]: half of xᵀBx over the rows kc, when kc are all the
// row's non-zeros. Row c_k's sum runs over the quadruples from c_k's on
// in four interleaved chains of fused multiply-adds (quadruples 0, 4, 8,
// … from c_k's in the first, …), added (0+1)+(2+3), then weighed by
// kv[k] into a four-lane total by a fused multiply-add; the lanes are
// added (0+1)+(2+3) at the end. quadForm is the same arithmetic in AVX2.
func quadFormGo(b []float64, stride int, kc []int32, kv []float64, index []int32, vals []float64) float64 {
	var total [4]float64
	i := 0
	for k, c := range kc {
		for index[i] < c>>2 {
			i++
		}
		row := b[int(c)*stride:]
		var acc [4][4]float64
		for q := i; q < len(index); q++ {
			m, bq, xq := &acc[(q-i)%4], row[4*int(index[q]):][:4], vals[4*q:][:4]
			for l := range 4 {
				x := xq[l]
				if q == i {
					x *= quadMasks[4*(c&3)+int32(l)]
				}
				m[l] = math.FMA(bq[l], x, m[l])
			}
		}
		for l := range 4 {
			s := (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l])
			total[l] = math.FMA(kv[k], s, total[l])
		}
	}
	return (total[0] + total[1]) + (total[2] + total[3])
}

// dfilChunk is how many samples' quadratic forms are formed together, and
// dfilRows the rows of B each pass over them takes (dfilRows rows of
// B over MNIST's 618 active columns are 160 KB, in a core's second-level
// cache).
const (
	dfilChunk = 512
	dfilRows  = 32
)

// quadForms forms x̃_iᵀBx̃_i, a chunk of samples at a time, with B's rows
// and columns those of x̃ renumbered by pos (the active columns): the
// chunk's rows renumbered (col) and by quadruples (q), and where each
// row's non-zeros and quadruples enter each block of dfilRows rows of B,
// are built into a worker's scratch right before they are used, so they
// are still in its cache.
type quadForms struct {
	g              *Data
	pos            []int32 // the column of b (and of the forms) of each column of x̃
	b              []float64
	stride, blocks int
}

// quadScratch is a worker's storage for quadForms.
type quadScratch struct {
	col            []int32 // the chunk's columns, renumbered by pos
	q              quadRows
	kBound, qBound []int32 // [j·(blocks+1) + r]: offset of the chunk's row j's first non-zero (quadruple) in block r
	t              []float64
}

// forms returns x̃_iᵀBx̃_i for samples [lo, hi) (in s's storage): each
// the sum, block of rows after block, of twice the block's quadForm.
func (f *quadForms) forms(lo, hi int, s *quadScratch) []float64 {
	g := f.g
	base, end := g.rowPtr[lo], g.rowPtr[hi]
	s.col = slices.Grow(s.col[:0], end-base)[:end-base]
	for k, c := range g.col[base:end] {
		s.col[k] = f.pos[c]
	}
	vals := g.val[base:end]
	quadsOf(g.rowPtr[lo:hi+1], s.col, vals, &s.q)
	nb := f.blocks + 1
	s.kBound = slices.Grow(s.kBound[:0], (hi-lo)*nb)[:(hi-lo)*nb]
	s.qBound = slices.Grow(s.qBound[:0], (hi-lo)*nb)[:(hi-lo)*nb]
	for j := range hi - lo {
		bounds(s.col[g.rowPtr[lo+j]-base:g.rowPtr[lo+j+1]-base], dfilRows, s.kBound[j*nb:][:nb])
		bounds(s.q.index[s.q.ptr[j]:s.q.ptr[j+1]], dfilRows/4, s.qBound[j*nb:][:nb])
	}
	s.t = slices.Grow(s.t[:0], hi-lo)[:hi-lo]
	clear(s.t)
	for r := range f.blocks {
		for j := range hi - lo {
			k0, k1 := s.kBound[j*nb+r], s.kBound[j*nb+r+1]
			if k0 == k1 {
				continue
			}
			r0 := g.rowPtr[lo+j] - base
			c, v := s.col[r0+int(k0):r0+int(k1)], vals[r0+int(k0):r0+int(k1)]
			q0, q1 := s.q.ptr[j]+int(s.qBound[j*nb+r]), s.q.ptr[j+1]
			s.t[j] += 2 * quadForm(f.b, f.stride, c, v, s.q.index[q0:q1], s.q.vals[4*q0:4*q1])
		}
	}
	return s.t
}

// bounds sets out[b] to the offset of the first of the increasing xs that
// is ≥ b·width, for b < len(out): the number of xs below b·width, from a
// count of the xs in each width summed, with no branch on the data (the
// xs must be non-negative).
func bounds(xs []int32, width int, out []int32) {
	clear(out)
	for _, x := range xs {
		if b := int(x)/width + 1; b < len(out) {
			out[b]++
		}
	}
	for b := 1; b < len(out); b++ {
		out[b] += out[b-1]
	}
}
