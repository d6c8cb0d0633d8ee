package glm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	aglm "github.com/dpaudit/dpaudit/attack/glm"
	"github.com/dpaudit/dpaudit/audit"
	lglm "github.com/dpaudit/dpaudit/learn/glm"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// runGLMRecon draws the point's releases, attacks every target with each,
// writes one row per target (trials.parquet) and returns the point's
// summary columns.
func runGLMRecon(ctx context.Context, p glmReconParams, dataDir string, w *pipeline.Work) ([]stages.Output, error) {
	tr, te, maxNorm, err := loadGLMData(p.Data, dataDir)
	if err != nil {
		return nil, err
	}
	mech := mechanismOf(p.Learner, p.Data.Bias, tr.N)
	var fit *glmFit
	if p.Learner.Kind == "output_perturbation" {
		if fit, err = readFit(w.Inputs[0]); err != nil {
			return nil, err
		}
	}
	targets, err := attackTargets(p, tr, fit)
	if err != nil {
		return nil, err
	}
	st, err := attackReleases(ctx, p, tr, te, mech, fit, targets)
	if err != nil {
		return nil, err
	}
	rows, frac := targetRows(p, tr, mech, fit, targets, st)
	if err := rows.write(filepath.Join(w.Dir, stages.TrialsFile), p.Learner.Kind == "pnsgd", fit != nil, p.Attack.Interval); err != nil {
		return nil, err
	}
	return pointOutputs(p, tr, maxNorm, mech, fit, st, frac)
}

// readFit reads the glm_fit node's θ* and dFIL.
func readFit(dir string) (*glmFit, error) {
	b, err := os.ReadFile(filepath.Join(dir, glmFitFile))
	if err != nil {
		return nil, err
	}
	fit := &glmFit{}
	return fit, json.Unmarshal(b, fit)
}

// attackTargets are the attacked samples, in increasing index order.
func attackTargets(p glmReconParams, tr *lglm.Data, fit *glmFit) ([]int, error) {
	a := p.Attack
	if a.Targets == "top_dfil" && fit == nil {
		return nil, fmt.Errorf("targets top_dfil needs the dFIL of output perturbation")
	}
	var jn []float64
	if a.Targets == "top_dfil" {
		jn = fit.JacobianNorms
	}
	targets := targetsOf(a, tr.N, p.Seed, stages.HashKey(p.Data), jn)
	if a.Targets == "subset" {
		sort.Ints(targets)
	}
	return targets, nil
}

// releaseStats is the attack over every release, per target t: the sums
// of its per-coordinate MSE and of their squares, of its total squared
// error, its successful and failed trials; per release the model's test
// accuracy; per trial the mean per-coordinate MSE over its targets.
type releaseStats struct {
	sum, sumSq, sumTot []float64
	okCount, failed    []int
	acc, trialMeans    []float64
	reconstructions    int
	seconds            float64
}

// attackReleases draws a.Releases trials of a.Average releases each
// (release r's noise is rng.New(seed, "glm-release", key, r)) and attacks
// every target with each; a trial's error is that of the average of its
// releases' reconstructions.
func attackReleases(ctx context.Context, p glmReconParams, tr, te *lglm.Data, mech mechanism, fit *glmFit, targets []int) (releaseStats, error) {
	l, a := p.Learner, p.Attack
	nt, d := len(targets), tr.D
	st := releaseStats{sum: make([]float64, nt), sumSq: make([]float64, nt), sumTot: make([]float64, nt), okCount: make([]int, nt), failed: make([]int, nt)}
	var att *aglm.Attack
	if a.Releases > 0 {
		var err error
		if att, err = aglm.New(tr, l.Lambda, a.Guard); err != nil {
			return st, &stages.PathError{Path: "model.bias", Err: err}
		}
	}
	var avg [][]float64 // per target x̂ sums when averaging releases
	if a.Average > 1 {
		avg = make([][]float64, nt)
		for t := range avg {
			avg[t] = make([]float64, d)
		}
	}
	trialFailed, trialErr := make([]bool, nt), make([]float64, nt)
	theta, xhat, x := make([]float64, tr.P), make([]float64, d), make([]float64, d)
	start := time.Now()
	for k := 0; k < a.Releases; k++ {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		clear(trialFailed)
		for t := range avg {
			clear(avg[t])
		}
		for m := 0; m < a.Average; m++ {
			src := rng.New(uint64(p.Seed), "glm-release", p.Key, k*a.Average+m)
			if l.Kind == "pnsgd" {
				theta = mech.pnsgd.Run(tr, src, theta)
			} else {
				theta = mech.op.Release(fit.Theta, src, theta)
			}
			st.acc = append(st.acc, lglm.Accuracy(te, theta))
			att.Prepare(theta)
			for t, i := range targets {
				xh, _, ok := att.Reconstruct(i, xhat)
				st.reconstructions++
				switch {
				case !ok:
					trialFailed[t] = true
				case a.Average == 1:
					trialErr[t] = sqDist(xh, tr.Input(i, x))
				default:
					for c, v := range xh {
						avg[t][c] += v / float64(a.Average)
					}
				}
			}
		}
		st.fold(tr, targets, trialFailed, trialErr, avg, x)
	}
	st.seconds = time.Since(start).Seconds()
	return st, nil
}

