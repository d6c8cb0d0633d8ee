package identify

import (
	"fmt"
	"math"
)

// Dissimilarity measures of the dataset-sensitivity crafter (Bernau et al.
// Sec. 5.1 and their code: 1 − SSIM for MNIST, Hamming for Purchase-100,
// Manhattan for Adult; Euclidean and cosine were also tried).
const (
	DistSSIM      = "ssim"      // 1 − SSIM (images)
	DistEuclidean = "euclidean" // ‖a − b‖₂
	DistHamming   = "hamming"   // #{j : a_j ≠ b_j} (the authors' Σ(a − b)² on binary features)
	DistManhattan = "manhattan" // ‖a − b‖₁
	DistCosine    = "cosine"    // 1 − ⟨a, b⟩/(‖a‖‖b‖) (1 if either is 0)
)

// metric computes d(i, j) between records of two sets whose per-record
// precomputations it holds.
type metric interface {
	// prepare precomputes what one record needs (SSIM: its window means
	// and variances); it is called once per record.
	prepare(x []float32) any
	// scratch returns buffers for dist, one per goroutine.
	scratch() any
	dist(a, b []float32, pa, pb, scr any) float64
}

// newMetric returns the metric by name; shape is the record's shape
// ([C, H, W] for images).
func newMetric(name string, shape []int, dataRange float64) (metric, error) {
	switch name {
	case DistEuclidean:
		return vecMetric(func(a, b []float32) float64 {
			var s float64
			for j := range a {
				d := float64(a[j]) - float64(b[j])
				s += d * d
			}
			return math.Sqrt(s)
		}), nil
	case DistHamming:
		return vecMetric(func(a, b []float32) float64 {
			n := 0
			for j := range a {
				if a[j] != b[j] {
					n++
				}
			}
			return float64(n)
		}), nil
	case DistManhattan:
		return vecMetric(func(a, b []float32) float64 {
			var s float64
			for j := range a {
				s += math.Abs(float64(a[j]) - float64(b[j]))
			}
			return s
		}), nil
	case DistCosine:
		return vecMetric(func(a, b []float32) float64 {
			var ab, aa, bb float64
			for j := range a {
				x, y := float64(a[j]), float64(b[j])
				ab, aa, bb = ab+x*y, aa+x*x, bb+y*y
			}
			if aa == 0 || bb == 0 {
				return 1
			}
			return 1 - ab/math.Sqrt(aa*bb)
		}), nil
	case DistSSIM:
		if len(shape) != 3 {
			return nil, fmt.Errorf("distance ssim needs images of shape [C, H, W], got records of shape %v (use a CNN model, or a tabular distance)", shape)
		}
		if shape[1] < ssimWin || shape[2] < ssimWin {
			return nil, fmt.Errorf("distance ssim needs images of at least %d×%d, got %v", ssimWin, ssimWin, shape)
		}
		if !(dataRange > 0) {
			return nil, fmt.Errorf("distance ssim: the images are constant (data range %v)", dataRange)
		}
		return &ssim{c: shape[0], h: shape[1], w: shape[2], r: dataRange}, nil
	}
	return nil, fmt.Errorf("unknown distance %q (want ssim, euclidean, hamming, manhattan or cosine)", name)
}

type vecMetric func(a, b []float32) float64

func (f vecMetric) prepare([]float32) any                    { return nil }
func (f vecMetric) scratch() any                             { return nil }
func (f vecMetric) dist(a, b []float32, _, _, _ any) float64 { return f(a, b) }

// ssim is 1 − SSIM as skimage.metrics.structural_similarity computes it
// with its defaults (the authors' call): a 7×7 uniform window, K1 = 0.01,
// K2 = 0.03, sample covariances (factor 49/48), the mean of the SSIM map
// over the windows that lie wholly inside the image (skimage crops the
// (7−1)/2-pixel border its reflect-padded filter produced), averaged over
// channels. dataRange is the pixel range (1 for images scaled to [0, 1],
// equivalent to skimage's 255 on the raw uint8 images).
type ssim struct {
	c, h, w int
	r       float64
}

const ssimWin = 7

// ssimStats are one image's per-window terms, per channel, for the
// (H−6)×(W−6) full windows: the mean μ, a = μ² + C1/2 and
// b = v + C2/2 (v the sample variance), so that a window's SSIM is
// (2μ_xμ_y + C1)(2v_xy + C2) / ((a_x + a_y)(b_x + b_y)).
type ssimStats struct{ mu, a, b []float64 }

