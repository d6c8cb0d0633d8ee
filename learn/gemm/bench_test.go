package gemm

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
)

// benchShape is one GEMM the trainer issues (the models of the DP-SGD
// comparisons in docs/performance.md), named after the layer and pass.
type benchShape struct {
	name     string
	tA, tB   bool
	m, n, k  int
	squareOK bool // include the slow gonum baseline
}

// The CNN is conv 16 k8 s2 p3 on 1×28×28 → 16×14×14 (196 positions, patch
// 1·8·8 = 64) → avgpool 2 s1 → 13×13 → conv 32 k4 s2 → 32×5×5 (25 positions,
// patch 16·4·4 = 256) → avgpool → 32×4×4 = 512 → dense 32 → dense 10;
// batch 128. Per-example conv GEMMs are W·cols; "batched" ones stack the
// batch's im2col rows.
var benchShapes = []benchShape{
	{"logreg/fwd_NN_256x10x784", false, false, 256, 10, 784, true},
	{"logreg/fwd_NT_256x10x784", false, true, 256, 10, 784, true},
	{"logreg/grad_TN_10x784x256", true, false, 10, 784, 256, true},
	{"mlp512/fwd1_NN_256x512x784", false, false, 256, 512, 784, true},
	{"mlp512/fwd1_NT_256x512x784", false, true, 256, 512, 784, true},
	{"mlp512/grad1_TN_512x784x256", true, false, 512, 784, 256, true},
	{"mlp512/fwd2_NT_256x10x512", false, true, 256, 10, 512, true},
	{"mlp512/back2_NN_256x512x10", false, false, 256, 512, 10, true},
	{"mlp512/grad2_TN_10x512x256", true, false, 10, 512, 256, true},
	{"mlp128/fwd1_NT_64x128x784", false, true, 64, 128, 784, true},
	{"mlp128/fwd1_NN_64x128x784", false, false, 64, 128, 784, true},
	{"mlp128/grad1_TN_128x784x64", true, false, 128, 784, 64, true},
	{"mlp128/back2_NN_64x128x10", false, false, 64, 128, 10, true},
	{"cnn/conv1_fwd_NN_16x196x64", false, false, 16, 196, 64, true},
	{"cnn/conv1_dcols_batched_NN_25088x64x16", false, false, 25088, 64, 16, true},
	{"cnn/conv1_clipsum_TN_16x64x25088", true, false, 16, 64, 25088, true},
	{"cnn/conv1_fwd_batched_NT_25088x16x64", false, true, 25088, 16, 64, true},
	{"cnn/conv1_wgrad_NT_16x64x196", false, true, 16, 64, 196, true},
	{"logreg/dinput_NN_256x784x10", false, false, 256, 784, 10, true},
	{"cnn/conv1_wgrad_TN_16x64x196", true, false, 16, 64, 196, true},
	{"cnn/conv2_fwd_NN_32x25x256", false, false, 32, 25, 256, true},
	{"cnn/conv2_fwd_batched_NT_3200x32x256", false, true, 3200, 32, 256, true},
	{"cnn/conv2_dcols_batched_NN_3200x256x32", false, false, 3200, 256, 32, true},
	{"cnn/conv2_clipsum_TN_32x256x3200", true, false, 32, 256, 3200, true},
	{"cnn/conv2_wgrad_NT_32x256x25", false, true, 32, 256, 25, true},
	{"cnn/conv2_dcols_TN_256x25x32", true, false, 256, 25, 32, true},
	{"cnn/dense1_fwd_NT_128x32x512", false, true, 128, 32, 512, true},
	{"cnn/dense1_grad_TN_32x512x128", true, false, 32, 512, 128, true},
	{"square/NN_512", false, false, 512, 512, 512, true},
	{"square/NN_1024", false, false, 1024, 1024, 1024, false},
}