// fold adds one trial: per target, and the trial's mean over its targets
// (the releases are the independent units of the point's interval; the
// targets of one trial share a release). avg holds the averaged
// reconstructions when a trial averages several releases; x is scratch.
func (st *releaseStats) fold(tr *lglm.Data, targets []int, trialFailed []bool, trialErr []float64, avg [][]float64, x []float64) {
	d := float64(tr.D)
	var trialSum float64
	trialN := 0
	for t, i := range targets {
		if trialFailed[t] {
			st.failed[t]++
			continue
		}
		e := trialErr[t]
		if avg != nil {
			e = sqDist(avg[t], tr.Input(i, x))
		}
		pc := e / d
		st.sum[t] += pc
		st.sumSq[t] += pc * pc
		st.sumTot[t] += e
		st.okCount[t]++
		trialSum += pc
		trialN++
	}
	if trialN > 0 {
		st.trialMeans = append(st.trialMeans, trialSum/float64(trialN))
	}
}

// respected is how often a target's mean MSE respects its dFIL bound: over
// every target attacked at least once, and over those whose bound
// predicts an MSE ≤ 1 (NaN where there are none).
type respected struct{ all, le1 float64 }

// targetRows are the per-target rows, and how often the targets respect
// their dFIL bounds.
func targetRows(p glmReconParams, tr *lglm.Data, mech mechanism, fit *glmFit, targets []int, st releaseStats) (*glmRows, respected) {
	l, a := p.Learner, p.Attack
	var fisher float64
	if fit != nil {
		fisher = mech.op.FisherScale(tr.P)
	}
	rows := newGLMRows(len(targets))
	var mse, bound, mseLE1, boundLE1 []float64
	for t, i := range targets {
		r := rows.row(t)
		r.index, r.label = int64(i), int64(tr.Y[i])
		r.trials, r.failed = int64(st.okCount[t]+st.failed[t]), int64(st.failed[t])
		if l.Kind == "pnsgd" {
			r.epsilon = lglm.PNSGDEpsilon(mech.lipschtz, mech.scale, tr.N, i+1, l.Delta)
		}
		if fit != nil {
			eta := fisher * fit.JacobianNorms[i]
			r.dfil, r.dfilBound = eta, 1/eta
		}
		if st.okCount[t] == 0 {
			continue
		}
		c := float64(st.okCount[t])
		mean := st.sum[t] / c
		r.mse, r.mseTotal = mean, st.sumTot[t]/c
		if a.Interval && st.okCount[t] >= 2 {
			sd := math.Sqrt(math.Max(0, (st.sumSq[t]-c*mean*mean)/(c-1)))
			lo, hi := audit.TInterval(mean, sd, st.okCount[t], a.Confidence)
			r.mseLo, r.mseHi = math.Max(0, lo), hi
		}
		if fit != nil {
			ok := mean >= r.dfilBound
			r.respected = &ok
			mse, bound = append(mse, mean), append(bound, r.dfilBound)
			if r.dfilBound <= 1 {
				mseLE1, boundLE1 = append(mseLE1, mean), append(boundLE1, r.dfilBound)
			}
		}
	}
	return rows, respected{all: audit.FractionAtLeast(mse, bound), le1: audit.FractionAtLeast(mseLE1, boundLE1)}
}

