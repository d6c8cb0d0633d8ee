// Package glm is the GLM reconstruction game (reconstruction.attack glm):
// an L2-regularised logistic regression released by output perturbation
// or by projected noisy SGD, attacked target by target with the closed-form
// GLM attack (Balle et al. 2022; Guo et al. 2022), beside the MSE bounds
// of Guo et al. and of Mukherjee & Lokam.
package glm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	aglm "github.com/dpaudit/dpaudit/attack/glm"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/datasets"
	lglm "github.com/dpaudit/dpaudit/learn/glm"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// A GLM reconstruction point (reconstruction: {attack: glm}) becomes a
// glm_fit node — θ* by Newton's method and every training sample's dFIL,
// shared by all points that differ only in the noise (output perturbation
// only) — and one glm_recon node that draws the K·n releases, attacks every
// target with each, and writes one row per target (trials.parquet) and the
// point's summary columns. Release r's noise is rng.New(seed, "glm-release",
// key, r): it depends on the spec seed, the learner and r only.
const (
	glmFitVersion   = 2 // 2: the dFIL from quadratic forms in H⁻² (the last bits differ)
	glmReconVersion = 1
	glmFitFile      = "fit.json"
)

// glmDataParams is the training data as the learner sees it.
type glmDataParams struct {
	Data      stages.DataParams `json:"data"`
	Bias      bool              `json:"bias"`
	Normalize string            `json:"normalize"`
	NormBound float64           `json:"norm_bound,omitempty"` // only with l2_ball
}

type glmFitParams struct {
	Data      glmDataParams `json:"data"`
	Lambda    float64       `json:"lambda"`
	Tolerance float64       `json:"tolerance"`
	MaxSteps  int           `json:"max_steps"`
}

// glmLearner is the mechanism that releases the model.
type glmLearner struct {
	Kind       string  `json:"kind"` // output_perturbation | pnsgd
	Lambda     float64 `json:"lambda"`
	Noise      string  `json:"noise,omitempty"`
	Sigma      float64 `json:"sigma,omitempty"`
	Epsilon    float64 `json:"epsilon,omitempty"`
	RDPFormula string  `json:"rdp_formula,omitempty"`
	NormBound  float64 `json:"norm_bound"`
	// pnsgd
	LearningRate float64 `json:"learning_rate,omitempty"`
	Radius       float64 `json:"radius,omitempty"`
	Delta        float64 `json:"delta,omitempty"`
	NoiseStd     float64 `json:"noise_std,omitempty"`
	Privacy      string  `json:"privacy,omitempty"`
}

type glmReconParams struct {
	Key     string        `json:"key"`
	Seed    int64         `json:"seed"`
	Data    glmDataParams `json:"data"`
	Learner glmLearner    `json:"learner"`
	Attack  spec.ReconGLM `json:"attack"`
}

// glmFit is the glm_fit node's output.
type glmFit struct {
	Theta         []float64 `json:"theta"`
	GradNorm      float64   `json:"grad_norm"`
	Steps         int       `json:"newton_steps"`
	Converged     bool      `json:"converged"`
	FitSeconds    float64   `json:"fit_seconds"`
	TrainAccuracy float64   `json:"train_accuracy"`
	TestAccuracy  float64   `json:"test_accuracy"`
	JacobianNorms []float64 `json:"jacobian_norms"` // ‖J_i[:,K]‖²/d per sample
	DFILSeconds   float64   `json:"dfil_seconds"`
}

var glmColumns = []string{
	"glm_learner", "glm_options", "glm_noise_scale", "glm_grad_norm", "glm_newton_steps", "glm_fit_seconds",
	"glm_train_accuracy", "glm_test_accuracy", "glm_release_test_accuracy", "glm_max_input_norm",
	"glm_targets", "glm_trials", "glm_releases", "glm_failed_trials", "glm_mse", "glm_mse_lo", "glm_mse_hi", "glm_mse_median", "glm_mse_total",
	"glm_dfil_bound_min", "glm_dfil_bound_median", "glm_dfil_bound_max", "glm_dfil_seconds",
	"glm_fraction_respected", "glm_fraction_respected_pred_le1", "glm_dfil_assumption",
	"glm_epsilon", "glm_epsilon_kind", "glm_delta", "glm_rdp_epsilon", "glm_bound_rdp", "glm_bound_rdp_assumption",
	"glm_bound_minimax_dp", "glm_bound_minimax_mdp", "glm_bound_minimax_high_dim", "glm_bound_minimax_assumption",
	"glm_mse_bound_violation", "glm_attack_seconds", "glm_reconstructions_per_second",
}