func benchOperands(s benchShape) (a []float32, lda int, b []float32, ldb int, c []float32) {
	r := newRand("bench", s.name)
	gen := uniform(r)
	ar, ac := s.m, s.k
	if s.tA {
		ar, ac = s.k, s.m
	}
	br, bc := s.k, s.n
	if s.tB {
		br, bc = s.n, s.k
	}
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = gen()
		}
		return x
	}
	return fill(ar * ac), ac, fill(br * bc), bc, fill(s.m * s.n)
}

// reportGFLOPS reports GFLOP/s over wall time (what a user sees) and over
// the thread's CPU time (robust to the machine being shared: it excludes
// time the benchmark was descheduled).
func reportGFLOPS(b *testing.B, s benchShape, cpu *threadCPU) {
	flops := 2 * float64(s.m) * float64(s.n) * float64(s.k) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu != nil {
		b.ReportMetric(flops/cpu.seconds()/1e9, "cpuGFLOP/s")
	}
}

// BenchmarkSgemm: every trainer shape on every path of this CPU, plus gonum's
// pure-Go Sgemm (the placeholder this package replaced). Reports GFLOP/s.
func BenchmarkSgemm(b *testing.B) {
	tuneKnobs(b)
	for _, s := range benchShapes {
		a, lda, bm, ldb, c := benchOperands(s)
		for _, ar := range available {
			b.Run(s.name+"/"+ar.name, func(b *testing.B) {
				useArch(b, ar)
				b.ReportAllocs()
				cpu := startThreadCPU(b)
				for b.Loop() {
					Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
				}
				reportGFLOPS(b, s, cpu)
			})
		}
		if !s.squareOK {
			continue
		}
		b.Run(s.name+"/gonum", func(b *testing.B) {
			ta, tb := blas.NoTrans, blas.NoTrans
			if s.tA {
				ta = blas.Trans
			}
			if s.tB {
				tb = blas.Trans
			}
			// gonum's Sgemm splits large products across goroutines, so
			// only its wall-time figure is meaningful.
			for b.Loop() {
				gblas.Implementation{}.Sgemm(ta, tb, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			reportGFLOPS(b, s, nil)
		})
	}
}

// BenchmarkSgemmParallel: the larger trainer shapes and the squares 1024
// and 2048 on the best path, with 1 and 2 goroutines one after the other
// (this machine has 2 cores), for side-by-side scaling ratios. Besides wall
// GFLOP/s it reports GFLOP/s per CPU-second of the whole process
// (procGFLOP/s): on a shared machine the wall ratio of 2 to 1 threads
// measures the other jobs as much as the code, while the per-CPU-second rate
// with 2 threads over that with 1 is the scaling the code would reach on
// idle cores (2 × that ratio).
func BenchmarkSgemmParallel(b *testing.B) {
	shapes := append(benchShapes[:len(benchShapes):len(benchShapes)],
		benchShape{name: "square/NN_2048", m: 2048, n: 2048, k: 2048})
	for _, s := range shapes {
		if 2*s.m*s.n*s.k < 8<<20 {
			continue // too small to be worth splitting
		}
		a, lda, bm, ldb, c := benchOperands(s)
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", s.name, threads), func(b *testing.B) {
				start := processSeconds()
				for b.Loop() {
					SgemmParallel(threads, s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
				}
				reportGFLOPS(b, s, nil)
				flops := 2 * float64(s.m) * float64(s.n) * float64(s.k) * float64(b.N)
				b.ReportMetric(flops/(processSeconds()-start)/1e9, "procGFLOP/s")
			})
		}
	}
}

