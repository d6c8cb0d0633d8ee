package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// FIL accumulates Guo et al.'s (2022, Algorithm 1) per-sample Fisher
// information leakage of a DP-SGD run: at every step, for every sample z
// in the batch, κ/(σ²C²)·‖J eᵢ‖² with J the Jacobian of z's soft-clipped
// per-example gradient with respect to its input at the step's parameters
// θ_{t−1} and i a uniformly random input coordinate, averaged over
// Coordinates draws — an unbiased estimate of κ·Tr(I_t(z))/d. The sum over
// steps is the dFIL η̄² of z (Theorem 3), and 1/η̄² bounds an unbiased
// attacker's per-coordinate MSE (Theorem 2).
//
// J eᵢ is taken by central finite differences of the per-example gradient
// along eᵢ with step H (the layers run in float32, whose rounding limits H
// from below; the closed form of learn/glm checks it for logistic loss).
// Guo et al. use forward-mode JVPs; this is the same quantity.
//
// Plug Observe into Hooks.OnStep. Eta2[j] is sample j's accumulated η̄².
type FIL struct {
	Coordinates int     // coordinate draws per sample and step
	H           float64 // finite-difference step, in input units
	Scale       float64 // κ/(σ²C²)
	Eta2        []float64
	Seconds     float64 // time spent in Observe

	m     *Model
	x     []float32
	y     []int32
	d     int
	clip  float64
	r     *rand.Rand
	xs    []float32
	ys    []int32
	grads []float32
	norms []float64
	jobs  []filJob
	out   []float64
}

// filChunk is how many perturbed inputs are differentiated at once: the
// per-example gradients are materialised (rows of NumParams floats).
const filChunk = 64

// CheckSmooth reports why a configuration has no smooth per-example
// gradient Jacobian in the input, naming the layer and what to use
// instead; nil if it has one.
func CheckSmooth(a Arch, clip string) error {
	if clip != ClipSoft {
		return fmt.Errorf("hard clipping min(1, C/‖g‖) has no derivative where ‖g‖ = C: use dpsgd.clip: soft (Guo et al.'s GELU soft clip)")
	}
	switch a.Kind {
	case KindLogReg:
		return nil
	case KindMLP, KindCNN:
		act := a.Activation
		if act == "" && a.Kind == KindMLP {
			act = ReLU
		}
		if act == "" {
			act = Tanh
		}
		if act != Tanh && act != Sigmoid {
			return fmt.Errorf("the %s activation of the hidden layers has a non-smooth derivative (ReLU: a kink at 0; ELU: a jump of its second derivative at 0): use activation tanh", act)
		}
		return nil
	case KindLayers:
		for i, l := range a.Layers {
			switch Activation(l.Kind) {
			case ReLU, ELU:
				return fmt.Errorf("layers[%d]: the %s activation has a non-smooth derivative (ReLU: a kink at 0; ELU: a jump of its second derivative at 0): use tanh or sigmoid", i, l.Kind)
			}
			if l.Kind == LayerMaxPool {
				return fmt.Errorf("layers[%d]: max pooling has no derivative where a window's maximum is tied: use avgpool", i)
			}
		}
		return nil
	}
	return fmt.Errorf("model kind %q: no FIL accounting", a.Kind)
}

// NewFIL prepares the accountant for training m on (X, Y) with cfg; scale
// is κ/(σ²C²) and r the stream of coordinate draws.
func NewFIL(m *Model, X []float32, Y []int32, cfg DPSGD, coordinates int, h, scale float64, r *rand.Rand) (*FIL, error) {
	if err := CheckSmooth(m.Arch(), cfg.clip()); err != nil {
		return nil, err
	}
	if coordinates < 1 || !(h > 0) || !(scale >= 0) {
		return nil, fmt.Errorf("FIL: coordinates %d, step %v, scale %v", coordinates, h, scale)
	}
	if err := m.checkData(X, Y); err != nil {
		return nil, err
	}
	d := m.InputSize()
	return &FIL{
		Coordinates: coordinates, H: h, Scale: scale, Eta2: make([]float64, len(Y)),
		m: m.Clone(), x: X, y: Y, d: d, clip: cfg.ClipNorm, r: r,
		xs: make([]float32, 2*filChunk*d), ys: make([]int32, 2*filChunk),
		grads: make([]float32, 2*filChunk*m.NumParams()), norms: make([]float64, 2*filChunk),
	}, nil
}