// glmLearnerOf converts the model block.
func glmLearnerOf(m *spec.Model) (glmLearner, glmDataParams, bool) {
	switch {
	case m.OutputPerturbation != nil:
		o := m.OutputPerturbation
		l := glmLearner{Kind: "output_perturbation", Lambda: o.Lambda, Noise: o.Noise, NormBound: o.NormBound}
		if o.Noise == "gaussian" {
			l.Sigma, l.RDPFormula = o.Sigma, o.RDPFormula
		} else {
			l.Epsilon = o.Epsilon
		}
		return l, glmDataParams{Bias: o.Bias, Normalize: o.Normalize}, true
	case m.PNSGD != nil:
		o := m.PNSGD
		l := glmLearner{Kind: "pnsgd", Lambda: o.Lambda, NormBound: o.NormBound, LearningRate: o.LearningRate,
			Radius: o.Radius, Delta: o.Delta, Epsilon: o.Epsilon, NoiseStd: o.NoiseStd, Privacy: o.Privacy}
		return l, glmDataParams{Bias: o.Bias, Normalize: o.Normalize}, true
	}
	return glmLearner{}, glmDataParams{}, false
}

// Game is the GLM reconstruction game. It raises no violation: no MSE
// bound is valid for this (biased) attack (see glmBounds), so
// glm_mse_bound_violation is always null.
var Game = &stages.Game{
	Name:       "glm reconstruction",
	AppliesTo:  func(exp *spec.Experiment) bool { return exp.Reconstruction != nil && exp.Reconstruction.GLM != nil },
	Compile:    compile,
	Kinds:      []string{"glm_fit", "glm_recon"},
	Implements: map[string][]string{"reconstruction": {"glm"}},
}

// compile builds the GLM reconstruction of one point.
func compile(b *stages.Build) error {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	r := exp.Reconstruction.GLM
	learner, dp, ok := glmLearnerOf(exp.Model)
	if !ok {
		return &stages.PathError{Path: "model.arch", Err: fmt.Errorf("%w; model %q is not one (use output_perturbation or pnsgd)", aglm.ErrNotGLM, exp.Model.Arch)}
	}
	data, err := stages.DatasetParams(exp.Dataset, exp.Seed, true)
	if err != nil {
		return stages.DataError(err)
	}
	dp.Data = data
	if dp.Normalize == "l2_ball" {
		dp.NormBound = learner.NormBound
	}
	// Load once now, so that bad data are positioned errors before anything runs.
	tr, _, maxNorm, err := loadGLMData(dp, env.DataDir)
	if err != nil {
		return err
	}
	if err := checkGLMLearner(learner, dp, tr, maxNorm); err != nil {
		return err
	}
	var inputs []*pipeline.Node
	if learner.Kind == "output_perturbation" {
		o := exp.Model.OutputPerturbation
		fp := glmFitParams{Data: dp, Lambda: o.Lambda, Tolerance: o.Tolerance, MaxSteps: o.MaxSteps}
		fit := b.Add(&pipeline.Node{
			Kind: "glm_fit", Version: glmFitVersion, Params: fp,
			Label: fmt.Sprintf("%s logreg λ=%g bias=%v", data.Source.Name, o.Lambda, dp.Bias),
			Slot:  fmt.Sprintf("%s/glm_fit/%d", name, pt.Index),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				return runGLMFit(ctx, fp, env.DataDir, w)
			},
		})
		inputs = append(inputs, fit)
	}
	p := glmReconParams{Seed: exp.Seed, Data: dp, Learner: learner, Attack: *r}
	p.Key = stages.HashKey(struct {
		D glmDataParams
		L glmLearner
	}{dp, learner})
	node := b.Add(&pipeline.Node{
		Kind: "glm_recon", Version: glmReconVersion, Params: p, Inputs: inputs,
		Label: fmt.Sprintf("GLM attack on %s %s, %d releases, %s targets", learner.Kind, learner.Noise, r.Releases*r.Average, r.Targets),
		Slot:  fmt.Sprintf("%s/glm_recon/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runGLMRecon(ctx, p, env.DataDir, w)
			if err != nil {
				return err
			}
			return stages.WriteValues(w.Dir, outs)
		},
	})
	b.Row(node, glmColumns)
	b.Publish(pt.ID, []*pipeline.Node{node})
	return nil
}