// BenchmarkLevel1 reports GB/s-free throughput as elements per second for
// vector lengths the trainer uses (10 classes, 128/512 hidden, 784 inputs,
// 26,010 CNN parameters).
func BenchmarkLevel1(b *testing.B) {
	for _, n := range []int{10, 128, 784, 26010} {
		r := newRand("bench-l1", n)
		gen := uniform(r)
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = gen(), gen()
		}
		for _, ar := range available {
			useArch(b, ar)
			dot, axpy, scal := ar.dot, ar.axpy, ar.scal
			b.Run(fmt.Sprintf("Dot/%d/%s", n, ar.name), func(b *testing.B) {
				var s float32
				for b.Loop() {
					s += dot(x, y)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
			b.Run(fmt.Sprintf("Axpy/%d/%s", n, ar.name), func(b *testing.B) {
				for b.Loop() {
					axpy(1e-3, x, y)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
			b.Run(fmt.Sprintf("Scal/%d/%s", n, ar.name), func(b *testing.B) {
				for b.Loop() {
					scal(1.0000001, x)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
	}
}

// BenchmarkRows: the trainer's bookkeeping kernels at its sizes (bias sums
// and adds over 25,088×16 and 3,200×32 conv outputs and 256×10 logits;
// per-example scaling of 256×10 δ and 128 rows of 196·16; NaN checks over
// the CNN's 26,010 and the MLP's 407,050 parameters), every path, in
// elements per second. "purego" is the plain loop the trainer had.
func BenchmarkRows(b *testing.B) {
	r := newRand("bench-rows")
	gen := uniform(r)
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = gen()
		}
		return x
	}
	rate := func(b *testing.B, n int) {
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	}
	for _, ar := range available {
		useArch(b, ar)
		for _, sh := range []struct{ rows, cols int }{{25088, 16}, {3200, 32}, {256, 10}, {256, 100}} {
			x, v := fill(sh.rows*sh.cols), fill(sh.cols)
			b.Run(fmt.Sprintf("ColSums/%dx%d/%s", sh.rows, sh.cols, ar.name), func(b *testing.B) {
				for b.Loop() {
					ColSums(sh.rows, sh.cols, x, sh.cols, v)
				}
				rate(b, sh.rows*sh.cols)
			})
			b.Run(fmt.Sprintf("AddRowVector/%dx%d/%s", sh.rows, sh.cols, ar.name), func(b *testing.B) {
				for b.Loop() {
					AddRowVector(sh.rows, v, x, sh.cols)
				}
				rate(b, sh.rows*sh.cols)
			})
		}
		for _, sh := range []struct{ rows, cols int }{{256, 10}, {128, 3136}} {
			x, s, y := fill(sh.rows*sh.cols), fill(sh.rows), fill(sh.rows*sh.cols)
			b.Run(fmt.Sprintf("ScaleRows/%dx%d/%s", sh.rows, sh.cols, ar.name), func(b *testing.B) {
				// Into a separate y: rescaling x in place over and over would
				// drive it into subnormals and time those instead.
				for b.Loop() {
					ScaleRows(sh.cols, s, x, sh.cols, y, sh.cols)
				}
				rate(b, sh.rows*sh.cols)
			})
			ones := make([]float32, sh.rows)
			for i := range ones {
				ones[i] = 1
			}
			b.Run(fmt.Sprintf("ScaleRowsInPlace/%dx%d/%s", sh.rows, sh.cols, ar.name), func(b *testing.B) {
				for b.Loop() {
					ScaleRows(sh.cols, ones, y, sh.cols, y, sh.cols)
				}
				rate(b, sh.rows*sh.cols)
			})
			dst := make([]float32, sh.rows)
			b.Run(fmt.Sprintf("RowSumSquares/%dx%d/%s", sh.rows, sh.cols, ar.name), func(b *testing.B) {
				for b.Loop() {
					RowSumSquares(sh.cols, x, sh.cols, dst)
				}
				rate(b, sh.rows*sh.cols)
			})
		}
		for _, n := range []int{26010, 407050} {
			x := fill(n)
			b.Run(fmt.Sprintf("AllFinite/%d/%s", n, ar.name), func(b *testing.B) {
				for b.Loop() {
					AllFinite(x)
				}
				rate(b, n)
			})
		}
	}
}

// BenchmarkTanh: the CNN's activations (conv1 output 128·196·16 values per
// batch), every path; "purego" is the trainer's scalar loop.
func BenchmarkTanh(b *testing.B) {
	n := 128 * 196 * 16
	r := newRand("bench-tanh")
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = 3 * uniform(r)()
	}
	for _, ar := range available {
		b.Run(ar.name, func(b *testing.B) {
			useArch(b, ar)
			for b.Loop() {
				Tanh(y, x)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}
