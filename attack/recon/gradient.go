package recon

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpaudit/dpaudit/learn"
)

// Inversion configures the gradient-based, prior-oblivious attack of Hayes
// et al. §2.1 (their Eq. 1; reference note §2.10): the adversary optimises
// an input ẑ ∈ [0, 1]^D, with the target's label known, to minimise
//
//	𝓛(ẑ) = Σ_t −⟨ĝ_t(ẑ), ḡ_t⟩/C² + ‖ĝ_t(ẑ) − ḡ_t‖₁/C,   ĝ_t(z) = clip_C(∇_θ ℓ(θ_t, z)),
//
// from uniform noise, then names the prior's candidate nearest to ẑ in L2
// (the paper's conversion to a prior success rate). The paper runs 10⁶
// plain gradient steps with 5 restarts; here Steps Adam steps (the budget
// is the knob) and Restarts restarts, keeping the ẑ of lowest loss (the
// paper does not say which restart it keeps). Scaling by C and C² keeps the
// two terms of Eq. 1 in the same units for any clip norm.
//
// The input gradient of ⟨ĝ_t(z), u⟩ is a mixed second derivative; it is
// taken as a central difference of the model's own input gradient along
// the parameter direction: ∂_z⟨∇_θ ℓ(θ, z), w⟩ ≈ (∇_z ℓ(θ + εw, z) −
// ∇_z ℓ(θ − εw, z))/(2ε), exact up to O(ε²) for smooth activations (use
// elu or tanh; relu's kinks make it a subgradient estimate).
type Inversion struct {
	Steps        int     // optimisation steps per restart
	LearningRate float64 // Adam step size, in input units
	Restarts     int
}

// Validate reports bad settings (errors wrap ErrInvalid).
func (v Inversion) Validate() error {
	if v.Steps < 1 || !(v.LearningRate > 0) || math.IsInf(v.LearningRate, 0) || v.Restarts < 1 {
		return invalidf("gradient inversion needs steps ≥ 1, learning rate > 0 and restarts ≥ 1, got %d, %v, %d", v.Steps, v.LearningRate, v.Restarts)
	}
	return nil
}

// inverter holds one trial's recorded run and the optimisation buffers.
type inverter struct {
	v        Inversion
	m        *learn.Model // scratch model, parameters set per use
	C        float64
	params   [][]float32 // θ_t
	residual [][]float32 // ḡ_t
	y        int32
	P, D     int
	// buffers
	g, w, plus, minus []float32
	norm              []float64
	gradX, dX1, dX2   []float32
	loss              []float64
}

func newInverter(v Inversion, init *learn.Model, C float64, steps int, y int32) *inverter {
	P, D := init.NumParams(), init.InputSize()
	iv := &inverter{v: v, m: init.Clone(), C: C, y: y, P: P, D: D,
		params: make([][]float32, 0, steps), residual: make([][]float32, 0, steps),
		g: make([]float32, P), w: make([]float32, P), plus: make([]float32, P), minus: make([]float32, P),
		norm: make([]float64, 1), gradX: make([]float32, D), dX1: make([]float32, D), dX2: make([]float32, D), loss: make([]float64, 1)}
	return iv
}

// record keeps step t's θ_t and ḡ_t (copies).
func (iv *inverter) record(params, resid []float32) {
	iv.params = append(iv.params, append([]float32(nil), params...))
	iv.residual = append(iv.residual, append([]float32(nil), resid...))
}