// glmDataCache keeps the last converted split: every point of a sweep
// over the noise (and the compile-time check of each) reads the same one.
// The data are read-only after conversion.
var glmDataCache struct {
	sync.Mutex
	key    string
	tr, te *lglm.Data
	norm   float64
}

// loadGLMData loads the split as float64 sparse rows, rescaling onto the
// ℓ2 ball when asked, and returns the largest input norm.
func loadGLMData(p glmDataParams, dataDir string) (*lglm.Data, *lglm.Data, float64, error) {
	kb, _ := json.Marshal(p)
	key := string(kb) + "\x00" + dataDir
	c := &glmDataCache
	c.Lock()
	defer c.Unlock()
	if c.key == key {
		return c.tr, c.te, c.norm, nil
	}
	tr, te, norm, err := convertGLMData(p, dataDir)
	if err == nil {
		c.key, c.tr, c.te, c.norm = key, tr, te, norm
	}
	return tr, te, norm, err
}

func convertGLMData(p glmDataParams, dataDir string) (*lglm.Data, *lglm.Data, float64, error) {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return nil, nil, 0, &stages.PathError{Path: "dataset", Err: err}
	}
	if split.Train.Classes != 2 {
		return nil, nil, 0, &stages.PathError{Path: "dataset.classes", Err: fmt.Errorf("logistic regression is binary; the data have %d classes (e.g. classes: [0, 1])", split.Train.Classes)}
	}
	conv := func(d *datasets.Dataset) (*lglm.Data, error) {
		x := d.X
		if p.Normalize == "l2_ball" {
			x = slices.Clone(x)
			for i := 0; i < d.N; i++ {
				row := x[i*d.D : (i+1)*d.D]
				var n2 float64
				for _, v := range row {
					n2 += float64(v) * float64(v)
				}
				if n := math.Sqrt(n2); n > p.NormBound {
					s := float32(p.NormBound / n)
					for k := range row {
						row[k] *= s
					}
				}
			}
		}
		return lglm.NewData(x, d.Y, d.N, d.D, p.Bias)
	}
	tr, err := conv(split.Train)
	if err != nil {
		return nil, nil, 0, &stages.PathError{Path: "dataset", Err: err}
	}
	te, err := conv(split.Test)
	if err != nil {
		return nil, nil, 0, &stages.PathError{Path: "dataset", Err: err}
	}
	return tr, te, tr.MaxInputNorm(), nil
}

// normBoundTilde is R̃, the bound on ‖x̃‖ including the bias coordinate.
func normBoundTilde(l glmLearner, bias bool) float64 {
	if bias {
		return math.Sqrt(l.NormBound*l.NormBound + 1)
	}
	return l.NormBound
}

// checkGLMLearner refuses what the mechanisms' privacy analysis does not
// cover: data beyond the norm bound (ε-DP, metric DP and PNSGD accounting
// all assume it) and a PNSGD step size above 2/β.
func checkGLMLearner(l glmLearner, dp glmDataParams, tr *lglm.Data, maxNorm float64) error {
	needsBound := l.Kind == "pnsgd" || l.Noise == "laplace" || l.Noise == "laplace_mdp"
	// float32 storage rounds a rescaled norm by ~1e-7.
	if needsBound && maxNorm > l.NormBound*(1+1e-6) {
		return &stages.PathError{Path: "model.norm_bound", Err: fmt.Errorf("the %s privacy analysis assumes every input has ‖x‖₂ ≤ norm_bound = %g, but the data reach %.4g: set normalize: l2_ball to rescale them onto the ball, or raise norm_bound (which raises the noise)", l.Kind+" "+l.Noise, l.NormBound, maxNorm)}
	}
	if l.Kind == "pnsgd" {
		beta := lglm.PNSGDSmoothness(normBoundTilde(l, dp.Bias), l.Lambda)
		if l.LearningRate > 2/beta {
			return &stages.PathError{Path: "model.learning_rate", Err: fmt.Errorf("projected noisy SGD's analysis needs η ≤ 2/β = %.4g (β = R̃²/4 + λ), got %g", 2/beta, l.LearningRate)}
		}
	}
	return nil
}

