//go:build openblas && cgo

package gemm

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/learn/gemm/internal/openblas"
)

// TestOpenBLASAgrees: the comparison is only meaningful if both compute the
// same product; on small integers both are exact.
func TestOpenBLASAgrees(t *testing.T) {
	openblas.SetThreads(1)
	r := newRand("openblas")
	for _, s := range benchShapes[:6] {
		a, lda, b, ldb, _ := benchOperands(s)
		gen := smallInts(r)
		for i := range a {
			a[i] = gen()
		}
		for i := range b {
			b[i] = gen()
		}
		c1, c2 := make([]float32, s.m*s.n), make([]float32, s.m*s.n)
		Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0, c1, s.n)
		openblas.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0, c2, s.n)
		for i := range c1 {
			if c1[i] != c2[i] || math.IsNaN(float64(c1[i])) {
				t.Fatalf("%s: element %d: Sgemm %v, OpenBLAS %v", s.name, i, c1[i], c2[i])
			}
		}
	}
	t.Logf("OpenBLAS core: %s", openblas.Core())
}

// BenchmarkOpenBLAS: the shapes of BenchmarkSgemm through OpenBLAS, one
// thread (and two, wall time only, for the larger ones).
func BenchmarkOpenBLAS(b *testing.B) {
	for _, s := range benchShapes {
		a, lda, bm, ldb, c := benchOperands(s)
		b.Run(s.name+"/openblas", func(b *testing.B) {
			openblas.SetThreads(1)
			cpu := startThreadCPU(b)
			for b.Loop() {
				openblas.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			reportGFLOPS(b, s, cpu)
		})
		if 2*s.m*s.n*s.k < 8<<20 {
			continue
		}
		b.Run(s.name+"/openblas-threads=2", func(b *testing.B) {
			openblas.SetThreads(2)
			defer openblas.SetThreads(1)
			for b.Loop() {
				openblas.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			reportGFLOPS(b, s, nil)
		})
	}
}

// BenchmarkVsOpenBLAS: GEMM_SHAPES (as BenchmarkTune; default the squares
// 512, 1024, 2048) on the best path and through OpenBLAS, one thread each,
// one after the other, for side-by-side ratios on a shared machine. Set
// OPENBLAS_CORETYPE=SkylakeX to get OpenBLAS's AVX-512 kernels, and
// GEMM_PATH=avx2 with OPENBLAS_CORETYPE=Haswell to compare the AVX2 paths.
func BenchmarkVsOpenBLAS(b *testing.B) {
	spec := os.Getenv("GEMM_SHAPES")
	if spec == "" {
		spec = "0,0,512,512,512;0,0,1024,1024,1024;0,0,2048,2048,2048"
	}
	openblas.SetThreads(1)
	tuneKnobs(b)
	ar := current
	for _, a := range available {
		if a.name == os.Getenv("GEMM_PATH") {
			ar = a // e.g. GEMM_PATH=avx2 against OPENBLAS_CORETYPE=Haswell
		}
	}
	for _, sp := range strings.Split(spec, ";") {
		f := strings.Split(sp, ",")
		if len(f) != 5 {
			continue
		}
		v := make([]int, 5)
		for i := range f {
			v[i], _ = strconv.Atoi(f[i])
		}
		s := benchShape{name: sp, tA: v[0] == 1, tB: v[1] == 1, m: v[2], n: v[3], k: v[4]}
		a, lda, bm, ldb, c := benchOperands(s)
		b.Run(sp+"/"+ar.name, func(b *testing.B) {
			useArch(b, ar)
			cpu := startThreadCPU(b)
			for b.Loop() {
				Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			reportGFLOPS(b, s, cpu)
		})
		b.Run(sp+"/openblas-"+openblas.Core(), func(b *testing.B) {
			cpu := startThreadCPU(b)
			for b.Loop() {
				openblas.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			reportGFLOPS(b, s, cpu)
		})
	}
}
