package gemm

import "unsafe"

// genericRows are the plain loops whose results the vector kernels
// reproduce bit for bit (rows.go).
var genericRows = rowKernels{
	colSums: func(rows, cols int, xp *float32, ldx int, dp *float32) {
		x := unsafe.Slice(xp, (rows-1)*ldx+cols)
		dst := unsafe.Slice(dp, cols)
		clear(dst)
		for i := 0; i < rows; i++ {
			r := x[i*ldx : i*ldx+cols]
			for j, v := range r {
				dst[j] += v
			}
		}
	},
	addRowVector: func(rows, cols int, vp *float32, xp *float32, ldx int) {
		v := unsafe.Slice(vp, cols)
		x := unsafe.Slice(xp, (rows-1)*ldx+cols)
		for i := 0; i < rows; i++ {
			r := x[i*ldx : i*ldx+cols]
			for j, b := range v {
				r[j] += b
			}
		}
	},
	scaleRows: func(rows, cols int, sp *float32, srcp *float32, lds int, dstp *float32, ldd int) {
		s := unsafe.Slice(sp, rows)
		src := unsafe.Slice(srcp, (rows-1)*lds+cols)
		dst := unsafe.Slice(dstp, (rows-1)*ldd+cols)
		for i, c := range s {
			d, r := dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols]
			for j, v := range r {
				d[j] = c * v
			}
		}
	},
	nonFinite: func(x []float32) int {
		for i, v := range x {
			if v-v != 0 {
				return i
			}
		}
		return -1
	},
}
