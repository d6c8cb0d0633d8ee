package learn

import (
	"fmt"
	"math/rand/v2"
)

// dense is a fully connected layer y = W·a + b with W stored out×in
// (PyTorch's layout), so the flat parameters are W row by row, then b.
//
// Per-example gradients are never materialised for training. Example i's
// weight gradient is the outer product δ_i a_iᵀ, whose Frobenius norm is
// ‖δ_i‖·‖a_i‖; with the bias gradient δ_i the squared norm is
// ‖δ_i‖²(‖a_i‖² + 1). The clipped sum Σ_i c_i δ_i a_iᵀ = (c∘Δ)ᵀA is then one
// GEMM over the chunk.
type dense struct {
	in, out int
	hasBias bool
	w, b    []float32
}

func newDense(in, out int, bias bool) *dense { return &dense{in: in, out: out, hasBias: bias} }

func (d *dense) describe() string { return fmt.Sprintf("dense %d→%d", d.in, d.out) }
func (d *dense) inSize() int      { return d.in }
func (d *dense) outSize() int     { return d.out }

func (d *dense) numParams() int {
	if d.hasBias {
		return d.in*d.out + d.out
	}
	return d.in * d.out
}

func (d *dense) bind(p []float32) {
	d.w = p[:d.in*d.out]
	if d.hasBias {
		d.b = p[d.in*d.out : d.in*d.out+d.out]
	}
}

func (d *dense) initParams(r *rand.Rand, scheme string) {
	initWeights(r, scheme, d.w, d.b, d.in, d.out)
}

func (d *dense) newScratch(maxB int) *scratch {
	return &scratch{
		scaled: make([]float32, maxB*d.out),
		rowsq:  make([]float64, maxB),
		rowsq2: make([]float64, maxB),
		rowf32: make([]float32, maxB),
		// addBiasRows's tiled bias, for layers narrower than a vector.
		biasTile: make([]float32, 16*16),
	}
}

func (d *dense) forward(s *scratch, in, out []float32, b int) {
	sgemm(s.threads, false, true, b, d.out, d.in, 1, in, d.in, d.w, d.in, 0, out, d.out)
	if d.hasBias {
		addBiasRows(out, b, d.b, s.biasTile)
	}
}

func (d *dense) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if dIn != nil {
		sgemm(s.threads, false, false, b, d.in, d.out, 1, dOut, d.out, d.w, d.in, 0, dIn, d.in)
	}
	if !norms {
		return
	}
	rowSqNorms(dOut, b, d.out, s.rowsq, s.rowf32)
	inSq := s.inSq
	if inSq == nil {
		rowSqNorms(in, b, d.in, s.rowsq2, s.rowf32)
		inSq = s.rowsq2
	}
	extra := 0.0
	if d.hasBias {
		extra = 1
	}
	for i := 0; i < b; i++ {
		sq[i] += float64(s.rowsq[i] * (inSq[i] + extra)) // float64(…): no FMA
	}
}

func (d *dense) clippedSum(s *scratch, in, dOut, c []float32, b int, grad []float32) {
	gw := grad[:d.in*d.out]
	if b == 0 {
		clear(grad[:d.numParams()])
		return
	}
	scaleRows(s.scaled, dOut, b, d.out, c)
	sgemm(s.threads, true, false, d.out, d.in, b, 1, s.scaled, d.out, in, d.in, 0, gw, d.in)
	if d.hasBias {
		colSums(s.scaled, b, d.out, grad[d.in*d.out:d.numParams()])
	}
}

func (d *dense) perExample(s *scratch, in, dOut, c []float32, b int, dst []float32, stride int) {
	for i := 0; i < b; i++ {
		row := dst[i*stride : i*stride+d.numParams()]
		a := in[i*d.in : (i+1)*d.in]
		for o := 0; o < d.out; o++ {
			g := c[i] * dOut[i*d.out+o]
			w := row[o*d.in : (o+1)*d.in]
			for j, v := range a {
				w[j] = g * v
			}
			if d.hasBias {
				row[d.in*d.out+o] = g
			}
		}
	}
}
