package membership

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/learn"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/stages"
)

// Per-step white-box audit of a trained model (Nasr, Hayes, Steinke,
// Balle, Tramèr, Jagielski, Carlini & Terzis, USENIX Security 2023): m
// Dirac gradient canaries (C on one parameter each, on the parameters the
// data moves least) are placed in ONE DP-SGD run; half of them (in a
// seeded order) are inserted — each joins the clipped sum at every step
// with probability q, like a Poisson-sampled record — the other half
// never are. The auditor runs the training code (white-box, threat model
// gradient): it sees every privatised update, the batch and the canaries'
// inclusion draws, so it subtracts the data's clipped gradient on the
// canary's parameter, and y = (NoisySum_t[p] − ClippedSum_t[p])/C is one
// fresh draw of the per-step Gaussian mechanism: N(1, σ²) at a step where
// the canary was drawn, N(0, σ²) on a never-inserted canary's parameter,
// independent across steps and parameters given the model. A run gives
// about m/2·q·T samples a side; audit.runs runs are pooled into one audit
// (the samples of different runs are independent too), audit.repeats
// repeat the whole audit.
const perStepTrainVersion = 1

// perStepColumns are the estimator-specific summary columns.
var perStepColumns = []string{"per_step_runs", "per_step_samples", "per_step_threshold", "per_step_fpr_upper", "per_step_fnr_upper",
	"per_step_mu_lb", "per_step_mu_ub", "per_step_mu_point", "per_step_claim_mu", "per_step_sampling_rate",
	"per_step_composition", "per_step_claim", "epsilon_per_step_point", "epsilon_per_step_ub",
	"per_step_cp_epsilon_lb", "per_step_claim_step_epsilon"}

type perStepTrainParams struct {
	Key      string            `json:"point_key"`
	Data     stages.DataParams `json:"data"`
	Arch     learn.Arch        `json:"arch"`
	DPSGD    stages.TrainDPSGD `json:"dpsgd"`
	Canaries int               `json:"canaries"`
	Seed     int64             `json:"seed"`
	Repeat   int               `json:"repeat,omitempty"`
	Run      int               `json:"run,omitempty"`
}

// perStepTrainedStages adds audit.runs training nodes per repeat, repeat
// by repeat; run 0 of repeat 0 has the point's key, run k > 0 its own
// derived key (its own θ_0, canary parameters and streams).
func perStepTrainedStages(b *stages.Build, repeats int) (string, []string, []*pipeline.Node, error) {
	name, pt, env := b.Name, b.Point, b.Env
	exp := pt.Exp
	arch, data, err := stages.TrainedModel(exp, env.DataDir)
	if err != nil {
		return "", nil, nil, err
	}
	if err := checkGradientCanaries(data, arch, env.DataDir, "per-step", exp.Audit.Trials); err != nil {
		return "", nil, nil, err
	}
	p := perStepTrainParams{Data: data, Arch: arch, DPSGD: stages.TrainConfig(exp.DPSGD), Canaries: exp.Audit.Trials, Seed: exp.Seed}
	base := stages.HashKey(p)
	var keys []string
	var nodes []*pipeline.Node
	runs := max(exp.Audit.Runs, 1)
	for r := range repeats {
		rk := stages.RepeatKey(base, r)
		keys = append(keys, rk)
		for k := range runs {
			q := p
			q.Key, q.Repeat, q.Run = rk, r, k
			if k > 0 {
				q.Key = fmt.Sprintf("%s/run/%d", rk, k)
			}
			nodes = append(nodes, b.Add(&pipeline.Node{
				Kind: "perstep_train", Version: perStepTrainVersion, Params: q,
				Label: fmt.Sprintf("per-step audit, %d Dirac canaries, %s %s σ=%.4g q=%.4g T=%d, run %d/%d%s", q.Canaries, data.Source.Name, arch.Kind,
					q.DPSGD.NoiseMultiplier, q.DPSGD.SamplingRate, q.DPSGD.Steps, k+1, runs, stages.RepeatLabel(r, repeats)),
				Slot: fmt.Sprintf("%s/perstep/%d/%d%s", name, pt.Index, k, stages.RepeatSlot(r)),
				Run:  func(ctx context.Context, w *pipeline.Work) error { return runPerStepTrain(ctx, q, env.DataDir, w) },
			}))
		}
	}
	return base, keys, nodes, nil
}

