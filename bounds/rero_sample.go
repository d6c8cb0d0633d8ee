package bounds

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/rng"
)

// reroChunk is the number of Monte Carlo samples drawn from one rng stream.
// It is fixed, not derived from the worker count, so that every sample has
// the same stream and position for any GOMAXPROCS.
const reroChunk = 4096

// lossSampler draws the privacy loss L = log(μ/ν)(w) of the Hayes et al. pair
// at a random w, coordinate by coordinate, never storing w (memory O(1) per
// sample). Per coordinate, with w_t = σz_t (ν) or b_t + σz_t (μ, b_t ∼ Bern(q)),
//
//	log(μ/ν)_t = log(1 − q + q·e^{a_t}),  a_t = (2w_t − 1)/(2σ²) = z_t/σ ∓ 1/(2σ²),
//
// written as log(1−q) + log1p(ρ·e^{a_t}) with ρ = q/(1−q). The factors
// 1 + ρ·e^{a_t} ≥ 1 are multiplied in linear space and the product is logged
// only when it passes 1e150 and once at the end, so a coordinate costs one
// normal draw and one exp (fastExp).
type lossSampler struct {
	q, invSigma, half float64
	steps             int
	constant          float64 // T·log(1−q)
	rho               float64 // q/(1−q)
	logRho            float64
	// binomCDF[k] = P[Bin(T, q) ≤ k]: under μ the number of coordinates with
	// mean 1 is drawn once per sample (the loss is symmetric in the
	// coordinates, so which ones does not matter).
	binomCDF []float64
}

func newLossSampler(m DPSGD) *lossSampler {
	s := &lossSampler{
		q:        m.SamplingRate,
		invSigma: 1 / m.NoiseMultiplier,
		half:     0.5 / (m.NoiseMultiplier * m.NoiseMultiplier),
		steps:    m.Steps,
	}
	if s.q < 1 {
		s.constant = float64(m.Steps) * math.Log1p(-s.q)
		s.rho = s.q / (1 - s.q)
		s.logRho = math.Log(s.rho)
	}
	s.binomCDF = binomialCDF(m.Steps, s.q)
	return s
}

// binomialCDF returns P[Bin(n, q) ≤ k] for k = 0..n, the last entry forced
// to 1. Terms are computed in log space, so large n and tiny q are fine.
func binomialCDF(n int, q float64) []float64 {
	cdf := make([]float64, n+1)
	if q == 1 {
		cdf[n] = 1
		return cdf
	}
	lq, l1q := math.Log(q), math.Log1p(-q)
	lgN, _ := math.Lgamma(float64(n + 1))
	acc := 0.0
	for k := 0; k <= n; k++ {
		lgK, _ := math.Lgamma(float64(k + 1))
		lgNK, _ := math.Lgamma(float64(n - k + 1))
		acc += math.Exp(lgN - lgK - lgNK + float64(k)*lq + float64(n-k)*l1q)
		cdf[k] = math.Min(acc, 1)
	}
	cdf[n] = 1
	return cdf
}

// flushAbove is where the running product of log1p factors is logged and
// reset; far from overflow even after one more factor of e^{300}·ρ.
const flushAbove = 1e150

// bigExponent is where a factor is added in log space instead (e^{a} would
// push the product towards overflow).
const bigExponent = 300.0

// draw returns one sample of L with `shifted` coordinates drawn from N(1, σ²)
// and the rest from N(0, σ²).
func (s *lossSampler) draw(r *rand.Rand, shifted int) float64 {
	if s.q == 1 {
		// log(μ/ν)_t = a_t exactly.
		sum := 0.0
		for t := 0; t < s.steps; t++ {
			sum += r.NormFloat64()
		}
		return sum*s.invSigma + float64(2*shifted-s.steps)*s.half
	}
	logSum, prod := s.constant, 1.0
	// The first `shifted` coordinates have mean 1 (a_t = z/σ + 1/(2σ²)), the
	// rest mean 0; two loops keep the branch out of the inner one.
	for t, offset := 0, s.half; t < s.steps; t++ {
		if t == shifted {
			offset = -s.half
		}
		a := r.NormFloat64()*s.invSigma + offset
		if a > bigExponent {
			logSum += s.logRho + a + math.Log1p(math.Exp(-a)/s.rho)
			continue
		}
		prod *= 1 + s.rho*fastExp(a)
		if prod > flushAbove {
			logSum += math.Log(prod)
			prod = 1
		}
	}
	return logSum + math.Log(prod)
}

// drawNu returns L at a sample of ν.
func (s *lossSampler) drawNu(r *rand.Rand) float64 { return s.draw(r, 0) }

// drawMu returns L at a sample of μ.
func (s *lossSampler) drawMu(r *rand.Rand) float64 {
	u := r.Float64()
	k := 0
	for k < s.steps && u >= s.binomCDF[k] {
		k++
	}
	return s.draw(r, k)
}

// parallelChunks runs work(chunk, r) for every chunk index in [0, chunks)
// on `workers` goroutines (0: GOMAXPROCS), giving chunk c the stream
// rng.New(seed, labels..., c). Chunks are handed out dynamically, but as each
// chunk's stream and output slot are fixed, results do not depend on the
// schedule. It returns ctx.Err() once ctx is done, or a worker's panic.
func parallelChunks(ctx context.Context, chunks, workers int, seed uint64, labels []any, work func(chunk int, r *rand.Rand)) error {
	return parallel.For(ctx, chunks, workers, func(c int) error {
		path := append(append(make([]any, 0, len(labels)+1), labels...), c)
		work(c, rng.New(seed, path...))
		return nil
	})
}

// sampleNuLosses returns n samples of L under ν, sample i drawn from chunk
// i/reroChunk's stream rng.New(seed, "rero", i/reroChunk).
func sampleNuLosses(ctx context.Context, s *lossSampler, n, workers int, seed uint64) ([]float64, error) {
	out := make([]float64, n)
	chunks := (n + reroChunk - 1) / reroChunk
	err := parallelChunks(ctx, chunks, workers, seed, []any{"rero"}, func(c int, r *rand.Rand) {
		end := min((c+1)*reroChunk, n)
		for i := c * reroChunk; i < end; i++ {
			out[i] = s.drawNu(r)
		}
	})
	return out, err
}

// countMuAbove draws n samples of L under μ (chunk c from
// rng.New(seed, "rero", "mu", c)) and returns, for each threshold, how many
// samples have L ≥ threshold. Memory is O(chunks·len(thresholds)).
func countMuAbove(ctx context.Context, s *lossSampler, n, workers int, seed uint64, thresholds []float64) ([]int, error) {
	chunks := (n + reroChunk - 1) / reroChunk
	perChunk := make([][]int, chunks)
	err := parallelChunks(ctx, chunks, workers, seed, []any{"rero", "mu"}, func(c int, r *rand.Rand) {
		counts := make([]int, len(thresholds))
		end := min((c+1)*reroChunk, n)
		for i := c * reroChunk; i < end; i++ {
			l := s.drawMu(r)
			for j, t := range thresholds {
				if l >= t {
					counts[j]++
				}
			}
		}
		perChunk[c] = counts
	})
	if err != nil {
		return nil, err
	}
	total := make([]int, len(thresholds))
	for _, counts := range perChunk {
		for j, v := range counts {
			total[j] += v
		}
	}
	return total, nil
}
