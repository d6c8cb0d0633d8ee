//go:build amd64 && !purego

package glm

import "golang.org/x/sys/cpu"

//go:noescape
func spmm32(cols *int32, vals *float64, n int, a *float64, stride int, out *float64)

//go:noescape
func scatterAxpy(row *float64, cols *int32, vals *float64, n int, alpha float64)

var haveSpmm32 = cpu.X86.HasAVX

// addScaledSparse sets row[cols[l]] += alpha·vals[l] for every l, each
// product rounded before it is added. The columns must be in [0, len(row)).
func addScaledSparse(row []float64, cols []int32, vals []float64, alpha float64) {
	if !haveSpmm32 || len(cols) == 0 {
		addScaledSparseGo(row, cols, vals, alpha)
		return
	}
	_ = vals[len(cols)-1]
	scatterAxpy(&row[0], &cols[0], &vals[0], len(cols), alpha)
}

// rowTimesBlock sets out = Σ_k vals[k]·a[cols[k]·stride:][:len(out)], a
// block of columns of x̃ᵀA for a sparse row x̃ (see rowTimesBlockGo).
func rowTimesBlock(cols []int32, vals []float64, a []float64, stride int, out []float64) {
	if len(out) == spmmWidth && haveSpmm32 && len(cols) > 0 {
		_ = vals[len(cols)-1]
		_ = a[int(cols[len(cols)-1])*stride+spmmWidth-1] // the last row read: columns increase
		spmm32(&cols[0], &vals[0], len(cols), &a[0], stride, &out[0])
		return
	}
	rowTimesBlockGo(cols, vals, a, stride, out)
}
