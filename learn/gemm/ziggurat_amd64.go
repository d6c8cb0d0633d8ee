//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func zigguratAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, dst *float32) int

// zigguratVector handles whole groups of 8 words (16 draws, one ZMM) with
// gathers from the tables; nil without AVX-512 (the AVX2 gathers are too
// slow to pay here). Used only while the AVX-512 path is current.
var zigguratVector = func() func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int {
		_ = dst[2*len(w)-1]
		return zigguratAVX512(&w[0], len(w)/8, &kTab[0], &wTab[0], scale, &dst[0])
	}
}()