func runPerStepTrain(ctx context.Context, p perStepTrainParams, dataDir string, w *pipeline.Work) error {
	split, m, coords, err := canaryModel(ctx, p.Data, dataDir, p.Arch, p.DPSGD.Learn(), uint64(p.Seed), "perstep", "per-step audit", p.Key, p.Canaries)
	if err != nil {
		return err
	}
	tr := split.Train
	seed := uint64(p.Seed)
	n := p.Canaries
	cfg := p.DPSGD.Learn()
	order := rng.New(seed, "perstep", p.Key, "worlds").Perm(n)
	in := make([]bool, n)
	var included []int
	for k, j := range order {
		if k < (n+1)/2 {
			in[j] = true
			included = append(included, coords[j])
		}
	}
	// The auditor inserts the canaries, so it knows each step's inclusion
	// draws: an inserted canary's sample is kept at the steps it was
	// drawn (N(1, σ²) after the subtraction), and the never-inserted
	// canary paired with it is sampled at the same steps (N(0, σ²)), so
	// the two sides stay balanced and the choice of steps is independent
	// of their noise.
	C := cfg.ClipNorm
	pair := make([]int, len(included)) // pair[k]: the out canary of included[k]
	var outs []int
	for j := range n {
		if !in[j] {
			outs = append(outs, coords[j])
		}
	}
	for k := range pair {
		pair[k] = -1
		if k < len(outs) {
			pair[k] = outs[k]
		}
	}
	var ys []float64
	var ws []bool
	h := &learn.Hooks{Dirac: included, DiracValue: float32(C), CleanSum: true, OnStep: func(s *learn.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, c := range included {
			if !s.DiracIncluded[k] {
				continue
			}
			ys = append(ys, (float64(s.NoisySum[c])-float64(s.ClippedSum[c]))/C)
			ws = append(ws, true)
			if o := pair[k]; o >= 0 {
				ys = append(ys, (float64(s.NoisySum[o])-float64(s.ClippedSum[o]))/C)
				ws = append(ws, false)
			}
		}
		return nil
	}}
	if _, err := learn.Train(m, tr.X, tr.Y, cfg, rng.New(seed, "perstep", p.Key, "train"), h); err != nil {
		return fmt.Errorf("per-step training: %w", err)
	}
	trial, world, rep, proj := make([]any, len(ys)), make([]any, len(ys)), make([]any, len(ys)), make([]any, len(ys))
	for i, y := range ys {
		trial[i], rep[i], proj[i] = int64(i), int64(p.Repeat), y
		world[i] = int64(0)
		if ws[i] {
			world[i] = int64(1)
		}
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, rep)
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	t.Add("projection", pipeline.Float64, proj)
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), t)
}

// perStepEstimate bounds the per-step Gaussian μ (the samples are
// conditioned on the canary's inclusion, so the per-step family is the
// Gaussian whatever q) and composes it over the claim's T steps: at q = 1
// exactly by GDP composition (μ_total = √T·μ_step); at q < 1 by the
// claim's accountant on the subsampled Gaussian with σ = 1/μ_step and the
// CLAIMED q and T — the sampling is taken from the claim, not audited (a
// shuffled-batch run audited this way is not caught: see the sampler
// audit). Either way the bound tests the claim "each step adds Gaussian
// noise of at least the claimed σ, composed as claimed", not (ε, δ)-DP in
// general; the per-step CP ε beside it is valid for one step (without
// subsampling) in general.
func perStepEstimate(p estimateParams, scores []float64, worlds []bool, epsAcc float64) (repeatEstimate, error) {
	var in, out []float64
	for i, s := range scores {
		if worlds[i] {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	c := p.Claim
	q := c.SamplingRate
	r, err := audit.PerStep(in, out, 1, p.Delta, p.Confidence)
	if err != nil {
		return repeatEstimate{}, err
	}
	var eps [3]float64 // ε of μ's lower end, point estimate and upper end
	for i, mu := range []float64{r.MuLower, r.MuPoint, r.MuUpper} {
		if eps[i], err = audit.ComposePerStep(mu, c.SamplingRate, c.Steps, c.Accountant, p.Delta); err != nil {
			return repeatEstimate{}, fmt.Errorf("per-step composition of μ = %v: %w", mu, err)
		}
	}
	lb, point, ub := eps[0], eps[1], eps[2]
	claimMu := math.Inf(1)
	if s := c.accountedSigma(); s > 0 {
		claimMu = 1 / s
	}
	stepClaim := c
	stepClaim.Steps, stepClaim.SamplingRate = 1, 1
	stepEps, err := claimEpsilon(stepClaim, p.Delta)
	if err != nil {
		return repeatEstimate{}, err
	}
	composition, claim := "gdp: mu_total = sqrt(T) * mu_step", "gaussian (mu-GDP per step, T steps)"
	if q < 1 {
		composition = "accountant on the subsampled Gaussian (sigma = 1/mu_step, claimed q and T)"
		claim = fmt.Sprintf("Gaussian noise per step, Poisson q = %g (taken from the claim, not audited), T = %d", q, c.Steps)
	}
	pv := audit.PerStepPValue(r, claimMu)
	return repeatEstimate{
		outs: []stages.Output{
			stages.Int("per_step_runs", int64(max(p.Runs, 1))),
			stages.Int("per_step_samples", int64(len(scores))),
			stages.F64("per_step_threshold", r.Threshold),
			stages.F64("per_step_fpr_upper", r.FPRUpper),
			stages.F64("per_step_fnr_upper", r.FNRUpper),
			stages.F64("per_step_mu_lb", r.MuLower),
			stages.F64("per_step_mu_ub", r.MuUpper),
			stages.F64("per_step_mu_point", r.MuPoint),
			stages.F64("per_step_claim_mu", claimMu),
			stages.F64("per_step_sampling_rate", q),
			stages.Str("per_step_composition", composition),
			stages.Str("per_step_claim", claim),
			stages.F64("epsilon_per_step_point", point),
			stages.F64("epsilon_per_step_ub", ub),
			stages.F64("per_step_cp_epsilon_lb", r.EpsilonStepLB),
			stages.F64("per_step_claim_step_epsilon", stepEps),
		},
		family: audit.FamilyPerStepGDP, valid: true, epsLB: lb, conf: r.Confidence, method: "per_step",
		pValue: pv, violation: audit.Below(pv, 1-p.Confidence, audit.ClaimTolerance),
	}, nil
}
