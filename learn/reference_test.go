package learn

import (
	"math"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// refMLP is a deliberately plain float64 MLP (dense → activation → … →
// dense → softmax cross-entropy) with the same flat parameter layout as
// Model, trained by textbook SGD with momentum and weight decay. It shares
// no code with the package under test.
type refMLP struct {
	sizes []int // input, hidden…, classes
	act   Activation
	p     []float64
	vel   []float64
}

func (r *refMLP) actF(z float64) float64 {
	switch r.act {
	case ReLU:
		return math.Max(z, 0)
	case Tanh:
		return math.Tanh(z)
	case ELU:
		if z > 0 {
			return z
		}
		return math.Expm1(z)
	}
	return 1 / (1 + math.Exp(-z))
}

func (r *refMLP) actD(z float64) float64 {
	switch r.act {
	case ReLU:
		if z > 0 {
			return 1
		}
		return 0
	case Tanh:
		t := math.Tanh(z)
		return 1 - t*t
	case ELU:
		if z > 0 {
			return 1
		}
		return math.Exp(z)
	}
	s := 1 / (1 + math.Exp(-z))
	return s * (1 - s)
}

// grad adds example (x, y)'s loss gradient into g.
func (r *refMLP) grad(x []float32, y int32, g []float64) {
	L := len(r.sizes) - 1
	a := make([][]float64, L+1) // activations
	z := make([][]float64, L+1) // pre-activations
	a[0] = make([]float64, len(x))
	for i, v := range x {
		a[0][i] = float64(v)
	}
	off := 0
	offs := make([]int, L)
	for l := 0; l < L; l++ {
		in, out := r.sizes[l], r.sizes[l+1]
		offs[l] = off
		w, b := r.p[off:off+in*out], r.p[off+in*out:off+in*out+out]
		z[l+1] = make([]float64, out)
		a[l+1] = make([]float64, out)
		for o := 0; o < out; o++ {
			s := b[o]
			for i := 0; i < in; i++ {
				s += w[o*in+i] * a[l][i]
			}
			z[l+1][o] = s
			if l < L-1 {
				a[l+1][o] = r.actF(s)
			} else {
				a[l+1][o] = s
			}
		}
		off += in*out + out
	}
	// softmax cross-entropy
	logits := a[L]
	m := logits[0]
	for _, v := range logits {
		m = math.Max(m, v)
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(v - m)
	}
	delta := make([]float64, len(logits))
	for k, v := range logits {
		delta[k] = math.Exp(v-m) / sum
	}
	delta[y]--
	for l := L - 1; l >= 0; l-- {
		in, out := r.sizes[l], r.sizes[l+1]
		w := r.p[offs[l] : offs[l]+in*out]
		gw, gb := g[offs[l]:offs[l]+in*out], g[offs[l]+in*out:offs[l]+in*out+out]
		prev := make([]float64, in)
		for o := 0; o < out; o++ {
			gb[o] += delta[o]
			for i := 0; i < in; i++ {
				gw[o*in+i] += delta[o] * a[l][i]
				prev[i] += w[o*in+i] * delta[o]
			}
		}
		if l > 0 {
			for i := range prev {
				prev[i] *= r.actD(z[l][i])
			}
		}
		delta = prev
	}
}

// step does θ ← θ − η(v ← μv + Σ_batch g/norm + λθ).
func (r *refMLP) step(X []float32, Y []int32, batch []int, norm, lr, mu, wd float64) {
	D := r.sizes[0]
	g := make([]float64, len(r.p))
	for _, i := range batch {
		r.grad(X[i*D:(i+1)*D], Y[i], g)
	}
	for j := range r.p {
		d := g[j]/norm + wd*r.p[j]
		r.vel[j] = mu*r.vel[j] + d
		r.p[j] -= lr * r.vel[j]
	}
}

// TestNonPrivateTrainingEqualsPlainSGD: with σ = 0 and C = +Inf, DP-SGD is
// SGD on Σ_batch ∇ℓ_i/(q·N) with momentum and weight decay. The reference
// above replays the batches the trainer sampled (read through OnStep) in
// float64; after 30 steps the parameters must agree to float32 accuracy:
// |θ − θ_ref| ≤ 5e−6·(1 + |θ_ref|) (30 steps of float32 rounding of ~1e−7
// each; observed ≤ 2.2e−7). The parameters must also have moved by more
// than 1e−2 from their initial values, so agreement is not trivial.
func TestNonPrivateTrainingEqualsPlainSGD(t *testing.T) {
	cases := []struct {
		name   string
		hidden []int
		act    Activation
		q      float64
		mu, wd float64
	}{
		{"relu-full-batch", []int{8}, ReLU, 1, 0, 0},
		{"tanh-poisson-momentum", []int{8, 6}, Tanh, 0.3, 0.9, 0},
		{"elu-poisson-momentum-decay", []int{7}, ELU, 0.5, 0.5, 1e-2},
		{"softmax-logreg", nil, ELU, 0.4, 0, 1e-3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const n, d, classes = 40, 9, 3
			X, Y := randomData(21, n, d, classes)
			m := mustModel(t, Arch{Kind: KindMLP, Hidden: c.hidden, Activation: c.act}, []int{d}, classes, 4)
			ref := &refMLP{sizes: append(append([]int{d}, c.hidden...), classes), act: c.act}
			for _, v := range m.Params() {
				ref.p = append(ref.p, float64(v))
			}
			ref.vel = make([]float64, len(ref.p))
			p0 := m.Params()
			var batches [][]int
			cfg := DPSGD{ClipNorm: math.Inf(1), SamplingRate: c.q, Steps: 30, LearningRate: 0.2,
				Momentum: c.mu, WeightDecay: c.wd, ChunkSize: 16}
			mustTrain(t, m, X, Y, cfg, rng.New(1, "t"), &Hooks{OnStep: func(s *Step) error {
				batches = append(batches, append([]int(nil), s.Batch...))
				return nil
			}})
			for _, b := range batches {
				ref.step(X, Y, b, c.q*n, cfg.LearningRate, c.mu, c.wd)
			}
			worst, moved := 0.0, 0.0
			for j, v := range m.Params() {
				moved = math.Max(moved, math.Abs(float64(v)-float64(p0[j])))
				diff := math.Abs(float64(v) - ref.p[j])
				worst = math.Max(worst, diff)
				if diff > 5e-6*(1+math.Abs(ref.p[j])) {
					t.Fatalf("%s: trained %.7g, reference %.7g", m.paramName(j), v, ref.p[j])
				}
			}
			if moved < 1e-2 {
				t.Fatalf("parameters moved by at most %g: the comparison is vacuous", moved)
			}
			t.Logf("max |θ − θ_ref| = %.2g over %d params (max move %.2g)", worst, len(ref.p), moved)
		})
	}
}
