package learn

import (
	"fmt"
	"math/rand/v2"
)

// avgPool is average pooling over HWC images with a square window of size k
// and stride st, without padding (as in Guo et al.'s CNNs: "2×2, stride 1").
type avgPool struct {
	h, w, c, k, st int
	outH, outW     int
}

func newAvgPool(h, w, c, k, stride int) (*avgPool, error) {
	if k > h || k > w {
		return nil, fmt.Errorf("avgpool %d does not fit a %d×%d input", k, h, w)
	}
	return &avgPool{h: h, w: w, c: c, k: k, st: stride, outH: (h-k)/stride + 1, outW: (w-k)/stride + 1}, nil
}

func (p *avgPool) describe() string {
	return fmt.Sprintf("avgpool %dx%dx%d→%dx%d k%d s%d", p.c, p.h, p.w, p.outH, p.outW, p.k, p.st)
}
func (p *avgPool) inSize() int                   { return p.h * p.w * p.c }
func (p *avgPool) outSize() int                  { return p.outH * p.outW * p.c }
func (p *avgPool) numParams() int                { return 0 }
func (p *avgPool) bind([]float32)                {}
func (p *avgPool) initParams(*rand.Rand, string) {}
func (p *avgPool) newScratch(int) *scratch       { return &scratch{} }

func (p *avgPool) forward(s *scratch, in, out []float32, b int) {
	inv := 1 / float32(p.k*p.k)
	C := p.c
	for i := 0; i < b; i++ {
		x := in[i*p.inSize() : (i+1)*p.inSize()]
		y := out[i*p.outSize() : (i+1)*p.outSize()]
		for oy := 0; oy < p.outH; oy++ {
			if p.st == 1 {
				// Stride 1 in HWC: the window's column dx of a whole output
				// row is one contiguous run shifted by dx·C.
				dst := y[oy*p.outW*C : (oy+1)*p.outW*C]
				clear(dst)
				for dy := 0; dy < p.k; dy++ {
					row := x[(oy+dy)*p.w*C:]
					for dx := 0; dx < p.k; dx++ {
						addInto(dst, row[dx*C:dx*C+len(dst)])
					}
				}
				for j := range dst {
					dst[j] *= inv
				}
				continue
			}
			for ox := 0; ox < p.outW; ox++ {
				dst := y[(oy*p.outW+ox)*C : (oy*p.outW+ox+1)*C]
				clear(dst)
				for dy := 0; dy < p.k; dy++ {
					rowStart := ((oy*p.st+dy)*p.w + ox*p.st) * C
					for dx := 0; dx < p.k; dx++ {
						addInto(dst, x[rowStart+dx*C:rowStart+(dx+1)*C])
					}
				}
				for j := range dst {
					dst[j] *= inv
				}
			}
		}
	}
}

func (p *avgPool) backward(s *scratch, in, out, dOut, dIn []float32, b int, sq []float64, norms bool) {
	if dIn == nil {
		return
	}
	inv := 1 / float32(p.k*p.k)
	C := p.c
	clear(dIn[:b*p.inSize()])
	for i := 0; i < b; i++ {
		dx := dIn[i*p.inSize() : (i+1)*p.inSize()]
		dy := dOut[i*p.outSize() : (i+1)*p.outSize()]
		for oy := 0; oy < p.outH; oy++ {
			if p.st == 1 {
				g := dy[oy*p.outW*C : (oy+1)*p.outW*C]
				for ky := 0; ky < p.k; ky++ {
					row := dx[(oy+ky)*p.w*C:]
					for kx := 0; kx < p.k; kx++ {
						axpyInto(row[kx*C:kx*C+len(g)], inv, g)
					}
				}
				continue
			}
			for ox := 0; ox < p.outW; ox++ {
				g := dy[(oy*p.outW+ox)*C : (oy*p.outW+ox+1)*C]
				for ky := 0; ky < p.k; ky++ {
					rowStart := ((oy*p.st+ky)*p.w + ox*p.st) * C
					for kx := 0; kx < p.k; kx++ {
						axpyInto(dx[rowStart+kx*C:rowStart+(kx+1)*C], inv, g)
					}
				}
			}
		}
	}
}
