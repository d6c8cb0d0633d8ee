//go:build openblas && cgo

package gemm

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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

// BenchmarkOpenBLASPairs: honest side-by-side pairs. For each of
// GEMM_SHAPES (default the squares 512, 1024, 2048) it runs GEMM_PAIRS
// pairs (default 5); each pair times ours and OpenBLAS back to back on the
// same locked thread, alternating which goes first, each for at least
// GEMM_PAIR_SECONDS (default 0.5) of thread CPU time, so a burst of load
// hits both sides of a pair rather than all of one side's runs (which is
// what -count N on BenchmarkVsOpenBLAS does). Reported per shape: the
// median and range of the per-pair ratios ours/OpenBLAS in thread-CPU
// GFLOP/s and in wall GFLOP/s, each pair logged. Run with -benchtime 1x:
//
//	go test -tags openblas -run '^$' -bench OpenBLASPairs -benchtime 1x ./learn/gemm
//
// The GEMM_* overrides of BenchmarkTune apply to our side.
func BenchmarkOpenBLASPairs(b *testing.B) {
	tuneKnobs(b)
	spec := os.Getenv("GEMM_SHAPES")
	if spec == "" {
		spec = "0,0,512,512,512;0,0,1024,1024,1024;0,0,2048,2048,2048"
	}
	pairs, _ := strconv.Atoi(os.Getenv("GEMM_PAIRS"))
	if pairs < 1 {
		pairs = 5
	}
	secs, _ := strconv.ParseFloat(os.Getenv("GEMM_PAIR_SECONDS"), 64)
	if !(secs > 0) {
		secs = 0.5
	}
	openblas.SetThreads(1)
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
		b.Run(sp, func(b *testing.B) {
			a, lda, bm, ldb, c := benchOperands(s)
			ours := func() { Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) }
			theirs := func() { openblas.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) }
			flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
			cpuR, wallR := make([]float64, pairs), make([]float64, pairs)
			for b.Loop() {
				startThreadCPU(b)
				ours() // warm both before the first pair
				theirs()
				for p := range pairs {
					var o, t [2]float64 // cpu, wall GFLOP/s
					if p%2 == 0 {
						o, t = timeGEMM(ours, flops, secs), timeGEMM(theirs, flops, secs)
					} else {
						t, o = timeGEMM(theirs, flops, secs), timeGEMM(ours, flops, secs)
					}
					cpuR[p], wallR[p] = o[0]/t[0], o[1]/t[1]
					b.Logf("%s pair %d: ours %.1f / OpenBLAS %.1f cpu-GFLOP/s = %.3f; wall %.3f", sp, p, o[0], t[0], cpuR[p], wallR[p])
				}
			}
			for _, m := range []struct {
				unit string
				r    []float64
			}{{"cpu", cpuR}, {"wall", wallR}} {
				sorted := append([]float64(nil), m.r...)
				slices.Sort(sorted)
				b.ReportMetric(sorted[len(sorted)/2], m.unit+"-ratio-median")
				b.ReportMetric(sorted[0], m.unit+"-ratio-min")
				b.ReportMetric(sorted[len(sorted)-1], m.unit+"-ratio-max")
			}
		})
	}
}

// timeGEMM runs f until it has used secs of thread CPU time and returns
// its rate in GFLOP/s by thread CPU time and by wall time.
func timeGEMM(f func(), flops, secs float64) [2]float64 {
	c0, w0 := threadSeconds(), time.Now()
	n := 0
	for threadSeconds()-c0 < secs {
		f()
		n++
	}
	cpu, wall := threadSeconds()-c0, time.Since(w0).Seconds()
	return [2]float64{float64(n) * flops / cpu / 1e9, float64(n) * flops / wall / 1e9}
}