// pointOutputs are the point's summary columns: every option as resolved,
// the fit, the MSE over trials with its interval, the dFIL bounds, the
// closed-form bounds and the attack's speed.
func pointOutputs(p glmReconParams, tr *lglm.Data, maxNorm float64, mech mechanism, fit *glmFit, st releaseStats, frac respected) ([]stages.Output, error) {
	l, a := p.Learner, p.Attack
	// Every option the papers leave open, defaults included, as resolved
	// for this point (the spec file alone does not show the defaults).
	opts, err := json.Marshal(struct {
		Learner glmLearner    `json:"learner"`
		Data    glmDataParams `json:"data"`
		Attack  spec.ReconGLM `json:"attack"`
	}{l, p.Data, a})
	if err != nil {
		return nil, err
	}
	outs := []stages.Output{
		stages.Str("glm_learner", learnerName(l)),
		stages.Str("glm_options", string(opts)),
		stages.F64("glm_noise_scale", mech.scale),
	}
	if fit != nil {
		outs = append(outs, stages.F64("glm_grad_norm", fit.GradNorm), stages.Int("glm_newton_steps", int64(fit.Steps)),
			stages.F64("glm_fit_seconds", fit.FitSeconds), stages.F64("glm_train_accuracy", fit.TrainAccuracy), stages.F64("glm_test_accuracy", fit.TestAccuracy))
	}
	nt, totalFailed := len(st.okCount), 0
	for _, f := range st.failed {
		totalFailed += f
	}
	relAcc, _ := audit.MeanStd(st.acc)
	outs = append(outs, stages.F64("glm_release_test_accuracy", stages.OrNull(relAcc)), stages.F64("glm_max_input_norm", maxNorm),
		stages.Int("glm_targets", int64(nt)), stages.Int("glm_trials", int64(nt*a.Releases)),
		stages.Int("glm_releases", int64(a.Releases*a.Average)),
		stages.Int("glm_failed_trials", int64(totalFailed)))
	outs = append(outs, mseOutputs(a, st)...)
	if fit != nil {
		outs = append(outs, dfilOutputs(fit, mech.op.FisherScale(tr.P), frac)...)
	}
	bo, err := glmBounds(l, mech, p.Data, a, tr, maxNorm)
	if err != nil {
		return nil, err
	}
	outs = append(outs, bo...)
	if st.reconstructions > 0 && st.seconds > 0 {
		outs = append(outs, stages.F64("glm_attack_seconds", st.seconds), stages.F64("glm_reconstructions_per_second", float64(st.reconstructions)/st.seconds))
	}
	return outs, nil
}

// mseOutputs are the point's MSE over trials (each trial's mean over its
// targets), its Student-t interval, median and the mean total error.
func mseOutputs(a spec.ReconGLM, st releaseStats) []stages.Output {
	if len(st.trialMeans) == 0 {
		return nil
	}
	m, sd := audit.MeanStd(st.trialMeans)
	var tot float64
	attacked := 0
	for t, n := range st.okCount {
		if n > 0 {
			tot += st.sumTot[t] / float64(n)
			attacked++
		}
	}
	outs := []stages.Output{stages.F64("glm_mse", m)}
	if k := len(st.trialMeans); k >= 2 {
		lo, hi := audit.TInterval(m, sd, k, a.Confidence)
		outs = append(outs, stages.F64("glm_mse_lo", math.Max(0, lo)), stages.F64("glm_mse_hi", hi))
	}
	return append(outs, stages.F64("glm_mse_median", audit.Median(st.trialMeans)), stages.F64("glm_mse_total", tot/float64(attacked)))
}

// dfilOutputs are the dFIL bounds over every training sample and how often
// the attacked targets respect theirs.
func dfilOutputs(fit *glmFit, fisher float64, frac respected) []stages.Output {
	bnds := make([]float64, len(fit.JacobianNorms))
	for i, v := range fit.JacobianNorms {
		bnds[i] = 1 / (fisher * v)
	}
	sort.Float64s(bnds)
	outs := []stages.Output{stages.F64("glm_dfil_bound_min", bnds[0]), stages.F64("glm_dfil_bound_median", audit.Median(bnds)),
		stages.F64("glm_dfil_bound_max", bnds[len(bnds)-1]), stages.F64("glm_dfil_seconds", fit.DFILSeconds)}
	if !math.IsNaN(frac.all) {
		outs = append(outs, stages.F64("glm_fraction_respected", frac.all))
	}
	if !math.IsNaN(frac.le1) {
		outs = append(outs, stages.F64("glm_fraction_respected_pred_le1", frac.le1))
	}
	return append(outs, stages.Str("glm_dfil_assumption", "unbiased attacker (Cramér–Rao; Guo et al. Thm 2): the GLM attack is biased, so a sample below its bound is not a violation"))
}
