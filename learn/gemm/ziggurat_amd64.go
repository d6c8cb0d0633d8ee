//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:noescape
func zigguratAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, dst *float32) int

//go:noescape
func zigguratScanAVX512(w *uint64, groups int, kTab *uint32, wTab *float32, scale float32, vals *float32, slow *uint8)

// zigguratScanVector is ZigguratScan's kernel; nil without AVX-512.
var zigguratScanVector = func() func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, vals []float32, slow []uint8) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		return nil
	}
	return func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, vals []float32, slow []uint8) {
		_ = vals[2*len(w)-1]
		_ = slow[len(w)/8-1]
		zigguratScanAVX512(&w[0], len(w)/8, &kTab[0], &wTab[0], scale, &vals[0], &slow[0])
	}
}()

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

//go:noescape
func zigguratAddKeptAVX512(vals *float32, skip *uint8, words int, dst *float32) (n int, bad bool)

// zigguratAddKeptVector is ZigguratAddKept's kernel; nil without AVX-512.
var zigguratAddKeptVector = func() func(vals []float32, skip []uint8, words int, dst []float32) (int, bool) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 || !cpu.X86.HasPOPCNT {
		return nil
	}
	return zigguratAddKeptAVX512Slices
}()

func zigguratAddKeptAVX512Slices(vals []float32, skip []uint8, words int, dst []float32) (int, bool) {
	n, bad := zigguratAddKeptAVX512(&vals[0], &skip[0], words, &dst[0])
	return n, !bad
}

//go:noescape
func zigguratWedgeAVX512(x *float64, u *uint64, f *float64, d *float64, groups int, c *float64, acc *uint8, xs *float32)

// zigguratWedgeVector is ZigguratWedge's kernel; nil without AVX-512 DQ
// (the int64 ↔ float64 conversions).
var zigguratWedgeVector = func() func(x []float64, u []uint64, f, d []float64, c *[16]float64, acc []uint8, xs []float32) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512DQ {
		return nil
	}
	return func(x []float64, u []uint64, f, d []float64, c *[16]float64, acc []uint8, xs []float32) {
		zigguratWedgeAVX512(&x[0], &u[0], &f[0], &d[0], len(x)/8, &c[0], &acc[0], &xs[0])
	}
}()