func runGLMFit(ctx context.Context, p glmFitParams, dataDir string, w *pipeline.Work) error {
	tr, te, _, err := loadGLMData(p.Data, dataDir)
	if err != nil {
		return err
	}
	start := time.Now()
	sol, err := lglm.Fit(tr, p.Lambda, p.Tolerance, p.MaxSteps)
	if err != nil {
		return err
	}
	out := glmFit{Theta: sol.Theta, GradNorm: sol.GradNorm, Steps: sol.Iterations, Converged: sol.Converged,
		FitSeconds: time.Since(start).Seconds(), TrainAccuracy: lglm.Accuracy(tr, sol.Theta), TestAccuracy: lglm.Accuracy(te, sol.Theta)}
	if !sol.Converged {
		w.Warnf("Newton stopped at ‖∇F‖ = %.3g > tolerance %g after %d steps (rounding); the attack and the dFIL use this θ", sol.GradNorm, p.Tolerance, sol.Iterations)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	start = time.Now()
	if out.JacobianNorms, err = lglm.JacobianNorms(tr, p.Lambda, sol.Theta); err != nil {
		return err
	}
	out.DFILSeconds = time.Since(start).Seconds()
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.Dir, glmFitFile), b, 0o644)
}

// mechanism is the learner ready to release: its noise and its privacy.
type mechanism struct {
	op       lglm.OutputPerturbation
	pnsgd    lglm.PNSGD
	scale    float64 // σ (Gaussian, PNSGD gradient noise) or s (ℓ2-Laplace)
	lipschtz float64 // PNSGD: G
}

func mechanismOf(l glmLearner, bias bool, n int) mechanism {
	rt := normBoundTilde(l, bias)
	switch {
	case l.Kind == "pnsgd":
		g := lglm.PNSGDLipschitz(rt, l.Lambda, l.Radius)
		if l.Privacy == "mdp" {
			// Prop. 6.2: the role of G² is played by L_input²·diam(X).
			li := lglm.PNSGDInputLipschitz(rt, l.Radius)
			g = li * math.Sqrt(2*l.NormBound)
		}
		sigma := l.NoiseStd
		if sigma == 0 {
			sigma = lglm.PNSGDCalibrate(g, l.Epsilon, n, 1, l.Delta)
		}
		return mechanism{pnsgd: lglm.PNSGD{Lambda: l.Lambda, LearningRate: l.LearningRate, NoiseStd: sigma, Radius: l.Radius}, scale: sigma, lipschtz: g}
	case l.Noise == "laplace":
		s := lglm.Sensitivity(n, l.Lambda, rt) / l.Epsilon
		return mechanism{op: lglm.OutputPerturbation{Noise: lglm.NoiseLaplace, Scale: s}, scale: s}
	case l.Noise == "laplace_mdp":
		s := lglm.InputLipschitz(n, l.Lambda, rt) / l.Epsilon
		return mechanism{op: lglm.OutputPerturbation{Noise: lglm.NoiseLaplace, Scale: s}, scale: s}
	}
	return mechanism{op: lglm.OutputPerturbation{Noise: lglm.NoiseGaussian, Scale: l.Sigma}, scale: l.Sigma}
}

