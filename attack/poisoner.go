package attack

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
)

// poisoner regenerates the adaptive poison before every step of a
// world-1 trial (Crafter 3). It works on its own copy of the model, so
// the trainer's parameters are only read.
type poisoner struct {
	vm    *learn.Model
	plan  *AdaptivePlan
	query *Record
	C     float64 // the trainer's clip norm (+Inf: no clipping)
	lr    *logRegLayout

	theta, tmp, g, v []float32 // P
	x                []float32 // D: the poison
	dx1, dx2         []float32 // D
	grad, grad2      []float64 // D
	norms, loss      [1]float64
}

func newPoisoner(m *learn.Model, plan *AdaptivePlan, query *Record, cfg learn.DPSGD) (*poisoner, error) {
	P, D := m.NumParams(), m.InputSize()
	if len(query.X) != D {
		return nil, invalidf("adaptive poison: query has %d features, model input has %d", len(query.X), D)
	}
	p := &poisoner{
		vm: m.Clone(), plan: plan, query: query, C: cfg.ClipNorm,
		theta: make([]float32, P), tmp: make([]float32, P), g: make([]float32, P), v: make([]float32, P),
		x: make([]float32, D), dx1: make([]float32, D), dx2: make([]float32, D),
		grad: make([]float64, D), grad2: make([]float64, D),
	}
	if plan.Method != MethodFiniteDifference {
		if l, ok := logRegLayoutOf(m); ok {
			p.lr = &l
		} else if plan.Method == MethodClosedForm {
			return nil, invalidf("adaptive poison: no closed form for %s on %v", m.Arch(), m.InputShape())
		}
	}
	return p, nil
}

// beforeStep is the learn.Hooks.BeforeStep of a world-1 trial: it crafts
// the poison for parameters θ_t and writes it into the target record.
func (p *poisoner) beforeStep(step int, params []float32, target *learn.Record) error {
	copy(p.theta, params)
	if p.plan.WarmStart && step > 0 {
		copy(p.x, target.X)
	} else {
		for j := range p.x { // x ← 0⃗ (Crafter 3, line 3), inside the clamp box
			p.x[j] = float32(clampTo(0, p.plan.FeatureMin, p.plan.FeatureMax))
		}
	}
	for k := 0; k < p.plan.InnerSteps; k++ {
		if _, err := p.objectiveGradient(p.theta, p.x, p.plan.Label, p.grad); err != nil {
			return fmt.Errorf("adaptive poison: %w", err)
		}
		rule := StepNormalized
		if !p.plan.Normalize {
			rule = StepGradient
		}
		moveInput(p.x, p.grad, p.plan.InputStepSize, rule, -1, p.plan.FeatureMin, p.plan.FeatureMax)
	}
	copy(target.X, p.x)
	target.Y = p.plan.Label
	return nil
}

func clampTo(v, lo, hi float64) float64 {
	if lo < hi {
		return math.Min(hi, math.Max(lo, v))
	}
	return v
}

// objectiveGradient writes ∇_x L(x) into out for
// L(x) = ℓ(θ − η_v·c(x)·g(x), x_q, y_q), g(x) = ∇_θ ℓ(θ, x, y),
// c(x) = min(1, C/‖g(x)‖) (1 when clipping is ignored), and returns the
// query's loss after the virtual step, L(x). With v' = ∇_θ ℓ(θ', x_q, y_q)
// at the virtual parameters θ' and J = ∂g/∂x:
//
//	∇_x L = −η_v·(c·Jᵀv' + ⟨g, v'⟩·∇c),   ∇c = −C/‖g‖³·Jᵀg  (when clipped),
//
// and Jᵀw = ∇_x⟨g(x), w⟩ is a Hessian-vector product (jacTVec).
func (p *poisoner) objectiveGradient(theta, x []float32, y int32, out []float64) (float64, error) {
	eta := p.plan.VirtualLR
	if err := p.vm.SetParams(theta); err != nil {
		return 0, err
	}
	if err := p.vm.PerExampleGradients(x, []int32{y}, p.g, p.norms[:]); err != nil {
		return 0, err
	}
	gn := p.norms[0]
	c, clipped := 1.0, false
	if p.plan.ClipInVirtual && gn > p.C {
		c, clipped = p.C/gn, true
	}
	for i, t := range theta {
		p.tmp[i] = float32(float64(t) - eta*c*float64(p.g[i]))
	}
	if err := p.vm.SetParams(p.tmp); err != nil {
		return 0, err
	}
	q := p.query
	if err := p.vm.PerExampleGradients(q.X, []int32{q.Y}, p.v, nil); err != nil {
		return 0, err
	}
	if err := p.vm.PerExampleLoss(q.X, []int32{q.Y}, p.loss[:]); err != nil {
		return 0, err
	}
	after := p.loss[0]
	if err := p.jacTVec(theta, p.v, x, y, out); err != nil {
		return 0, err
	}
	for j := range out {
		out[j] *= -eta * c
	}
	if clipped {
		if err := p.jacTVec(theta, p.g, x, y, p.grad2); err != nil {
			return 0, err
		}
		var gv float64
		for i, gi := range p.g {
			gv += float64(gi) * float64(p.v[i])
		}
		k := eta * gv * p.C / (gn * gn * gn) // −η_v·⟨g,v'⟩·(−C/‖g‖³)
		for j := range out {
			out[j] += k * p.grad2[j]
		}
	}
	return after, nil
}

