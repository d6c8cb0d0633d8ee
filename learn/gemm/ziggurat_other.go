//go:build !amd64 || purego

package gemm

var zigguratVector func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int

var zigguratScanVector func(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, vals []float32, slow []uint8)

var zigguratAddKeptVector func(vals []float32, skip []uint8, words int, dst []float32) (int, bool)

var zigguratWedgeVector func(x []float64, u []uint64, f, d []float64, c *[16]float64, acc []uint8, xs []float32)
