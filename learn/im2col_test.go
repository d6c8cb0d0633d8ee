package learn

import (
	"fmt"
	"math"
	"testing"
)

// naiveIm2col is the definition: cols[(i·P + oy·outW + ox)·K + (ky·k+kx)·C + c]
// = x_i[oy·st+ky−pad, ox·st+kx−pad, c], zero outside the image.
func naiveIm2col(l *conv, in []float32, b int) []float32 {
	P, K, C := l.positions(), l.kdim(), l.inC
	cols := make([]float32, b*P*K)
	for i := 0; i < b; i++ {
		for oy := 0; oy < l.outH; oy++ {
			for ox := 0; ox < l.outW; ox++ {
				for ky := 0; ky < l.k; ky++ {
					for kx := 0; kx < l.k; kx++ {
						iy, ix := oy*l.st+ky-l.pad, ox*l.st+kx-l.pad
						if iy < 0 || iy >= l.inH || ix < 0 || ix >= l.inW {
							continue
						}
						for c := 0; c < C; c++ {
							cols[(i*P+oy*l.outW+ox)*K+(ky*l.k+kx)*C+c] = in[i*l.inSize()+(iy*l.inW+ix)*C+c]
						}
					}
				}
			}
		}
	}
	return cols
}

// naiveCol2im is its adjoint, adding each patch's gradient in patch order
// (oy, ox ascending, then ky, kx, c) — the order col2im promises.
func naiveCol2im(l *conv, dcols []float32, b int) []float32 {
	P, K, C := l.positions(), l.kdim(), l.inC
	dIn := make([]float32, b*l.inSize())
	for i := 0; i < b; i++ {
		for oy := 0; oy < l.outH; oy++ {
			for ox := 0; ox < l.outW; ox++ {
				for ky := 0; ky < l.k; ky++ {
					for kx := 0; kx < l.k; kx++ {
						iy, ix := oy*l.st+ky-l.pad, ox*l.st+kx-l.pad
						if iy < 0 || iy >= l.inH || ix < 0 || ix >= l.inW {
							continue
						}
						for c := 0; c < C; c++ {
							dIn[i*l.inSize()+(iy*l.inW+ix)*C+c] += dcols[(i*P+oy*l.outW+ox)*K+(ky*l.k+kx)*C+c]
						}
					}
				}
			}
		}
	}
	return dIn
}

// TestIm2colCol2imMatchDefinition compares the fast im2col and col2im (run
// copies, uint64 moves, padded buffers) with the element-by-element
// definitions above, bit for bit, on shapes that take every path of
// copyRuns: TanhCNN's two layers (runs of 8 aligned floats; runs of 64),
// odd run lengths and strides, and inputs starting off an 8-byte boundary.
// Tolerance: none — both copy values, and col2im adds in the same order.
func TestIm2colCol2imMatchDefinition(t *testing.T) {
	shapes := []struct{ h, w, c, o, k, s, p int }{
		{28, 28, 1, 16, 8, 2, 3},  // TanhCNN conv 1
		{13, 13, 16, 32, 4, 2, 0}, // TanhCNN conv 2
		{28, 28, 1, 16, 3, 1, 0},  // BernauCNN conv 1 (runs of 3 floats one apart)
		{13, 13, 16, 16, 3, 1, 0}, // BernauCNN conv 2 (runs of 48 overlapping in col2im)
		{7, 7, 2, 3, 3, 2, 1},
		{8, 6, 1, 3, 3, 1, 2},
		{9, 9, 3, 2, 2, 3, 0},
		{6, 6, 1, 1, 4, 1, 1},
		{5, 5, 4, 2, 5, 1, 0},
	}
	for _, sh := range shapes {
		for _, offset := range []int{0, 1} {
			t.Run(fmt.Sprintf("%dx%dx%d-k%d-s%d-p%d-off%d", sh.h, sh.w, sh.c, sh.k, sh.s, sh.p, offset), func(t *testing.T) {
				l := mustConv(t, sh.h, sh.w, sh.c, sh.o, sh.k, sh.s, sh.p)
				const b = 3
				raw, _ := randomData(21, 1, offset+b*l.inSize(), 2)
				in := raw[offset:]
				s := l.newScratch(b)
				l.im2col(s, in, b)
				want := naiveIm2col(l, in, b)
				for j, v := range want {
					if math.Float32bits(s.cols[j]) != math.Float32bits(v) {
						t.Fatalf("im2col[%d] = %g, want %g", j, s.cols[j], v)
					}
				}
				rawD, _ := randomData(22, 1, offset+len(want), 2)
				dcols := rawD[offset:]
				dIn := make([]float32, b*l.inSize())
				for j := range dIn {
					dIn[j] = float32(math.NaN()) // col2im must overwrite, not add
				}
				l.col2im(s, dcols, dIn, b)
				wantD := naiveCol2im(l, dcols, b)
				for j, v := range wantD {
					if math.Float32bits(dIn[j]) != math.Float32bits(v) {
						t.Fatalf("col2im[%d] = %g, want %g", j, dIn[j], v)
					}
				}
			})
		}
	}
}
