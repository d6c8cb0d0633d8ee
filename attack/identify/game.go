package identify

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/rng"
)

// Noise calibration of a step: σ_i = z·Δf_i.
const (
	// SensLocal: Δf_i = LS_i = ‖Σ_D ḡ − Σ_D′ ḡ‖ at the step's weights
	// (Sec. 5.1; the bounds become tight).
	SensLocal = "local"
	// SensGlobal: Δf_i = C (unbounded) or 2C (bounded).
	SensGlobal = "global"
)

// Optimisers applying the released noisy mean gradient r/n.
const (
	OptSGD  = "sgd"  // θ ← θ − η·r/n (the paper's Algorithm 1)
	OptAdam = "adam" // TF1 Adam (β₁ 0.9, β₂ 0.999, ε̂ 1e-8), the authors' code
)

// Config is one identifiability game: full-batch DP-SGD on D, observed by
// A_DI who knows D and D′.
type Config struct {
	Arch    learn.Arch
	InShape []int
	Classes int
	// X, Y hold D (n records in the model's layout).
	X []float32
	Y []int32
	// Pair says how D′ differs from D; for bounded adjacency the added
	// record is PoolX/PoolY's row Pair.Add.
	Pair         Neighbours
	PoolX        []float32
	PoolY        []int32
	ClipNorm     float64
	Steps        int
	LearningRate float64
	Optimizer    string
	Sensitivity  string
	// NoiseMultiplier is z > 0.
	NoiseMultiplier float64
	// WorstCaseEpsilon > 0 replaces the Gaussian release by the worst-case
	// output with per-step ε_i = WorstCaseEpsilon/Steps (a test of the
	// whole chain: β_k = ρ_β exactly).
	WorstCaseEpsilon float64
	// RandomInit draws θ₀ per repetition (the authors' code builds a fresh
	// model per run); otherwise every repetition starts from one θ₀.
	RandomInit bool
	// Delta is δ of the per-repetition ε′ from local sensitivities.
	Delta float64
}

// Result is one repetition.
type Result struct {
	// LogOdds is Λ_k = log(β_k/(1 − β_k)); GuessD is Λ_k > 0.
	LogOdds float64
	GuessD  bool
	// LS and Sigma are the per-step local sensitivity ‖μ₁ − μ₀‖ and the
	// noise std used.
	LS, Sigma []float64
	// SumSqRatio is Σ_i (LS_i/σ_i)², the RDP of the run per unit order
	// (×α/2) as the observed sensitivities make it; EpsilonLS its
	// classic-conversion ε at Delta on the paper's order grid (note §4,
	// method 1). Under local-sensitivity noise it equals the accounted ε.
	SumSqRatio, EpsilonLS float64
	// TrainAccuracy is the final model's accuracy on D.
	TrainAccuracy float64
}

// Game runs repetitions of one configuration. It is not safe for
// concurrent use; make one per goroutine.
type Game struct {
	cfg   Config
	m     *learn.Model
	n, P  int
	diffX []float32 // the differing record(s): x̂ (and, bounded, x̂′)
	diffY []int32
	// buffers
	mu1, mu0, r, pex []float32
	norms            []float64
	d                []float64
	adamM, adamV     []float64
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Steps < 1:
		return fmt.Errorf("identify: steps %d: need ≥ 1", c.Steps)
	case !(c.ClipNorm > 0) || math.IsInf(c.ClipNorm, 1):
		return fmt.Errorf("identify: clip norm %v: the sensitivities are defined for a finite clip norm C > 0", c.ClipNorm)
	case !(c.NoiseMultiplier > 0) || math.IsInf(c.NoiseMultiplier, 1):
		return fmt.Errorf("identify: noise multiplier %v: must be finite and > 0", c.NoiseMultiplier)
	case !(c.LearningRate >= 0):
		return fmt.Errorf("identify: learning rate %v: must be ≥ 0", c.LearningRate)
	case !(c.Delta > 0 && c.Delta < 1):
		return fmt.Errorf("identify: δ = %v: must be in (0, 1)", c.Delta)
	}
	switch c.Optimizer {
	case OptSGD, OptAdam:
	default:
		return fmt.Errorf("identify: optimizer %q: want sgd or adam", c.Optimizer)
	}
	switch c.Sensitivity {
	case SensLocal, SensGlobal:
	default:
		return fmt.Errorf("identify: sensitivity %q: want local or global", c.Sensitivity)
	}
	return nil
}

// NewGame builds the model and checks the pair against the data.
func NewGame(c Config) (*Game, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m, err := learn.NewModel(c.Arch, c.InShape, c.Classes, 0)
	if err != nil {
		return nil, err
	}
	D := m.InputSize()
	n := len(c.Y)
	if len(c.X) != n*D {
		return nil, fmt.Errorf("identify: %d features for %d records of %d", len(c.X), n, D)
	}
	g := &Game{cfg: c, m: m, n: n, P: m.NumParams()}
	if c.Pair.Remove < 0 || c.Pair.Remove >= n {
		return nil, fmt.Errorf("identify: removed record %d outside 0..%d", c.Pair.Remove, n-1)
	}
	g.diffX = append(g.diffX, c.X[c.Pair.Remove*D:(c.Pair.Remove+1)*D]...)
	g.diffY = append(g.diffY, c.Y[c.Pair.Remove])
	switch c.Pair.Adjacency {
	case Bounded:
		a := c.Pair.Add
		if a < 0 || a >= len(c.PoolY) || len(c.PoolX) != len(c.PoolY)*D {
			return nil, fmt.Errorf("identify: bounded pair adds pool record %d of %d", a, len(c.PoolY))
		}
		g.diffX = append(g.diffX, c.PoolX[a*D:(a+1)*D]...)
		g.diffY = append(g.diffY, c.PoolY[a])
	case Unbounded:
	default:
		return nil, fmt.Errorf("identify: adjacency %q", c.Pair.Adjacency)
	}
	P := g.P
	g.mu1, g.mu0, g.r = make([]float32, P), make([]float32, P), make([]float32, P)
	g.pex, g.norms, g.d = make([]float32, len(g.diffY)*P), make([]float64, len(g.diffY)), make([]float64, P)
	if c.Optimizer == OptAdam {
		g.adamM, g.adamV = make([]float64, P), make([]float64, P)
	}
	return g, nil
}