// lossGrad returns 𝓛(x) and writes ∂𝓛/∂x into iv.gradX.
func (iv *inverter) lossGrad(x []float32) (float64, error) {
	clear(iv.gradX)
	C := iv.C
	y := []int32{iv.y}
	var total float64
	for t, theta := range iv.params {
		gb := iv.residual[t]
		if err := iv.m.SetParams(theta); err != nil {
			return 0, err
		}
		if err := iv.m.PerExampleGradients(x, y, iv.g, iv.norm); err != nil {
			return 0, err
		}
		c := 1.0
		if iv.norm[0] > C {
			c = C / iv.norm[0]
		}
		// u = ∂𝓛_t/∂ĝ = −ḡ/C² + sign(ĝ − ḡ)/C; w = J_clipᵀ u.
		var gu, gg float64
		for k, gk := range iv.g {
			gh := c * float64(gk)
			d := gh - float64(gb[k])
			total += -gh*float64(gb[k])/(C*C) + math.Abs(d)/C
			u := -float64(gb[k]) / (C * C)
			switch {
			case d > 0:
				u += 1 / C
			case d < 0:
				u -= 1 / C
			}
			iv.w[k] = float32(u)
			gu += float64(gk) * u
			gg += float64(gk) * float64(gk)
		}
		wmax := 0.0
		for k := range iv.w {
			if c < 1 { // ĝ = C·g/‖g‖: J = c(I − g gᵀ/‖g‖²)
				iv.w[k] = float32(c * (float64(iv.w[k]) - gu/gg*float64(iv.g[k])))
			}
			wmax = math.Max(wmax, math.Abs(float64(iv.w[k])))
		}
		if wmax == 0 {
			continue
		}
		// Central difference along w, each parameter moving by ≤ 1e-3.
		eps := 1e-3 / wmax
		for k, p := range theta {
			step := float32(eps) * iv.w[k]
			iv.plus[k], iv.minus[k] = p+step, p-step
		}
		if err := iv.m.SetParams(iv.plus); err != nil {
			return 0, err
		}
		if err := iv.m.InputGradient(x, y, iv.dX1, iv.loss); err != nil {
			return 0, err
		}
		if err := iv.m.SetParams(iv.minus); err != nil {
			return 0, err
		}
		if err := iv.m.InputGradient(x, y, iv.dX2, iv.loss); err != nil {
			return 0, err
		}
		inv := float32(1 / (2 * eps))
		for j := range iv.gradX {
			iv.gradX[j] += (iv.dX1[j] - iv.dX2[j]) * inv
		}
	}
	return total, nil
}

// run optimises from uniform noise (r) and returns the best ẑ.
func (iv *inverter) run(r *rand.Rand) ([]float32, error) {
	const b1, b2, adamEps = 0.9, 0.999, 1e-8
	var best []float32
	bestLoss := math.Inf(1)
	x := make([]float32, iv.D)
	m1, m2 := make([]float64, iv.D), make([]float64, iv.D)
	for range iv.v.Restarts {
		for j := range x {
			x[j] = float32(r.Float64())
		}
		clear(m1)
		clear(m2)
		var loss float64
		for s := 1; s <= iv.v.Steps; s++ {
			l, err := iv.lossGrad(x)
			if err != nil {
				return nil, err
			}
			loss = l
			c1, c2 := 1-math.Pow(b1, float64(s)), 1-math.Pow(b2, float64(s))
			for j, gj := range iv.gradX {
				g := float64(gj)
				m1[j] = b1*m1[j] + (1-b1)*g
				m2[j] = b2*m2[j] + (1-b2)*g*g
				v := float64(x[j]) - iv.v.LearningRate*(m1[j]/c1)/(math.Sqrt(m2[j]/c2)+adamEps)
				x[j] = float32(math.Min(1, math.Max(0, v)))
			}
		}
		if l, err := iv.lossGrad(x); err == nil {
			loss = l
		} else {
			return nil, err
		}
		if loss < bestLoss || best == nil {
			bestLoss, best = loss, append([]float32(nil), x...)
		}
	}
	if best == nil {
		return nil, fmt.Errorf("recon: gradient inversion found no finite loss")
	}
	return best, nil
}

// nearest returns the decision of the nearest-candidate conversion: scores
// are minus the L2 distances from ẑ to the candidates; and the mean squared
// error per feature between ẑ and the target.
func nearest(z, candX []float32, n, target int) (Decision, float64) {
	D := len(z)
	scores := make([]float64, n)
	var mse float64
	for i := 0; i < n; i++ {
		var s float64
		for j, v := range z {
			d := float64(v - candX[i*D+j])
			s += d * d
		}
		scores[i] = -math.Sqrt(s)
		if i == target {
			mse = s / float64(D)
		}
	}
	return Decide(scores, target), mse
}