func (s *ssim) oh() int { return s.h - ssimWin + 1 }
func (s *ssim) ow() int { return s.w - ssimWin + 1 }

func (s *ssim) consts() (c1, c2 float64) {
	return (0.01 * s.r) * (0.01 * s.r), (0.03 * s.r) * (0.03 * s.r)
}

// boxSums writes the 7×7 window sums of img (h×w) into out (oh×ow), by a
// horizontal then a vertical running sum; tmp holds h×ow.
func (s *ssim) boxSums(img []float64, tmp, out []float64) {
	h, w, ow, oh := s.h, s.w, s.ow(), s.oh()
	for y := 0; y < h; y++ {
		row := img[y*w : (y+1)*w]
		var acc float64
		for x := 0; x < ssimWin; x++ {
			acc += row[x]
		}
		t := tmp[y*ow : (y+1)*ow]
		t[0] = acc
		for x := 1; x < ow; x++ {
			acc += row[x+ssimWin-1] - row[x-1]
			t[x] = acc
		}
	}
	// Vertical: row by row (contiguous), out[y] = out[y−1] + tmp[y+6] − tmp[y−1].
	o0 := out[:ow]
	copy(o0, tmp[:ow])
	for y := 1; y < ssimWin; y++ {
		t := tmp[y*ow : (y+1)*ow]
		for x := range o0 {
			o0[x] += t[x]
		}
	}
	for y := 1; y < oh; y++ {
		prev, cur := out[(y-1)*ow:y*ow], out[y*ow:(y+1)*ow]
		add, sub := tmp[(y+ssimWin-1)*ow:(y+ssimWin)*ow], tmp[(y-1)*ow:y*ow]
		for x := range cur {
			cur[x] = prev[x] + add[x] - sub[x]
		}
	}
}

func (s *ssim) prepare(x []float32) any {
	n, m := s.h*s.w, s.oh()*s.ow()
	img, sq, tmp := make([]float64, n), make([]float64, n), make([]float64, s.h*s.ow())
	st := ssimStats{mu: make([]float64, s.c*m), a: make([]float64, s.c*m), b: make([]float64, s.c*m)}
	sum, sumSq := make([]float64, m), make([]float64, m)
	c1, c2 := s.consts()
	const np = ssimWin * ssimWin
	for c := 0; c < s.c; c++ {
		for i, v := range x[c*n : (c+1)*n] {
			img[i], sq[i] = float64(v), float64(v)*float64(v)
		}
		s.boxSums(img, tmp, sum)
		s.boxSums(sq, tmp, sumSq)
		for i := range sum {
			mu := sum[i] / np
			st.mu[c*m+i] = mu
			st.a[c*m+i] = mu*mu + c1/2
			st.b[c*m+i] = (sumSq[i]/np-mu*mu)*np/(np-1) + c2/2
		}
	}
	return st
}

type ssimScratch struct{ prod, tmp, sum []float64 }

func (s *ssim) scratch() any {
	return &ssimScratch{make([]float64, s.h*s.w), make([]float64, s.h*s.ow()), make([]float64, s.oh()*s.ow())}
}

func (s *ssim) dist(a, b []float32, pa, pb, scr any) float64 {
	sa, sb, sc := pa.(ssimStats), pb.(ssimStats), scr.(*ssimScratch)
	n, m := s.h*s.w, s.oh()*s.ow()
	prod, tmp, sum := sc.prod, sc.tmp, sc.sum
	c1, c2 := s.consts()
	const np = ssimWin * ssimWin
	const k = 2.0 / (np - 1) // 2·v_xy = k·(Σxy − np·μ_xμ_y)
	var total float64
	for c := 0; c < s.c; c++ {
		ac, bc := a[c*n:(c+1)*n], b[c*n:(c+1)*n]
		for i := range prod[:n] {
			prod[i] = float64(ac[i]) * float64(bc[i])
		}
		s.boxSums(prod, tmp, sum)
		mux, muy := sa.mu[c*m:(c+1)*m], sb.mu[c*m:(c+1)*m]
		ax, ay, bx, by := sa.a[c*m:(c+1)*m], sb.a[c*m:(c+1)*m], sa.b[c*m:(c+1)*m], sb.b[c*m:(c+1)*m]
		var acc float64
		for i, sxy := range sum[:m] {
			p := mux[i] * muy[i]
			acc += (2*p + c1) * (k*(sxy-np*p) + c2) / ((ax[i] + ay[i]) * (bx[i] + by[i]))
		}
		total += acc / float64(m)
	}
	return 1 - total/float64(s.c)
}