// jacTVec writes Jᵀw = ∇_x⟨∇_θ ℓ(θ, x, y), w⟩ into out: in closed form for
// a logistic regression, otherwise as the central difference
// [∇_x ℓ(θ + h·w, x, y) − ∇_x ℓ(θ − h·w, x, y)]/(2h), which is exact up to
// O(h²) (and any activation kink crossed), with h·‖w‖ = 1% of max(‖θ‖, 1)
// to balance that against float32 rounding.
func (p *poisoner) jacTVec(theta, w, x []float32, y int32, out []float64) error {
	if p.lr != nil {
		p.lr.jacTVec(theta, w, x, y, out)
		return nil
	}
	var nw, nt float64
	for i, v := range w {
		nw += float64(v) * float64(v)
		nt += float64(theta[i]) * float64(theta[i])
	}
	if nw == 0 {
		clear(out)
		return nil
	}
	h := 1e-2 * math.Max(math.Sqrt(nt), 1) / math.Sqrt(nw)
	ys := []int32{y}
	for _, pass := range []struct {
		sign float64
		dst  []float32
	}{{+1, p.dx1}, {-1, p.dx2}} {
		for i, t := range theta {
			p.tmp[i] = float32(float64(t) + pass.sign*h*float64(w[i]))
		}
		if err := p.vm.SetParams(p.tmp); err != nil {
			return err
		}
		if err := p.vm.InputGradient(x, ys, pass.dst, nil); err != nil {
			return err
		}
	}
	for j := range out {
		out[j] = (float64(p.dx1[j]) - float64(p.dx2[j])) / (2 * h)
	}
	return nil
}

// logRegLayout is where a logistic regression keeps its parameters: the
// weight matrix K × D (output unit major) at offset 0, then K biases if
// it has them. K is 1 for a sigmoid head.
type logRegLayout struct {
	K, D int
	bias bool
}

// logRegLayoutOf recognises a logistic regression whose internal input
// layout is the caller's (flat, or one channel), so that weight column j
// multiplies feature j.
func logRegLayoutOf(m *learn.Model) (logRegLayout, bool) {
	a := m.Arch()
	shape := m.InputShape()
	if a.Kind != learn.KindLogReg || (len(shape) == 3 && shape[0] != 1) {
		return logRegLayout{}, false
	}
	D := m.InputSize()
	layers := m.Layers()
	size := 0
	for _, l := range layers {
		size += l.Size
	}
	l := logRegLayout{D: D, bias: !a.NoBias}
	if l.bias {
		l.K = size / (D + 1)
	} else {
		l.K = size / D
	}
	if l.K < 1 || size != l.K*D+boolInt(l.bias)*l.K {
		return logRegLayout{}, false
	}
	return l, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// jacTVec is Jᵀw for a logistic regression with logits z = Wx + b and
// r = ∂ℓ/∂z (σ(z) − y, or softmax(z) − e_y): ⟨g, w⟩ = rᵀ(W_w x + b_w), so
//
//	∇_x⟨g, w⟩ = W_wᵀ r + Wᵀ H (W_w x + b_w),
//
// with H = ∂r/∂z = σ(1−σ) or diag(p) − ppᵀ, and W_w, b_w the direction w
// in the parameter layout.
func (l logRegLayout) jacTVec(theta, w, x []float32, y int32, out []float64) {
	K, D := l.K, l.D
	z := make([]float64, K)
	mw := make([]float64, K)
	for k := 0; k < K; k++ {
		var s, sw float64
		row, roww := theta[k*D:(k+1)*D], w[k*D:(k+1)*D]
		for j, xj := range x {
			s += float64(row[j]) * float64(xj)
			sw += float64(roww[j]) * float64(xj)
		}
		if l.bias {
			s += float64(theta[K*D+k])
			sw += float64(w[K*D+k])
		}
		z[k], mw[k] = s, sw
	}
	r := make([]float64, K)
	hm := make([]float64, K) // H·m_w
	if K == 1 {
		s := 1 / (1 + math.Exp(-z[0]))
		r[0] = s - float64(y)
		hm[0] = s * (1 - s) * mw[0]
	} else {
		mx := z[0]
		for _, v := range z {
			mx = math.Max(mx, v)
		}
		var tot float64
		for k := range z {
			z[k] = math.Exp(z[k] - mx)
			tot += z[k]
		}
		var pm float64
		for k := range z {
			z[k] /= tot // p_k
			pm += z[k] * mw[k]
		}
		for k := range z {
			r[k] = z[k]
			if int32(k) == y {
				r[k]--
			}
			hm[k] = z[k] * (mw[k] - pm)
		}
	}
	clear(out)
	for k := 0; k < K; k++ {
		row, roww := theta[k*D:(k+1)*D], w[k*D:(k+1)*D]
		for j := range out {
			out[j] += float64(roww[j])*r[k] + float64(row[j])*hm[k]
		}
	}
}
