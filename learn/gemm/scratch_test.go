package gemm

import (
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

// Tuning knobs for ad-hoc runs: GEMM_KC, GEMM_MC, GEMM_PACKA, GEMM_PACKB.
func init() {
	set := func(env string, v *int) {
		if s := os.Getenv(env); s != "" {
			*v, _ = strconv.Atoi(s)
		}
	}
	set("GEMM_KC", &kcBlock)
	set("GEMM_MC", &mcTarget)
	set("GEMM_PACKA", &packAMinPanels)
	set("GEMM_ALIAS", &aliasStride)
	set("GEMM_PACKB", &packBMinTiles)
}