// targetsOf picks the attacked samples, in increasing index order. The
// subset is drawn from the data's key, not the learner's, so that the
// points of a sweep over the noise attack the same samples.
func targetsOf(a spec.ReconGLM, n int, seed int64, key string, jn []float64) []int {
	k := min(a.TargetCount, n)
	switch a.Targets {
	case "subset":
		return rng.New(uint64(seed), "glm-targets", key).Perm(n)[:k:k]
	case "top_dfil":
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(x, y int) bool { return jn[idx[x]] > jn[idx[y]] })
		idx = idx[:k]
		sort.Ints(idx)
		return idx
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func learnerName(l glmLearner) string {
	if l.Kind == "pnsgd" {
		return "pnsgd/" + l.Privacy
	}
	return "output_perturbation/" + l.Noise
}

// glmBounds are the closed-form MSE bounds of the point's learner, per
// coordinate (‖ẑ − z‖²/d, the unit of glm_mse), each with the assumption
// it rests on. mse_bound_violation is set only when a bound valid for
// this attack exists; none is: Guo et al.'s Theorems 1 and 2 are for
// unbiased attackers and the GLM attack is biased, and Mukherjee & Lokam's
// bounds are on the worst case over all of Z, which MSEs measured on
// training samples cannot cross. The column is therefore null, never
// false, for the GLM attack.
func glmBounds(l glmLearner, m mechanism, dp glmDataParams, a spec.ReconGLM, tr *lglm.Data, maxNorm float64) ([]stages.Output, error) {
	d := float64(tr.D)
	// Per-coordinate diameter and the ℓ2 diameter of Z.
	diamI, diam := a.CoordinateRange, a.CoordinateRange*math.Sqrt(d)
	space := fmt.Sprintf("Z = [0, %g]^%d", a.CoordinateRange, tr.D)
	if a.DataSpace == "ball" {
		diamI, diam = 2*l.NormBound, 2*l.NormBound
		space = fmt.Sprintf("Z = ℓ2 ball of radius %g", l.NormBound)
	}
	pr, err := learnerPrivacy(l, m, dp, tr, maxNorm)
	if err != nil {
		return nil, err
	}
	eps, eps2, delta, kind := pr.eps, pr.eps2, pr.delta, pr.kind
	rdpNote := "unbiased attacker (Guo et al. Thm 1); " + space + pr.rdpNote
	outs := []stages.Output{stages.F64("glm_epsilon", eps), stages.Str("glm_epsilon_kind", kind)}
	if delta > 0 {
		outs = append(outs, stages.F64("glm_delta", delta))
	}
	if eps2 > 0 {
		g, err := bounds.GuoMSEBoundUniform(eps2, diamI)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("glm_rdp_epsilon", eps2), stages.F64("glm_bound_rdp", g), stages.Str("glm_bound_rdp_assumption", rdpNote))
	}
	n := a.Average
	mmNote := fmt.Sprintf("any attacker, worst case over Z (minimax; Mukherjee & Lokam), n = %d releases; %s; per coordinate (total / %d)", n, space, tr.D)
	switch kind {
	case "dp", "dp_delta_first_sample":
		v, err := bounds.MinimaxDP(eps, delta, n, diam)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("glm_bound_minimax_dp", v/d), stages.Str("glm_bound_minimax_assumption", "Thm 4.1: "+mmNote))
	case "mdp", "mdp_delta_first_sample":
		v, err := bounds.MinimaxMDP(eps, delta, n, bounds.MDPConstantPaper)
		if err != nil {
			return nil, err
		}
		lo, _, err := bounds.EffectiveDimension(tr.D)
		if err != nil {
			return nil, err
		}
		hd, _, err := bounds.MinimaxHighDim(lo, eps, delta, n)
		if err != nil {
			return nil, err
		}
		outs = append(outs, stages.F64("glm_bound_minimax_mdp", v/d), stages.F64("glm_bound_minimax_high_dim", hd/d),
			stages.Str("glm_bound_minimax_assumption", "Thm E.4 (paper constant) and Thm 4.4 (explicit Eq. 44, d̃ = d·ln 2) for ε_L-metric DP in ‖x − x'‖₂: "+mmNote))
	}
	outs = append(outs, stages.Bool("glm_mse_bound_violation", nil))
	return outs, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// glmRows are the per-target rows of trials.parquet.
type glmRows struct{ rs []glmRow }

type glmRow struct {
	index, label, trials, failed int64
	epsilon                      float64
	dfil, dfilBound              float64
	mse, mseLo, mseHi, mseTotal  float64
	respected                    *bool
}

