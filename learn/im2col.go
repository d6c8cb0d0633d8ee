package learn

import "unsafe"

// im2col writes the b×P×K patch matrix of the HWC images in into s.cols.
// Each image is first copied into the interior of a zero-bordered padded
// image (the border is never written, so it stays zero), after which every
// kernel row of every patch is one contiguous run of k·C floats. For one
// output row oy and kernel row ky, the runs of the outW patches start
// st·C floats apart in padded row oy·st+ky and land K floats apart in cols,
// so each (oy, ky) is one call of copyRuns.
func (l *conv) im2col(s *scratch, in []float32, b int) {
	P, K, C := l.positions(), l.kdim(), l.inC
	s.cols = grow(s.cols, b*P*K)
	cols := s.cols
	rowLen := l.k * C
	pw := (l.inW + 2*l.pad) * C // padded row, in floats
	for i := 0; i < b; i++ {
		x := in[i*l.inSize() : (i+1)*l.inSize()]
		if l.pad > 0 {
			x = l.padded(s, x)
		}
		u := cols[i*P*K : (i+1)*P*K]
		for oy := 0; oy < l.outH; oy++ {
			for ky := 0; ky < l.k; ky++ {
				src := x[(oy*l.st+ky)*pw:]
				copyRuns(u[oy*l.outW*K+ky*rowLen:], K, src, l.st*C, l.outW, rowLen)
			}
		}
	}
}

// padded copies one H×W×C image into the interior of the worker's padded
// buffer and returns the buffer.
func (l *conv) padded(s *scratch, x []float32) []float32 {
	C, pw := l.inC, l.inW+2*l.pad
	if s.pad == nil {
		s.pad = make([]float32, (l.inH+2*l.pad)*pw*C)
	}
	for y := 0; y < l.inH; y++ {
		copy(s.pad[((y+l.pad)*pw+l.pad)*C:((y+l.pad)*pw+l.pad+l.inW)*C], x[y*l.inW*C:(y+1)*l.inW*C])
	}
	return s.pad
}

// copyRuns copies n runs of w floats: dst[r·ds : r·ds+w] = src[r·ss : r·ss+w]
// for r < n. Long runs go through copy (memmove). Short ones — TanhCNN's
// first layer has runs of 8 floats, 1.6 million per step of 128 — would
// spend most of their time in memmove's call and dispatch, so when every run
// starts on an 8-byte boundary they are moved as uint64 pairs of floats
// (bits unchanged), else float by float.
func copyRuns(dst []float32, ds int, src []float32, ss int, n, w int) {
	if n <= 0 || w <= 0 {
		return
	}
	dst = dst[:(n-1)*ds+w]
	src = src[:(n-1)*ss+w]
	switch {
	case ds == w && ss == w: // one contiguous block (stride-1 pooling)
		copy(dst, src)
	case copyRunsVec(dst, ds, src, ss, n, w):
	case w >= 32:
		for r := 0; r < n; r++ {
			copy(dst[r*ds:r*ds+w], src[r*ss:r*ss+w])
		}
	case w == 3 && ss == 1:
		copyRuns3(dst, ds, src, n)
	case w%2 == 0 && ds%2 == 0 && ss%2 == 0 && aligned8(dst) && aligned8(src):
		copyRuns64(as64(dst), ds/2, as64(src), ss/2, n, w/2)
	default:
		for r := 0; r < n; r++ {
			d, s := dst[r*ds:r*ds+w], src[r*ss:r*ss+w]
			for j, v := range s {
				d[j] = v
			}
		}
	}
}

// copyRuns3 is copyRuns for runs of 3 floats one float apart in src: a
// 3×3 stride-1 convolution of one channel (Bernau et al.'s first layer),
// whose runs went float by float at 2 ns a float. It slides a 3-float
// window along src, one load per run.
func copyRuns3(dst []float32, ds int, src []float32, n int) {
	s := src[:n+2]
	a, b := s[0], s[1]
	for r := 0; r < n; r++ {
		d := dst[r*ds : r*ds+3 : r*ds+3]
		c := s[r+2]
		d[0], d[1], d[2] = a, b, c
		a, b = b, c
	}
}