// Observe adds the step's leakage to the samples of its batch.
func (f *FIL) Observe(s *Step) error {
	start := time.Now()
	defer func() { f.Seconds += time.Since(start).Seconds() }()
	if err := f.m.SetParams(s.Params); err != nil {
		return err
	}
	// Every (sample, draw) pair in batch order; the draws come from r in
	// that order, so the result depends on the seed only.
	f.jobs = f.jobs[:0]
	for _, j := range s.Batch {
		if j >= len(f.y) {
			continue // the audit's target record is not ours to account
		}
		for k := 0; k < f.Coordinates; k++ {
			f.jobs = append(f.jobs, filJob{j, f.r.IntN(f.d)})
		}
	}
	if cap(f.out) < len(f.jobs) {
		f.out = make([]float64, len(f.jobs))
	}
	out := f.out[:len(f.jobs)]
	if err := f.columnNorms(f.jobs, out); err != nil {
		return err
	}
	w := f.Scale / float64(f.Coordinates)
	for k, jb := range f.jobs {
		f.Eta2[jb.sample] += w * out[k]
	}
	return nil
}

// filJob is one (sample, input coordinate) pair.
type filJob struct{ sample, coord int }

// columnNorms writes ‖J e_c‖² of each job (J of the soft-clipped
// per-example gradient at the model's parameters) into out.
func (f *FIL) columnNorms(jobs []filJob, out []float64) error {
	p := f.m.NumParams()
	for lo := 0; lo < len(jobs); lo += filChunk {
		hi := min(lo+filChunk, len(jobs))
		b := hi - lo
		for k, jb := range jobs[lo:hi] {
			row := f.x[jb.sample*f.d : (jb.sample+1)*f.d]
			plus := f.xs[(2*k)*f.d : (2*k+1)*f.d]
			minus := f.xs[(2*k+1)*f.d : (2*k+2)*f.d]
			copy(plus, row)
			copy(minus, row)
			plus[jb.coord] += float32(f.H)
			minus[jb.coord] -= float32(f.H)
			f.ys[2*k], f.ys[2*k+1] = f.y[jb.sample], f.y[jb.sample]
		}
		if err := f.m.PerExampleGradients(f.xs[:2*b*f.d], f.ys[:2*b], f.grads[:2*b*p], f.norms[:2*b]); err != nil {
			return err
		}
		for k, jb := range jobs[lo:hi] {
			// The step actually taken in float32, so the quotient is
			// exact for what was differentiated.
			x := f.x[jb.sample*f.d+jb.coord]
			h2 := float64(x+float32(f.H)) - float64(x-float32(f.H))
			cp, cm := softClip(f.norms[2*k], f.clip), softClip(f.norms[2*k+1], f.clip)
			gp := f.grads[(2*k)*p : (2*k+1)*p]
			gm := f.grads[(2*k+1)*p : (2*k+2)*p]
			var sq float64
			for i := range gp {
				v := (cp*float64(gp[i]) - cm*float64(gm[i])) / h2
				sq += v * v
			}
			out[lo+k] = sq
		}
	}
	return nil
}

// softClip is the factor 1/(GELU(n/C − 1) + 1) of the soft clip.
func softClip(norm, c float64) float64 {
	if math.IsInf(c, 1) {
		return 1
	}
	return 1 / (geluTanh(norm/c-1) + 1)
}