func newGLMRows(n int) *glmRows {
	r := &glmRows{rs: make([]glmRow, n)}
	for i := range r.rs {
		r.rs[i].mse, r.rs[i].mseLo, r.rs[i].mseHi, r.rs[i].mseTotal = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return r
}

func (r *glmRows) row(i int) *glmRow { return &r.rs[i] }

func (r *glmRows) write(path string, pnsgd, dfil, interval bool) error {
	n := len(r.rs)
	col := func(f func(*glmRow) any) []any {
		out := make([]any, n)
		for i := range r.rs {
			out[i] = f(&r.rs[i])
		}
		return out
	}
	t := &pipeline.Table{}
	add := func(name string, typ pipeline.ColType, v []any) {
		if err := t.Add(name, typ, v); err != nil {
			panic(err) // programming error: columns are built above
		}
	}
	add("sample_index", pipeline.Int64, col(func(g *glmRow) any { return g.index }))
	add("label", pipeline.Int64, col(func(g *glmRow) any { return g.label }))
	add("trials", pipeline.Int64, col(func(g *glmRow) any { return g.trials }))
	add("failed_trials", pipeline.Int64, col(func(g *glmRow) any { return g.failed }))
	add("mse", pipeline.Float64, col(func(g *glmRow) any { return stages.OrNull(g.mse) }))
	if interval {
		add("mse_lo", pipeline.Float64, col(func(g *glmRow) any { return stages.OrNull(g.mseLo) }))
		add("mse_hi", pipeline.Float64, col(func(g *glmRow) any { return stages.OrNull(g.mseHi) }))
	}
	add("mse_total", pipeline.Float64, col(func(g *glmRow) any { return stages.OrNull(g.mseTotal) }))
	if dfil {
		add("dfil", pipeline.Float64, col(func(g *glmRow) any { return g.dfil }))
		add("dfil_bound", pipeline.Float64, col(func(g *glmRow) any { return g.dfilBound }))
		add("dfil_respected", pipeline.Bool, col(func(g *glmRow) any {
			if g.respected == nil {
				return nil
			}
			return *g.respected
		}))
	}
	if pnsgd {
		add("epsilon", pipeline.Float64, col(func(g *glmRow) any { return g.epsilon }))
	}
	return pipeline.WriteParquet(path, t)
}

// privacyOf is what a learner guarantees: ε of its kind (dp, metric DP or
// order-2 RDP; PNSGD's for the first sample, the most exposed), δ, ε₂ (the
// order-2 RDP Guo et al.'s bound takes; 0: none) and notes on the RDP
// bound's assumptions.
type privacyOf struct {
	eps, eps2, delta float64
	kind, rdpNote    string
}

func learnerPrivacy(l glmLearner, m mechanism, dp glmDataParams, tr *lglm.Data, maxNorm float64) (privacyOf, error) {
	var g privacyOf
	switch {
	case l.Kind == "pnsgd" && l.Privacy == "mdp":
		g.eps = lglm.PNSGDEpsilon(m.lipschtz, m.scale, tr.N, 1, l.Delta)
		g.delta, g.kind = l.Delta, "mdp_delta_first_sample"
	case l.Kind == "pnsgd":
		g.eps = lglm.PNSGDEpsilon(m.lipschtz, m.scale, tr.N, 1, l.Delta)
		g.delta, g.kind = l.Delta, "dp_delta_first_sample"
		// Feldman et al. Thm 23 at α = 2: 2a, a = 2G²/(σ²N).
		g.eps2 = 2 * 2 * m.lipschtz * m.lipschtz / (m.scale * m.scale * float64(tr.N))
		g.rdpNote = "; ε₂ of the first sample (Feldman et al. Thm 23 at α = 2)"
	case l.Noise == "laplace":
		g.eps, g.eps2, g.kind = l.Epsilon, l.Epsilon, "dp"
		g.rdpNote = "; ε-DP implies (2, ε)-RDP"
	case l.Noise == "laplace_mdp":
		g.eps, g.kind = l.Epsilon, "mdp"
	default:
		f := bounds.OutputPerturbationPaper
		if l.RDPFormula == "corrected" {
			f = bounds.OutputPerturbationCorrected
		}
		var err error
		if g.eps2, err = bounds.OutputPerturbationEpsilon(tr.N, l.Lambda, l.Sigma, f); err != nil {
			return g, err
		}
		g.eps, g.kind = g.eps2, "rdp2_"+l.RDPFormula
		if l.RDPFormula == "paper_v1" {
			g.rdpNote += "; ε₂ = 2/(Nλσ) as printed (paper_v1), not the Gaussian's order-2 RDP 4/(Nλσ)²"
		}
		if rt := math.Sqrt(maxNorm*maxNorm + b2f(dp.Bias)); rt > 1 {
			g.rdpNote += fmt.Sprintf("; the formula assumes ‖x̃‖ ≤ 1, the data reach %.4g", rt)
		}
	}
	return g, nil
}
