package learn

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/learn/gemm"
)

// avgPool is average pooling over HWC images with a square window of size k
// and stride st, without padding (as in Guo et al.'s CNNs: "2×2, stride 1").
type avgPool struct {
	h, w, c, k, st int
	outH, outW     int
	inv            [1]float32 // 1/k², as the one-row scale of gemm.ScaleRows
}

func newAvgPool(h, w, c, k, stride int) (*avgPool, error) {
	if k > h || k > w {
		return nil, fmt.Errorf("avgpool %d does not fit a %d×%d input", k, h, w)
	}
	return &avgPool{h: h, w: w, c: c, k: k, st: stride, outH: (h-k)/stride + 1, outW: (w-k)/stride + 1,
		inv: [1]float32{1 / float32(k*k)}}, nil
}

func (p *avgPool) describe() string {
	return fmt.Sprintf("avgpool %dx%dx%d→%dx%d k%d s%d", p.c, p.h, p.w, p.outH, p.outW, p.k, p.st)
}
func (p *avgPool) inSize() int                   { return p.h * p.w * p.c }
func (p *avgPool) outSize() int                  { return p.outH * p.outW * p.c }
func (p *avgPool) numParams() int                { return 0 }
func (p *avgPool) bind([]float32)                {}
func (p *avgPool) initParams(*rand.Rand, string) {}

// Pooling works on the flat array of a block of consecutive images. For a
// window offset (dy, dx), shift = (dy·w + dx)·c, the array x[shift:] holds at
// index o = ((i·h + y)·w + x)·c + ch the value under that offset of the
// window whose top-left corner is (y, x) in image i. So the window sums of
// every corner are k² vector operations over the block,
// win[o] = Σ inv·x[o + shift], and the output keeps the corners of the
// outH×outW windows (y = oy·st, x = ox·st); the other entries of win
// straddle a row or image edge and are never read. The backward pass is the
// adjoint: scatter g to the kept corners of a zeroed win, then
// dIn[o + shift] += inv·win[o] for every offset. Blocks hold about
// poolBlock floats (at least one image), so the image, win and the output
// stay in L1 between the passes. A few long vector calls instead of one
// short call per output row and window offset, and no scalar scaling loop.
// Summation order, per output element: offsets (dy, dx) in ascending order,
// the first one scaled (inv is exact for 2×2 windows: 1/4).
const poolBlock = 4096

// poolImages is the number of images per block.
func (p *avgPool) poolImages() int { return max(1, poolBlock/p.inSize()) }

func (p *avgPool) newScratch(maxB int) *scratch {
	return &scratch{win: make([]float32, min(maxB, p.poolImages())*p.inSize())}
}

func (p *avgPool) forward(s *scratch, in, out []float32, b int) {
	inv, C := p.inv[0], p.c
	for i0 := 0; i0 < b; i0 += p.poolImages() {
		nb := min(b-i0, p.poolImages())
		x := in[i0*p.inSize() : (i0+nb)*p.inSize()]
		nw := len(x) - ((p.k-1)*p.w+p.k-1)*C // corners whose window is inside x
		win := s.win[:nw]
		for dy := 0; dy < p.k; dy++ {
			for dx := 0; dx < p.k; dx++ {
				shift := (dy*p.w + dx) * C
				if shift == 0 {
					gemm.ScaleRows(nw, p.inv[:], x, nw, win, nw)
					continue
				}
				gemm.Axpy(inv, x[shift:shift+nw], win)
			}
		}
		for i := 0; i < nb; i++ {
			y := out[(i0+i)*p.outSize() : (i0+i+1)*p.outSize()]
			w := win[i*p.inSize():]
			for oy := 0; oy < p.outH; oy++ {
				copyRuns(y[oy*p.outW*C:], C, w[oy*p.st*p.w*C:], p.st*C, p.outW, C)
			}
		}
	}
}

func (p *avgPool) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if dIn == nil {
		return
	}
	inv, C := p.inv[0], p.c
	for i0 := 0; i0 < b; i0 += p.poolImages() {
		nb := min(b-i0, p.poolImages())
		dx := dIn[i0*p.inSize() : (i0+nb)*p.inSize()]
		clear(dx)
		nw := len(dx) - ((p.k-1)*p.w+p.k-1)*C
		win := s.win[:nw]
		clear(win)
		for i := 0; i < nb; i++ {
			g := dOut[(i0+i)*p.outSize() : (i0+i+1)*p.outSize()]
			w := win[i*p.inSize():]
			for oy := 0; oy < p.outH; oy++ {
				copyRuns(w[oy*p.st*p.w*C:], p.st*C, g[oy*p.outW*C:], C, p.outW, C)
			}
		}
		for dy := 0; dy < p.k; dy++ {
			for ddx := 0; ddx < p.k; ddx++ {
				shift := (dy*p.w + ddx) * C
				gemm.Axpy(inv, win, dx[shift:shift+nw])
			}
		}
	}
}
