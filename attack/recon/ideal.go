package recon

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"github.com/dpaudit/dpaudit/internal/parallel"
	"github.com/dpaudit/dpaudit/rng"
	"gonum.org/v1/gonum/integrate/quad"
)

// The ideal reconstruction mechanism (reference note §5.4, "cheap middle
// ground"): every candidate's clipped gradient, divided by C, is a fixed
// unit vector u_i — mutually orthogonal, or u_2 = −u_1 for two antipodal
// candidates — and D₋ contributes nothing (its known gradients are
// subtracted exactly). Step t releases
//
//	ḡ_t = b_t·u_{z*} + σ·N(0, I),   b_t ~ Bernoulli(q),
//
// and every rule sees only the projections d_{t,i} = ⟨u_i, ḡ_t⟩ (with
// n_{t,i} = 1): for orthogonal u these are independent N(b_t·[i = z*], σ²),
// for antipodal ones d_{t,2} = −d_{t,1}. Nothing else needs simulating.
//
// At q = 1 every rule is an increasing function of Σ_t d_{t,i} (Algorithm 3
// keeps all T steps; the log-likelihood is (2Σd − T)/(2σ²)), and Σ_t d_{t,i}
// ~ N(T·[i = z*], Tσ²) exactly, so a trial draws n normals instead of nT.

// Geometry is the arrangement of the candidates' unit gradients.
type Geometry int

const (
	Orthogonal Geometry = iota // u_i mutually orthogonal
	Antipodal                  // n = 2, u_2 = −u_1
)

// ParseGeometry parses a spec name.
func ParseGeometry(s string) (Geometry, error) {
	switch s {
	case "orthogonal":
		return Orthogonal, nil
	case "antipodal":
		return Antipodal, nil
	}
	return 0, invalidf("unknown geometry %q (want orthogonal or antipodal)", s)
}

// Ideal is the ideal reconstruction game of one point.
type Ideal struct {
	PriorSize       int
	Geometry        Geometry
	SamplingRate    float64 // q
	Steps           int     // T
	NoiseMultiplier float64 // σ the simulation uses
	// AttackSigma is the σ the log-likelihood rule assumes (0: the actual).
	AttackSigma float64
}

// Validate reports bad parameters (errors wrap ErrInvalid).
func (g Ideal) Validate() error {
	switch {
	case g.PriorSize < 2:
		return invalidf("prior size must be ≥ 2, got %d", g.PriorSize)
	case g.Geometry == Antipodal && g.PriorSize != 2:
		return invalidf("antipodal candidates need prior size 2, got %d", g.PriorSize)
	case !(g.SamplingRate > 0 && g.SamplingRate <= 1):
		return invalidf("sampling rate must be in (0, 1], got %v", g.SamplingRate)
	case g.Steps < 1:
		return invalidf("steps must be ≥ 1, got %d", g.Steps)
	case !(g.NoiseMultiplier > 0) || math.IsInf(g.NoiseMultiplier, 0):
		return invalidf("noise multiplier must be > 0 and finite, got %v", g.NoiseMultiplier)
	case g.AttackSigma < 0 || math.IsInf(g.AttackSigma, 0) || math.IsNaN(g.AttackSigma):
		return invalidf("attack noise multiplier must be ≥ 0 and finite, got %v", g.AttackSigma)
	}
	return nil
}

// idealWorker holds one goroutine's buffers.
type idealWorker struct {
	g               Ideal
	ev              *Evidence
	dots, sq        []float64
	scores, scratch []float64
	perStep         bool // simulate every step even at q = 1 (tests)
}

func (g Ideal) newWorker() *idealWorker {
	sigma := g.AttackSigma
	if sigma == 0 {
		sigma = g.NoiseMultiplier
	}
	n := g.PriorSize
	ev, _ := NewEvidence(n, g.Steps, g.SamplingRate, sigma) // validated by the caller
	w := &idealWorker{g: g, ev: ev, dots: make([]float64, n), sq: make([]float64, n),
		scores: make([]float64, n), scratch: make([]float64, g.Steps)}
	for i := range w.sq {
		w.sq[i] = 1
	}
	return w
}