// copyRuns64 is copyRuns on uint64 words (w < 16), unrolled for runs of 4
// words (8 floats, TanhCNN's first layer).
func copyRuns64(dst []uint64, ds int, src []uint64, ss int, n, w int) {
	if w == 4 && ss == 1 {
		// Overlapping runs one word apart (a stride-2 conv on one
		// channel): slide a 4-word window along src, one load per run.
		s := src[:n+3]
		a, b, c := s[0], s[1], s[2]
		for r := 0; r < n; r++ {
			d := dst[r*ds : r*ds+4 : r*ds+4]
			e := s[r+3]
			d[0], d[1], d[2], d[3] = a, b, c, e
			a, b, c = b, c, e
		}
		return
	}
	if w == 4 {
		for r := 0; r < n; r++ {
			d := dst[r*ds : r*ds+4 : r*ds+4]
			s := src[r*ss : r*ss+4 : r*ss+4]
			d[0], d[1], d[2], d[3] = s[0], s[1], s[2], s[3]
		}
		return
	}
	for r := 0; r < n; r++ {
		d, s := dst[r*ds:r*ds+w], src[r*ss:r*ss+w]
		for j, v := range s {
			d[j] = v
		}
	}
}

// aligned8 reports whether x (non-empty) starts on an 8-byte boundary.
func aligned8(x []float32) bool {
	return uintptr(unsafe.Pointer(&x[0]))%8 == 0
}

// as64 views an 8-byte-aligned float32 slice of even length as uint64
// words, each holding two floats' bits.
func as64(x []float32) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(&x[0])), len(x)/2)
}

// col2im is the adjoint of im2col: dIn = Σ over patches of their gradients,
// added run by run in the order of the patches (oy, then ox) for every
// element. With padding the sums go into a zero-bordered buffer whose
// interior is then copied out, so no run needs clipping at the border.
func (l *conv) col2im(s *scratch, dcols, dIn []float32, b int) {
	P, K, C := l.positions(), l.kdim(), l.inC
	rowLen := l.k * C
	pw := (l.inW + 2*l.pad) * C
	for i := 0; i < b; i++ {
		x := dIn[i*l.inSize() : (i+1)*l.inSize()]
		g := x
		if l.pad > 0 {
			s.dpad = grow(s.dpad, (l.inH+2*l.pad)*pw)
			g = s.dpad
		}
		clear(g)
		u := dcols[i*P*K : (i+1)*P*K]
		for oy := 0; oy < l.outH; oy++ {
			for ky := 0; ky < l.k; ky++ {
				addRuns(g[(oy*l.st+ky)*pw:], l.st*C, u[oy*l.outW*K+ky*rowLen:], K, l.outW, rowLen)
			}
		}
		if l.pad > 0 {
			for y := 0; y < l.inH; y++ {
				copy(x[y*l.inW*C:(y+1)*l.inW*C], g[(y+l.pad)*pw+l.pad*C:])
			}
		}
	}
}

// addRuns adds n runs of w floats: dst[r·ds : r·ds+w] += src[r·ss : r·ss+w]
// for r = 0, 1, …, n−1 in that order (runs may overlap in dst).
func addRuns(dst []float32, ds int, src []float32, ss int, n, w int) {
	if n <= 0 || w <= 0 {
		return
	}
	dst = dst[:(n-1)*ds+w]
	src = src[:(n-1)*ss+w]
	if addRunsVec(dst, ds, src, ss, n, w) {
		return
	}
	for r := 0; r < n; r++ {
		addInto(dst[r*ds:r*ds+w], src[r*ss:r*ss+w])
	}
}
