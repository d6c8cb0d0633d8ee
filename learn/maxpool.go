package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// maxPool is max pooling over HWC images with a square window of size k and
// stride st, without padding (Keras MaxPool2D, "valid"). The forward pass
// records, per output, the input offset of its maximum (the first one in
// row-major window order on ties, as TensorFlow), and the backward pass
// routes each output's gradient there. It is piecewise linear: its
// gradient is exact wherever the maximum of every window is unique.
type maxPool struct {
	h, w, c, k, st int
	outH, outW     int
}

func newMaxPool(h, w, c, k, stride int) (*maxPool, error) {
	if k > h || k > w {
		return nil, fmt.Errorf("maxpool %d does not fit a %d×%d input", k, h, w)
	}
	return &maxPool{h: h, w: w, c: c, k: k, st: stride, outH: (h-k)/stride + 1, outW: (w-k)/stride + 1}, nil
}

func (p *maxPool) describe() string {
	return fmt.Sprintf("maxpool %dx%dx%d→%dx%d k%d s%d", p.c, p.h, p.w, p.outH, p.outW, p.k, p.st)
}
func (p *maxPool) inSize() int                   { return p.h * p.w * p.c }
func (p *maxPool) outSize() int                  { return p.outH * p.outW * p.c }
func (p *maxPool) numParams() int                { return 0 }
func (p *maxPool) bind([]float32)                {}
func (p *maxPool) initParams(*rand.Rand, string) {}

func (p *maxPool) newScratch(maxB int) *scratch {
	return &scratch{argmax: make([]int32, maxB*p.outSize())}
}

func (p *maxPool) forward(s *scratch, in, out []float32, b int) {
	if p.k == 2 && p.st == 2 {
		p.forward2(s, in, out, b)
		return
	}
	p.forwardAny(s, in, out, b)
}

// forward2 is forward for 2×2 windows at stride 2 (every max-pooling
// layer of the presets): the four inputs of a window are read from two
// rows with the channel innermost, eight channels at a time by vector
// compares and blends where the CPU has AVX2 (branches on comparisons of
// noisy activations mispredicted half the time: the pool took more time
// than the convolution before it). The same comparisons in the same order
// as forwardAny (row-major window, strict >, so the first maximum wins
// ties, and NaN never wins), hence the same outputs and argmax.
func (p *maxPool) forward2(s *scratch, in, out []float32, b int) {
	C, W := p.c, p.w
	rowStride := W * C
	for i := 0; i < b; i++ {
		x := in[i*p.inSize() : (i+1)*p.inSize()]
		y := out[i*p.outSize() : (i+1)*p.outSize()]
		arg := s.argmax[i*p.outSize() : (i+1)*p.outSize()]
		for oy := 0; oy < p.outH; oy++ {
			row := 2 * oy * W * C
			if maxPool2Row(x[row:], y[oy*p.outW*C:], arg[oy*p.outW*C:], p.outW, C, rowStride, row) {
				continue
			}
			for ox := 0; ox < p.outW; ox++ {
				o := (oy*p.outW + ox) * C
				base := (2*oy*W + 2*ox) * C
				r0 := x[base : base+2*C]
				r1 := x[base+rowStride : base+rowStride+2*C]
				yo, ao := y[o:o+C], arg[o:o+C]
				for c := range yo {
					best, at := r0[c], int32(base+c)
					if v := r0[C+c]; v > best {
						best, at = v, int32(base+C+c)
					}
					if v := r1[c]; v > best {
						best, at = v, int32(base+rowStride+c)
					}
					if v := r1[C+c]; v > best {
						best, at = v, int32(base+rowStride+C+c)
					}
					yo[c], ao[c] = best, at
				}
			}
		}
	}
}

// forwardAny is forward for any window and stride.
func (p *maxPool) forwardAny(s *scratch, in, out []float32, b int) {
	C, W := p.c, p.w
	for i := 0; i < b; i++ {
		x := in[i*p.inSize() : (i+1)*p.inSize()]
		y := out[i*p.outSize() : (i+1)*p.outSize()]
		arg := s.argmax[i*p.outSize() : (i+1)*p.outSize()]
		for oy := 0; oy < p.outH; oy++ {
			for ox := 0; ox < p.outW; ox++ {
				o := (oy*p.outW + ox) * C
				base := (oy*p.st*W + ox*p.st) * C
				for c := 0; c < C; c++ {
					best, at := x[base+c], int32(base+c)
					for dy := 0; dy < p.k; dy++ {
						row := base + dy*W*C + c
						for dx := 0; dx < p.k; dx++ {
							if v := x[row+dx*C]; v > best {
								best, at = v, int32(row+dx*C)
							}
						}
					}
					y[o+c], arg[o+c] = best, at
				}
			}
		}
	}
}