// NumParams returns the model's parameter count.
func (g *Game) NumParams() int { return g.P }

// globalSensitivity is GS of the clipped sum: C unbounded, 2C bounded.
func (g *Game) globalSensitivity() float64 {
	if g.cfg.Pair.Adjacency == Bounded {
		return 2 * g.cfg.ClipNorm
	}
	return g.cfg.ClipNorm
}

// Run plays repetition i: its noise is rng.New(seed, "identify/noise",
// key, i) and its θ₀ rng.Seed(seed, "identify/init", key[, i]), so the
// result depends on (seed, key, i) only.
func (g *Game) Run(seed uint64, key string, i int) (Result, error) {
	c := g.cfg
	initSeed := rng.Seed(seed, "identify/init", key)
	if c.RandomInit {
		initSeed = rng.Seed(seed, "identify/init", key, i)
	}
	fresh, err := learn.NewModel(c.Arch, c.InShape, c.Classes, initSeed)
	if err != nil {
		return Result{}, err
	}
	theta := fresh.Params()
	if err := g.m.SetParams(theta); err != nil {
		return Result{}, err
	}
	noise := rng.New(seed, "identify/noise", key, i)
	if g.adamM != nil {
		clear(g.adamM)
		clear(g.adamV)
	}
	var adv Adversary
	res := Result{LS: make([]float64, c.Steps), Sigma: make([]float64, c.Steps)}
	C, z := c.ClipNorm, c.NoiseMultiplier
	for s := 0; s < c.Steps; s++ {
		// The clean sums at θ_s: μ₁ over D (what training privatises)
		// and μ₀ = μ₁ − d over D′, d the clipped gradient(s) of the
		// differing record(s), computed exactly once. Both the mechanism
		// and the adversary use them; the adversary could recompute them
		// from D, D′ and the released θ_s, with the same bits.
		if err := g.m.ClippedGradientSum(c.X, c.Y, C, g.mu1); err != nil {
			return res, fmt.Errorf("step %d: %w", s, err)
		}
		if err := g.m.PerExampleGradients(g.diffX, g.diffY, g.pex, g.norms); err != nil {
			return res, fmt.Errorf("step %d: %w", s, err)
		}
		fa := math.Min(1, C/g.norms[0])
		var ls2 float64
		for j := 0; j < g.P; j++ {
			v := fa * float64(g.pex[j])
			if len(g.diffY) == 2 {
				v -= math.Min(1, C/g.norms[1]) * float64(g.pex[g.P+j])
			}
			g.d[j] = v
			ls2 += v * v
			g.mu0[j] = g.mu1[j] - float32(v)
		}
		ls := math.Sqrt(ls2)
		sens := g.globalSensitivity()
		if c.Sensitivity == SensLocal {
			sens = ls
		}
		sigma := z * sens
		res.LS[s], res.Sigma[s] = ls, sigma
		if sigma > 0 {
			res.SumSqRatio += ls2 / (sigma * sigma)
		}
		if c.WorstCaseEpsilon > 0 {
			WorstCaseOutput(g.r, g.mu1, g.mu0, sigma, c.WorstCaseEpsilon/float64(c.Steps))
		} else {
			for j := range g.r {
				g.r[j] = g.mu1[j] + float32(sigma*noise.NormFloat64())
			}
		}
		if !(sigma == 0) {
			adv.Observe(g.r, g.mu1, g.mu0, sigma)
		}
		g.update(theta, s)
		if err := g.m.SetParams(theta); err != nil {
			return res, fmt.Errorf("step %d: %w", s, err)
		}
	}
	res.LogOdds, res.GuessD = adv.LogOdds(), adv.GuessD()
	res.EpsilonLS, _, err = bounds.FullBatchGaussianEpsilon(res.SumSqRatio, c.Delta, nil)
	if err != nil {
		return res, err
	}
	if res.TrainAccuracy, err = g.m.Accuracy(c.X, c.Y); err != nil {
		return res, err
	}
	return res, nil
}

// update applies the released noisy mean gradient r/n.
func (g *Game) update(theta []float32, s int) {
	lr, inv := g.cfg.LearningRate, 1/float64(g.n)
	if g.adamM == nil {
		for j := range theta {
			theta[j] -= float32(lr * inv * float64(g.r[j]))
		}
		return
	}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	t := float64(s + 1)
	c1, c2 := 1-math.Pow(b1, t), 1-math.Pow(b2, t)
	for j := range theta {
		gj := inv * float64(g.r[j])
		g.adamM[j] = b1*g.adamM[j] + (1-b1)*gj
		g.adamV[j] = b2*g.adamV[j] + (1-b2)*gj*gj
		theta[j] -= float32(lr * (g.adamM[j] / c1) / (math.Sqrt(g.adamV[j]/c2) + eps))
	}
}
