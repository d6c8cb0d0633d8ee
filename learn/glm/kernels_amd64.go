//go:build amd64 && !purego

package glm

import "golang.org/x/sys/cpu"

var (
	haveAVX = cpu.X86.HasAVX
	haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

//go:noescape
func scatterAxpy(row *float64, cols *int32, vals *float64, n int, alpha float64)

//go:noescape
func kernel4x8FMA(a, b *float64, kc int, c *float64, ldc int)

//go:noescape
func quadFormFMA(b *float64, strideBytes int, kc *int32, kv *float64, nk int, index *int32, vals *float64, nq int, masks *float64) float64

// addScaledSparse sets row[cols[l]] += alpha·vals[l] for every l, each
// product rounded before it is added. The columns must be in [0, len(row)).
func addScaledSparse(row []float64, cols []int32, vals []float64, alpha float64) {
	if !haveAVX || len(cols) == 0 {
		addScaledSparseGo(row, cols, vals, alpha)
		return
	}
	_ = vals[len(cols)-1]
	scatterAxpy(&row[0], &cols[0], &vals[0], len(cols), alpha)
}

// kernel4x8 is kernel4x8Go in AVX2 (the same bits).
func kernel4x8(a, b []float64, kc int, c []float64, ldc int) {
	if !haveFMA || kc == 0 {
		kernel4x8Go(a, b, kc, c, ldc)
		return
	}
	_, _, _ = a[4*kc-1], b[8*kc-1], c[3*ldc+7]
	kernel4x8FMA(&a[0], &b[0], kc, &c[0], ldc)
}

// quadForm is quadFormGo in AVX2 (the same bits).
func quadForm(b []float64, stride int, kc []int32, kv []float64, index []int32, vals []float64) float64 {
	if !haveFMA || len(kc) == 0 {
		return quadFormGo(b, stride, kc, kv, index, vals)
	}
	_, _ = kv[len(kc)-1], vals[4*len(index)-1]
	_ = b[int(kc[len(kc)-1])*stride+4*int(index[len(index)-1])+3] // the last entry read: rows and quadruples increase
	return quadFormFMA(&b[0], stride*8, &kc[0], &kv[0], len(kc), &index[0], &vals[0], len(index), &quadMasks[0])
}
