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

// ssimStats are one image's window means μ and sample variances v, per
// channel, for the (H−6)×(W−6) full windows.
type ssimStats struct{ mu, v []float64 }

func (s *ssim) oh() int { return s.h - ssimWin + 1 }
func (s *ssim) ow() int { return s.w - ssimWin + 1 }

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
	for x := 0; x < ow; x++ {
		var acc float64
		for y := 0; y < ssimWin; y++ {
			acc += tmp[y*ow+x]
		}
		out[x] = acc
		for y := 1; y < oh; y++ {
			acc += tmp[(y+ssimWin-1)*ow+x] - tmp[(y-1)*ow+x]
			out[y*ow+x] = acc
		}
	}
}

func (s *ssim) prepare(x []float32) any {
	n, m := s.h*s.w, s.oh()*s.ow()
	img, sq, tmp := make([]float64, n), make([]float64, n), make([]float64, s.h*s.ow())
	st := ssimStats{mu: make([]float64, s.c*m), v: make([]float64, s.c*m)}
	sum, sumSq := make([]float64, m), make([]float64, m)
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
			st.v[c*m+i] = (sumSq[i]/np - mu*mu) * np / (np - 1)
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
	c1, c2 := (0.01*s.r)*(0.01*s.r), (0.03*s.r)*(0.03*s.r)
	const np = ssimWin * ssimWin
	var total float64
	for c := 0; c < s.c; c++ {
		for i := 0; i < n; i++ {
			prod[i] = float64(a[c*n+i]) * float64(b[c*n+i])
		}
		s.boxSums(prod, tmp, sum)
		var acc float64
		for i := 0; i < m; i++ {
			ux, uy := sa.mu[c*m+i], sb.mu[c*m+i]
			vxy := (sum[i]/np - ux*uy) * np / (np - 1)
			acc += (2*ux*uy + c1) * (2*vxy + c2) / ((ux*ux + uy*uy + c1) * (sa.v[c*m+i] + sb.v[c*m+i] + c2))
		}
		total += acc / float64(m)
	}
	return 1 - total/float64(s.c)
}
