package gemm

import (
	"fmt"
	"math"
	"testing"
)

// Every generated kernel, called directly, against the float64 reference —
// Sgemm's tiling reaches only some tile heights for a given shape, so the
// shape-level tests alone would leave kernels unexercised. Integer data
// makes the expected values exact; k = 37 and 53 exercise the unrolled loop,
// its remainder and (dot kernels) a masked tail.

func TestEveryBroadcastKernel(t *testing.T) {
	r := newRand("every-kernel")
	gen := smallInts(r)
	for _, ar := range available {
		for layout := 0; layout < 2; layout++ {
			for nv := 1; nv <= 2; nv++ {
				for mr := 1; mr < len(ar.kernels[layout][nv]); mr++ {
					kern := ar.kernels[layout][nv][mr]
					w := nv * ar.width
					for _, nr := range []int{w - ar.width + 1, w} {
						for _, k := range []int{37, 53} {
							for _, beta := range []float32{0, -2} {
								name := fmt.Sprintf("%s/layout=%d/%dx%d/nr=%d/k=%d/beta=%v", ar.name, layout, mr, w, nr, k, beta)
								as := mr + 2 // contig: step stride
								if layout == layoutRows {
									as = k + 3 // rows: row stride
								}
								a := make([]float32, max(k*as, mr*as))
								for i := range a {
									a[i] = gen()
								}
								at := func(i, p int) float32 {
									if layout == layoutRows {
										return a[i*as+p]
									}
									return a[p*as+i]
								}
								bs := w + 1
								b := make([]float32, k*bs)
								for i := range b {
									b[i] = gen()
								}
								ldc := w + 2
								c := make([]float32, mr*ldc)
								for i := range c {
									c[i] = gen()
								}
								c0 := append([]float32(nil), c...)
								kern(k, &a[0], as, &b[0], bs, &c[0], ldc, 3, beta, nr)
								for i := 0; i < mr; i++ {
									for j := 0; j < ldc; j++ {
										want := float64(c0[i*ldc+j])
										if j < nr {
											var s float64
											for p := 0; p < k; p++ {
												s += float64(at(i, p)) * float64(b[p*bs+j])
											}
											want = 3*s + float64(beta)*want
										}
										if float64(c[i*ldc+j]) != want {
											t.Fatalf("%s: C[%d][%d] = %v, want %v", name, i, j, c[i*ldc+j], want)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestEveryDotKernel(t *testing.T) {
	r := newRand("every-dot-kernel")
	gen := smallInts(r)
	for _, ar := range available {
		for cols := 1; cols < len(ar.dotKernels); cols++ {
			for rows := 1; rows < len(ar.dotKernels[cols]); rows++ {
				kern := ar.dotKernels[cols][rows]
				for _, k := range []int{16, 37, 53, 8, 1} {
					for _, beta := range []float32{0, 0.5} {
						lda, ldb, ldc := k+1, k+2, cols+3
						a := make([]float32, rows*lda)
						b := make([]float32, cols*ldb)
						c := make([]float32, rows*ldc)
						for _, x := range [][]float32{a, b, c} {
							for i := range x {
								x[i] = gen()
							}
						}
						c0 := append([]float32(nil), c...)
						kern(k, &a[0], lda, &b[0], ldb, &c[0], ldc, -2, beta, cols)
						for i := 0; i < rows; i++ {
							for j := 0; j < ldc; j++ {
								want := float64(c0[i*ldc+j])
								if j < cols {
									var s float64
									for p := 0; p < k; p++ {
										s += float64(a[i*lda+p]) * float64(b[j*ldb+p])
									}
									want = -2*s + float64(beta)*want
								}
								if got := float64(c[i*ldc+j]); got != want || math.IsNaN(got) {
									t.Fatalf("%s dot %dx%d k=%d beta=%v: C[%d][%d] = %v, want %v",
										ar.name, rows, cols, k, beta, i, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}
