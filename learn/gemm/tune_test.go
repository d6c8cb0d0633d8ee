package gemm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Benchmarks for tuning and diagnosis rather than for the report.

// BenchmarkTune runs ad-hoc shapes on the assembly paths:
//
//	GEMM_SHAPES="tA,tB,m,n,k;..." go test -run X -bench Tune ./learn/gemm
//
// with tA, tB as 0/1. GEMM_PACKA, GEMM_ALIAS and GEMM_PACKB override the
// packing thresholds of blocking.go, GEMM_NODOT=1 disables the dot path.
func BenchmarkTune(b *testing.B) {
	tuneKnobs(b)
	for _, spec := range strings.Split(os.Getenv("GEMM_SHAPES"), ";") {
		f := strings.Split(spec, ",")
		if len(f) != 5 {
			continue
		}
		v := make([]int, 5)
		for i := range f {
			v[i], _ = strconv.Atoi(f[i])
		}
		s := benchShape{name: spec, tA: v[0] == 1, tB: v[1] == 1, m: v[2], n: v[3], k: v[4]}
		a, lda, bm, ldb, c := benchOperands(s)
		for _, ar := range available {
			if ar.name == "purego" {
				continue
			}
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

// BenchmarkKernel: the largest micro-kernel of each path and layout on
// operands that sit in L1 (k = 256): the ceiling Sgemm can approach.
func BenchmarkKernel(b *testing.B) {
	for _, ar := range available {
		for nv := 1; nv <= 2; nv++ {
			for layout := 0; layout < 2; layout++ {
				mr, kc, w := ar.maxMR[nv], 256, nv*ar.width
				a, bb, c := make([]float32, kc*mr), make([]float32, kc*w), make([]float32, mr*w)
				for i := range a {
					a[i] = 0.5
				}
				for i := range bb {
					bb[i] = 0.25
				}
				as := mr
				if layout == layoutRows {
					as = kc
				}
				kern := ar.kernels[layout][nv][mr]
				name := fmt.Sprintf("%s/%dx%d/%s", ar.name, mr, w, [2]string{"contig", "rows"}[layout])
				b.Run(name, func(b *testing.B) {
					cpu := startThreadCPU(b)
					for b.Loop() {
						kern(kc, &a[0], as, &bb[0], w, &c[0], w, 1, 0, w)
					}
					reportGFLOPS(b, benchShape{m: mr, n: w, k: kc}, cpu)
				})
			}
		}
	}
}

// BenchmarkSgemmTiny: fixed per-call cost (argument checks, plan,
// workspace, kernel call) on problems too small to amortise it.
func BenchmarkSgemmTiny(b *testing.B) {
	for _, s := range []benchShape{{m: 1, n: 1, k: 1}, {m: 4, n: 4, k: 4}, {m: 16, n: 16, k: 16}, {tB: true, m: 10, n: 10, k: 10}} {
		a, lda, bm, ldb, c := benchOperands(s)
		b.Run(fmt.Sprintf("%dx%dx%d/tB=%v", s.m, s.n, s.k, s.tB), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
		})
	}
}

// BenchmarkPerExample: the CNN's per-example conv weight gradients as the
// trainer issues them — one TN GEMM per example over a batch of 128 distinct
// operands (L3-resident, not hot in L1/L2).
func BenchmarkPerExample(b *testing.B) {
	for _, s := range []benchShape{{name: "conv1_TN_16x64x196", tA: true, m: 16, n: 64, k: 196}, {name: "conv2_TN_32x256x25", tA: true, m: 32, n: 256, k: 25}} {
		const batch = 128
		r := newRand("per-example", s.name)
		gen := uniform(r)
		fill := func(n int) []float32 {
			x := make([]float32, n)
			for i := range x {
				x[i] = gen()
			}
			return x
		}
		A, B, C := fill(batch*s.m*s.k), fill(batch*s.k*s.n), fill(batch*s.m*s.n)
		total := s
		total.m *= batch
		for _, ar := range available {
			b.Run(s.name+"/"+ar.name, func(b *testing.B) {
				useArch(b, ar)
				cpu := startThreadCPU(b)
				for b.Loop() {
					for i := 0; i < batch; i++ {
						Sgemm(true, false, s.m, s.n, s.k, 1, A[i*s.m*s.k:(i+1)*s.m*s.k], s.m,
							B[i*s.k*s.n:(i+1)*s.k*s.n], s.n, 0, C[i*s.m*s.n:(i+1)*s.m*s.n], s.n)
					}
				}
				reportGFLOPS(b, total, cpu)
			})
		}
	}
}

// tuneKnobs applies the GEMM_* overrides of BenchmarkTune for the rest of
// the benchmark.
func tuneKnobs(b *testing.B) {
	set := func(env string, v *int) {
		if s := os.Getenv(env); s != "" {
			old := *v
			*v, _ = strconv.Atoi(s)
			b.Cleanup(func() { *v = old })
		}
	}
	set("GEMM_PACKA", &packAMinPanels)
	set("GEMM_PACKA_WIDE", &packAWide)
	set("GEMM_NC", &ncTarget)
	if os.Getenv("GEMM_MC") != "" {
		old := mcTarget
		mcTarget, _ = strconv.Atoi(os.Getenv("GEMM_MC"))
		for _, ar := range available {
			ar.setup()
		}
		b.Cleanup(func() {
			mcTarget = old
			for _, ar := range available {
				ar.setup()
			}
		})
	}
	set("GEMM_ALIAS", &aliasStride)
	set("GEMM_PACKB", &packBMinTiles)
	set("GEMM_PACKB_STRIDE", &packBMinStride)
	set("GEMM_PACKB_ALIAS", &packBAliasStride)
	set("GEMM_PACKA_WIDE_SHORT", &packAWideShort)
	if os.Getenv("GEMM_NODOT") != "" {
		old := dotMinK
		dotMinK = func(int) int { return 1 << 30 }
		b.Cleanup(func() { dotMinK = old })
	}
}
