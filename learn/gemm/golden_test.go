package gemm

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"testing"
)

// TestPortableGolden pins the portable path's exact bits: it rounds every
// product explicitly (generic.go), so the same inputs must give the same
// result on every architecture and GOAMD64 level. The digest was recorded on
// amd64; a run on arm64, riscv64, … that disagrees has found a platform
// difference. Covers Sgemm (all transposes, broadcast and edge tiles), Dot,
// Axpy and Tanh.
func TestPortableGolden(t *testing.T) {
	var generic *arch
	for _, ar := range available {
		if ar.name == "purego" {
			generic = ar
		}
	}
	useArch(t, generic)
	r := newRand("golden")
	gen := uniform(r)
	h := sha256.New()
	put := func(xs []float32) {
		for _, x := range xs {
			binary.Write(h, binary.LittleEndian, x)
		}
	}
	for ti := 0; ti < 4; ti++ {
		tA, tB := ti&1 == 1, ti&2 == 2
		m, n, k := 37, 29, 300
		a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		for _, x := range [][]float32{a, b, c} {
			for i := range x {
				x[i] = gen()
			}
		}
		lda, ldb := k, n
		if tA {
			lda = m
		}
		if tB {
			ldb = k
		}
		Sgemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, 0.3, c, n)
		put(c)
		put([]float32{Dot(b[:len(b)-7], a)})
		Axpy(-0.3, a[:len(c)], c)
		put(c)
		Tanh(c, c)
		put(c)
	}
	got := fmt.Sprintf("%x", h.Sum(nil))
	const want = "99214e7a70cd47ca02ee0f8852db2b679ac176c483fd0033274411873a6fe3a5"
	if got != want {
		t.Errorf("portable path digest %s, recorded %s", got, want)
	}
}
