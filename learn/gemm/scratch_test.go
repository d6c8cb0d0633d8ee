package gemm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Scratch: GEMM_SHAPES="tA,tB,m,n,k;..." go test -bench Scratch
func BenchmarkScratch(b *testing.B) {
	for _, spec := range strings.Split(os.Getenv("GEMM_SHAPES"), ";") {
		if spec == "" {
			continue
		}
		f := strings.Split(spec, ",")
		v := make([]int, 5)
		for i := range f {
			v[i], _ = strconv.Atoi(f[i])
		}
		s := benchShape{name: spec, tA: v[0] == 1, tB: v[1] == 1, m: v[2], n: v[3], k: v[4]}
		a, lda, bm, ldb, c := benchOperands(s)
		for _, ar := range available[:2] {
			b.Run(spec+"/"+ar.name, func(b *testing.B) {
				useArch(b, ar)
				cpu := startThreadCPU(b)
				for b.Loop() {
					Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
				}
				reportGFLOPS(b, s, cpu)
			})
		}
	}
}

func BenchmarkScratchKernel(b *testing.B) {
	for _, ar := range available[:2] {
		for _, nv := range []int{1, 2} {
			for _, layout := range []int{0, 1} {
				mr := ar.maxMR[nv]
				kc := 256
				a := make([]float32, kc*mr+kc)
				bb := make([]float32, kc*nv*ar.width)
				c := make([]float32, mr*nv*ar.width)
				as := mr
				if layout == 1 {
					as = kc
				}
				k := ar.kernels[layout][nv][mr]
				b.Run(ar.name+"/"+strconv.Itoa(layout)+"/"+strconv.Itoa(nv)+"x"+strconv.Itoa(mr), func(b *testing.B) {
					for b.Loop() {
						k(kc, &a[0], as, &bb[0], nv*ar.width, &c[0], nv*ar.width, 1, 0, nv*ar.width)
					}
					b.ReportMetric(2*float64(kc*mr*nv*ar.width)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// Tuning knobs for ad-hoc runs: GEMM_PACKA, GEMM_ALIAS, GEMM_PACKB.
func init() {
	set := func(env string, v *int) {
		if s := os.Getenv(env); s != "" {
			*v, _ = strconv.Atoi(s)
		}
	}
	set("GEMM_PACKA", &packAMinPanels)
	set("GEMM_ALIAS", &aliasStride)
	set("GEMM_PACKB", &packBMinTiles)
}

// Per-example conv weight gradients as the trainer issues them: one TN GEMM
// per example over a batch of distinct operands.
func BenchmarkScratchBatch(b *testing.B) {
	for _, s := range []benchShape{{name: "conv1", tA: true, m: 16, n: 64, k: 196}, {name: "conv2", tA: true, m: 32, n: 256, k: 25}} {
		const batch = 128
		r := newRand("batch", s.name)
		gen := uniform(r)
		fill := func(n int) []float32 {
			x := make([]float32, n)
			for i := range x {
				x[i] = gen()
			}
			return x
		}
		A, B, C := fill(batch*s.m*s.k), fill(batch*s.k*s.n), fill(batch*s.m*s.n)
		for _, ar := range available[:2] {
			b.Run(s.name+"/"+ar.name, func(b *testing.B) {
				useArch(b, ar)
				cpu := startThreadCPU(b)
				for b.Loop() {
					for i := 0; i < batch; i++ {
						Sgemm(true, false, s.m, s.n, s.k, 1, A[i*s.m*s.k:(i+1)*s.m*s.k], s.m, B[i*s.k*s.n:(i+1)*s.k*s.n], s.n, 0, C[i*s.m*s.n:(i+1)*s.m*s.n], s.n)
					}
				}
				s2 := s
				s2.m *= batch
				reportGFLOPS(b, s2, cpu)
			})
		}
	}
}

func BenchmarkScratchTiny(b *testing.B) {
	for _, s := range []benchShape{{m: 1, n: 1, k: 1}, {m: 4, n: 4, k: 4}, {m: 16, n: 16, k: 16}, {tA: true, m: 10, n: 10, k: 10}, {tB: true, m: 10, n: 10, k: 10}} {
		a, lda, bm, ldb, c := benchOperands(s)
		b.Run(fmt.Sprintf("%dx%dx%d_%v%v", s.m, s.n, s.k, s.tA, s.tB), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
		})
	}
}

func BenchmarkScratchKernelSmallK(b *testing.B) {
	ar := available[0]
	for _, k := range []int{4, 16, 64} {
		a := make([]float32, 8*k)
		bb := make([]float32, k*16)
		c := make([]float32, 8*16)
		for i := range a {
			a[i] = 0.5
		}
		for i := range bb {
			bb[i] = 0.25
		}
		for _, layout := range []int{0, 1} {
			kern := ar.kernels[layout][1][8]
			as := 8
			if layout == 1 {
				as = k
			}
			b.Run(fmt.Sprintf("k=%d/layout=%d", k, layout), func(b *testing.B) {
				for b.Loop() {
					kern(k, &a[0], as, &bb[0], 16, &c[0], 16, 1, 0, 16)
				}
			})
		}
	}
}