// disjoint reports whether the windows do not overlap (stride ≥ size), so
// that backward routes at most one gradient to each input.
func (p *maxPool) disjoint() bool { return p.st >= p.k }

// backwardThroughReLU is backward followed by the backward pass of the
// ReLU whose output y is this layer's input (gemm.ReLUGrad with the ReLU's
// output), for disjoint windows: dIn receives ∂loss/∂x of the ReLU's input
// x. Each input gets at most one routed gradient, so the ReLU's mask needs
// applying only where one lands; everywhere else both passes leave +0.
// The same operations on the same values as the two passes (the routed
// sum 0 + g, then the mask of y's bits), without the ReLU's pass over
// every input: that pass and the pool's clear-and-scatter were an eighth
// of a Bernau et al. repetition (BenchmarkTable2eRepetition). pooled is
// this layer's output for y.
func (p *maxPool) backwardThroughReLU(s *scratch, y, pooled, dOut, dIn []float32, b int) {
	if p.k == 2 && p.st == 2 && p.backward2ThroughReLU(s, pooled, dOut, dIn, b) {
		return
	}
	for i := 0; i < b; i++ {
		dx := dIn[i*p.inSize() : (i+1)*p.inSize()]
		yi := y[i*p.inSize() : (i+1)*p.inSize()]
		clear(dx)
		g := dOut[i*p.outSize() : (i+1)*p.outSize()]
		for o, at := range s.argmax[i*p.outSize() : (i+1)*p.outSize()] {
			dx[at] += g[o]
			mask := uint32(-int32(math.Float32bits(yi[at])) >> 31)
			dx[at] = math.Float32frombits(math.Float32bits(dx[at]) & mask)
		}
	}
}

// backward2ThroughReLU is backwardThroughReLU for 2×2 windows at stride
// 2 by vector compares of each window's argmax with its four offsets,
// writing every input once instead of clearing dIn and scattering into
// it (the scatter's loads and stores, a third of them to a 43 KB image
// per example, took a tenth of a Bernau et al. repetition): the same
// values, +0 + g where the maximum was and +0 elsewhere, masked by the
// same bits, those of the ReLU's output at the maximum, which is the
// window's pooled output (so the ReLU's output, four times larger, is
// not read). It reports false, having written nothing, where the vector
// kernel does not run.
func (p *maxPool) backward2ThroughReLU(s *scratch, pooled, dOut, dIn []float32, b int) bool {
	C, W := p.c, p.w
	rowStride := W * C
	for i := 0; i < b; i++ {
		dx := dIn[i*p.inSize() : (i+1)*p.inSize()]
		yp := pooled[i*p.outSize() : (i+1)*p.outSize()]
		g := dOut[i*p.outSize() : (i+1)*p.outSize()]
		arg := s.argmax[i*p.outSize() : (i+1)*p.outSize()]
		for oy := 0; oy < p.outH; oy++ {
			row, o := 2*oy*rowStride, oy*p.outW*C
			if !maxPool2BackReLURow(dx[row:], yp[o:], g[o:], arg[o:], p.outW, C, rowStride, row) {
				return false
			}
			// An odd width leaves the last column out of every window.
			clear(dx[row+2*p.outW*C : row+rowStride])
			clear(dx[row+rowStride+2*p.outW*C : row+2*rowStride])
		}
		clear(dx[2*p.outH*rowStride:]) // and an odd height the last row
	}
	return true
}

func (p *maxPool) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if dIn == nil {
		return
	}
	for i := 0; i < b; i++ {
		dx := dIn[i*p.inSize() : (i+1)*p.inSize()]
		clear(dx)
		g := dOut[i*p.outSize() : (i+1)*p.outSize()]
		for o, at := range s.argmax[i*p.outSize() : (i+1)*p.outSize()] {
			dx[at] += g[o]
		}
	}
}