// trial simulates one trial from r.
func (w *idealWorker) trial(r *rand.Rand) Outcome {
	g := w.g
	n, T, q, sigma := g.PriorSize, g.Steps, g.SamplingRate, g.NoiseMultiplier
	o := Outcome{Target: r.IntN(n), TargetGradNorm: math.NaN(), Record: -1}
	sign := 1.0 // antipodal: the target's direction along u_1
	if o.Target == 1 {
		sign = -1
	}
	w.ev.Reset()
	if q == 1 && !w.perStep {
		o.TargetSteps = T
		// The sufficient statistic: Σ_t d_{t,i} (see the file comment). It
		// enters the evidence as one step of T, which every rule maps to
		// the same ordering as T separate steps would.
		s := sigma * math.Sqrt(float64(T))
		switch g.Geometry {
		case Antipodal:
			x := sign*float64(T) + s*r.NormFloat64()
			w.dots[0], w.dots[1] = x, -x
		default:
			for i := range w.dots {
				w.dots[i] = s * r.NormFloat64()
			}
			w.dots[o.Target] += float64(T)
		}
		for i := range w.dots {
			w.scores[i] = w.dots[i]
		}
		d := Decide(w.scores, o.Target)
		for _, rule := range Rules {
			o.Decisions[rule] = d
		}
		return o
	}
	log1mQ := math.Log1p(-q)
	gap := func() int { // steps until the next inclusion (geometric)
		if q == 1 {
			return 0
		}
		k := math.Floor(math.Log(1-r.Float64()) / log1mQ)
		return int(math.Min(k, float64(T)))
	}
	next := gap()
	for t := 0; t < T; t++ {
		b := 0.0
		if t == next {
			b = 1
			o.TargetSteps++
			next = t + 1 + gap()
		}
		switch g.Geometry {
		case Antipodal:
			x := sign*b + sigma*r.NormFloat64()
			w.dots[0], w.dots[1] = x, -x
		default:
			for i := range w.dots {
				w.dots[i] = sigma * r.NormFloat64()
			}
			w.dots[o.Target] += b
		}
		_ = w.ev.Observe(w.dots, w.sq) // finite by construction
	}
	w.ev.decideAll(&o, w.scores, w.scratch)
	return o
}

// Trial simulates one trial of g from the stream r (g must be valid).
func (g Ideal) Trial(r *rand.Rand) Outcome { return g.newWorker().trial(r) }

// SimulateIdeal runs trials [first, first+count) of g; trial i draws from
// rng.New(seed, path..., i), so outcomes never depend on the range, the
// chunking or the number of workers (0: GOMAXPROCS).
func SimulateIdeal(g Ideal, seed uint64, path []any, first, count, workers int) ([]Outcome, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if first < 0 || count < 0 || workers < 0 {
		return nil, invalidf("trial range and workers must be ≥ 0, got %d, %d, %d", first, count, workers)
	}
	out := make([]Outcome, count)
	const chunk = 512
	// Each goroutine keeps its own scratch (a worker and a stream path),
	// made on its first chunk.
	type scratch struct {
		w    *idealWorker
		path []any
	}
	scratches := make([]scratch, parallel.Workers((count+chunk-1)/chunk, workers))
	// No context: the trial shard that calls this does not hand one down
	// yet, and one chunk of 512 trials takes milliseconds.
	err := parallel.Chunks(context.Background(), count, chunk, workers, func(w, lo, hi int) error {
		s := &scratches[w]
		if s.w == nil {
			s.w = g.newWorker()
			s.path = append(append(make([]any, 0, len(path)+1), path...), 0)
		}
		for k := lo; k < hi; k++ {
			s.path[len(s.path)-1] = first + k
			out[k] = s.w.trial(rng.New(seed, s.path...))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IdealSuccessFullBatch is the exact success probability of Algorithm 2
// in the ideal game at q = 1 with n orthogonal candidates (reference note
// §2.7): the target's score exceeds n − 1 independent ones,
//
//	P = ∫ φ(x − μ)·Φ(x)^{n−1} dx,   μ = √T/σ.
//
// For antipodal candidates (n = 2) it is Φ(μ), which equals the ReRo bound
// at κ = 1/2.
func IdealSuccessFullBatch(n, steps int, sigma float64, geo Geometry) float64 {
	mu := math.Sqrt(float64(steps)) / sigma
	if geo == Antipodal {
		return numeric.NormCDF(mu)
	}
	f := func(x float64) float64 {
		z := x - mu
		return math.Exp(-z*z/2+float64(n-1)*numeric.LogNormCDF(x)) / math.Sqrt(2*math.Pi)
	}
	// The integrand lives within ±12 of μ; fixed Legendre on pieces.
	var s float64
	lo := mu - 12
	for k := 0; k < 24; k++ {
		s += quad.Fixed(f, lo+float64(k), lo+float64(k+1), 20, nil, 0)
	}
	return s
}
