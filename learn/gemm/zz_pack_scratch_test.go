package gemm

import "testing"

func packA6Rows(dst []float32, a []float32, lda, i0, p0, kc int) {
	dst = dst[:kc*6]
	r0 := a[(i0+0)*lda+p0 : (i0+0)*lda+p0+kc]
	r1 := a[(i0+1)*lda+p0 : (i0+1)*lda+p0+kc]
	r2 := a[(i0+2)*lda+p0 : (i0+2)*lda+p0+kc]
	r3 := a[(i0+3)*lda+p0 : (i0+3)*lda+p0+kc]
	r4 := a[(i0+4)*lda+p0 : (i0+4)*lda+p0+kc]
	r5 := a[(i0+5)*lda+p0 : (i0+5)*lda+p0+kc]
	for p := range r0 {
		d := (*[6]float32)(dst[6*p:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
	}
}

func packBRowMajor(dst []float32, b []float32, ldb, p0, kc, j0, panels int) {
	for p := 0; p < kc; p++ {
		src := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+16*panels]
		for q := 0; q < panels; q++ {
			*(*[16]float32)(dst[q*kc*16+p*16:]) = *(*[16]float32)(src[16*q:])
		}
	}
}

func packBArr(dst []float32, b []float32, ldb, p0, kc, j0 int) {
	for p := 0; p < kc; p++ {
		*(*[16]float32)(dst[p*16:]) = *(*[16]float32)(b[(p0+p)*ldb+j0:])
	}
}

func BenchmarkPackScratch(b *testing.B) {
	const n = 1024
	a := make([]float32, n*n)
	for i := range a {
		a[i] = float32(i)
	}
	bm := make([]float32, n*n)
	dst := make([]float32, n*256+64)
	dst2 := make([]float32, n*256+64)
	b.Run("A6/old", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				for ir := 0; ir+6 <= n; ir += 6 {
					packA(dst[ir*256:], false, a, n, ir, 6, pc, 256)
				}
			}
		}
	})
	b.Run("A6/new", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				for ir := 0; ir+6 <= n; ir += 6 {
					packA6Rows(dst2[ir*256:], a, n, ir, pc, 256)
				}
			}
		}
	})
	for pc := 0; pc < n; pc += 256 {
		for ir := 0; ir+6 <= n; ir += 6 {
			packA(dst[ir*256:], false, a, n, ir, 6, pc, 256)
			packA6Rows(dst2[ir*256:], a, n, ir, pc, 256)
		}
	}
	for i := range dst {
		if dst[i] != dst2[i] {
			b.Fatal("A6 differs", i)
		}
	}
	b.Run("B/old", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				for q := 0; q < 64; q++ {
					packB(dst[q*256*16:], false, bm, n, pc, 256, q*16, 16, 16)
				}
			}
		}
	})
	b.Run("B/arr", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				for q := 0; q < 64; q++ {
					packBArr(dst[q*256*16:], bm, n, pc, 256, q*16)
				}
			}
		}
	})
	b.Run("B/rowmajor", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				packBRowMajor(dst, bm, n, pc, 256, 0, 64)
			}
		}
	})
}

func packBRowMajor8(dst []float32, b []float32, ldb, p0, kc, j0, panels int) {
	for p := 0; p < kc; p++ {
		src := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+16*panels]
		for q := 0; q < panels; q++ {
			d := dst[q*kc*16+p*16 : q*kc*16+p*16+16]
			s := src[16*q : 16*q+16]
			*(*[8]float32)(d[0:8]) = *(*[8]float32)(s[0:8])
			*(*[8]float32)(d[8:16]) = *(*[8]float32)(s[8:16])
		}
	}
}

func BenchmarkPackScratch2(b *testing.B) {
	const n = 1024
	bm := make([]float32, n*n)
	dst := make([]float32, n*256+64)
	b.Run("B/rowmajor", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				packBRowMajor(dst, bm, n, pc, 256, 0, 64)
			}
		}
	})
	b.Run("B/rowmajor8", func(b *testing.B) {
		for b.Loop() {
			for pc := 0; pc < n; pc += 256 {
				packBRowMajor8(dst, bm, n, pc, 256, 0, 64)
			}
		}
	})
}
