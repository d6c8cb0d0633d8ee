//go:build amd64 && !purego

package glm

import "golang.org/x/sys/cpu"

var (
	haveAVX = cpu.X86.HasAVX
	haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

//go:noescape
func scatterRows(h *float64, strideBytes int, cols *int32, vals *float64, n, nk int, a float64)

//go:noescape
func kernel4x8FMA(a, b *float64, kc int, c *float64, ldc int)

//go:noescape
func quadFormFMA(b *float64, strideBytes int, kc *int32, kv *float64, nk int, index *int32, vals *float64, nq int, masks *float64) float64

// addOuterRows adds (a·v[k])·v[l] to h[c[k]·stride + c[l]] for every k <
// nk and l ≥ k, each product rounded before it is added: the upper
// triangle's rows c[:nk] of a·x̃x̃ᵀ for the sparse row x̃ = (c, v), whose
// columns must increase and lie in [0, stride).
func addOuterRows(h []float64, stride int, c []int32, v []float64, nk int, a float64) {
	if !haveAVX || nk == 0 {
		addOuterRowsGo(h, stride, c, v, nk, a)
		return
	}
	_, _ = v[len(c)-1], c[nk-1]
	_ = h[int(c[nk-1])*stride+int(c[len(c)-1])] // the last entry: columns increase
	scatterRows(&h[0], stride*8, &c[0], &v[0], len(c), nk, a)
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
