package stages

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// A sequential audit (audit.stop: sequential, audit/sequential.go) is a
// chain of look nodes. Look k sees the trials [0, n_k) of the schedule
// n_1, 2n_1, …, budget; the trial shards of segment k ([n_{k−1}, n_k),
// cut at shard_size but never across a look) take look k−1 as an input
// and compute nothing (an empty table) once an earlier look has stopped.
// So the scheduler never computes trials past the stopping look's
// segment, a look is evaluated on exactly its trial count whatever the
// shard size or worker count, and a cached re-run reads the same looks.
const (
	lookVersion = 1
	lookFile    = "sequential.gob"

	// profilePoints is how many ε in [0, ε_claim) the profile test takes
	// from the claim's accountant (plus (ε_claim, δ) itself).
	profilePoints = 24
	// defaultFirstLook is audit.sequential.first_look's default.
	defaultFirstLook = 100
)

// seqParams is what a look and the sequential estimate depend on besides
// the trials.
type seqParams struct {
	Test          string  `json:"test"`
	FirstLook     int     `json:"first_look"`
	Budget        int     `json:"budget"`
	SplitFraction float64 `json:"split_fraction"`
}

type lookParams struct {
	Key         string          `json:"point_key"`
	Look        int             `json:"look"`
	Trials      int             `json:"trials"`
	Seq         seqParams       `json:"sequential"`
	Confidence  float64         `json:"confidence"`
	Delta       float64         `json:"delta"`
	Claim       mechanismConfig `json:"claim"`
	Score       string          `json:"score"`
	LowerWorld1 bool            `json:"lower_means_world1"`
}

// seqState is a look node's output: the claim's profile (computed by look
// 1) and every look so far; Stopped once a look refuted the claim or the
// budget was reached.
type seqState struct {
	EpsClaim float64
	Profile  []audit.ProfilePoint
	Looks    []audit.Look
	Stopped  bool
}

func seqOf(a *spec.Audit) seqParams {
	s := seqParams{Test: "profile", FirstLook: defaultFirstLook, Budget: a.Trials, SplitFraction: a.SplitFraction}
	if q := a.Sequential; q != nil {
		if q.FirstLook > 0 {
			s.FirstLook = q.FirstLook
		}
		if q.Test != "" {
			s.Test = q.Test
		}
	}
	return s
}

// sequentialAuditStages builds the shards, looks and estimate of a
// sequential audit; ep is the point's estimate parameters as auditStages
// set them (claim, trained, confidence, δ).
func sequentialAuditStages(name string, pt spec.Point, env Env, b *Build, ep estimateParams) (pointStage, []*pipeline.Node, error) {
	exp, a := pt.Exp, pt.Exp.Audit
	d := exp.DPSGD
	seq := seqOf(a)
	ep.Sequential = &seq
	// One segment's shards, gated on the previous look (nil for the
	// first segment).
	var segment func(first, count int, gate *pipeline.Node, note string) []*pipeline.Node
	var label string
	k := 0 // shard number, for slots
	if exp.Model.Ideal != nil {
		sp := idealShardParams{Seed: exp.Seed, Sampling: d.SamplingRate, Steps: d.Steps, Sigma: d.NoiseMultiplier,
			SigmaD: ep.Claim.NoiseMultiplier, Shuffle: ep.Trained.Sampling == "shuffle"}
		form := "llr"
		if exp.Distinguisher != nil && exp.Distinguisher.Watermark != nil {
			form = exp.Distinguisher.Watermark.Form
		}
		// The same key as the fixed audit's: trial i is the same trial.
		sp.Key = HashKey(sp)
		ep.Key, ep.Score = sp.Key, form
		label = fmt.Sprintf("ideal σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := a.ShardSize
		if size == 0 {
			size = defaultIdealShard
		}
		segment = func(first, count int, gate *pipeline.Node, note string) []*pipeline.Node {
			var out []*pipeline.Node
			for f := first; f < first+count; f += size {
				p := sp
				p.First, p.Count = f, min(size, first+count-f)
				n := &pipeline.Node{
					Kind: "trials", Version: trialsVersion, Params: p,
					Label: fmt.Sprintf("%s trials %d–%d%s", label, p.First, p.First+p.Count-1, note),
					Slot:  fmt.Sprintf("%s/trials/%d/%d", name, pt.Index, k),
					Run: func(ctx context.Context, w *pipeline.Work) error {
						q := p
						if stopped, err := gateStopped(w); err != nil {
							return err
						} else if stopped {
							q.Count = 0
						}
						return runIdealShard(ctx, q, w)
					},
				}
				if gate != nil {
					n.Inputs = []*pipeline.Node{gate}
				}
				out = append(out, b.Add(n))
				k++
			}
			return out
		}
	} else {
		dist, err := distinguisherFor(exp.Distinguisher)
		if err != nil {
			return pointStage{}, nil, &PathError{"distinguisher", err}
		}
		label = fmt.Sprintf("%s/%s σ=%.4g q=%.4g T=%d", exp.Crafter.Kind, exp.Distinguisher.Kind, d.NoiseMultiplier, d.SamplingRate, d.Steps)
		size := a.ShardSize
		if size == 0 {
			size = defaultShard
		}
		game, craft, err := auditGameFor(name, pt, env, ep.Claim.NoiseMultiplier, 0, b)
		if err != nil {
			return pointStage{}, nil, err
		}
		key := HashKey(game)
		ep.Key, ep.Score, ep.LowerWorld1 = key, dist.ScoreNames()[0], dist.LowerMeansWorld1()
		// One training per trial: audit_training_runs is the trials used,
		// known when the audit stops (runSequentialEstimate).
		ep.TrainingRuns = 1
		segment = func(first, count int, gate *pipeline.Node, note string) []*pipeline.Node {
			var out []*pipeline.Node
			for f := first; f < first+count; f += size {
				p := shardParams{Key: key, Game: game, First: f, Count: min(size, first+count-f)}
				n := &pipeline.Node{
					Kind: "trials", Version: trialsVersion, Params: p, Inputs: []*pipeline.Node{craft},
					Label: fmt.Sprintf("%s trials %d–%d%s", label, p.First, p.First+p.Count-1, note),
					Slot:  fmt.Sprintf("%s/trials/%d/%d", name, pt.Index, k),
					Run: func(ctx context.Context, w *pipeline.Work) error {
						q := p
						if stopped, err := gateStopped(w); err != nil {
							return err
						} else if stopped {
							q.Count = 0
						}
						return runTrialShard(ctx, q, env.DataDir, w)
					},
				}
				if gate != nil {
					n.Inputs = append(n.Inputs, gate)
				}
				out = append(out, b.Add(n))
				k++
			}
			return out
		}
	}
	var shards []*pipeline.Node
	var prev *pipeline.Node
	done := 0
	sched := audit.LookSchedule(seq.FirstLook, seq.Budget)
	for i, n := range sched {
		note := ""
		if prev != nil {
			note = fmt.Sprintf(" (none if look %d stopped)", i)
		}
		shards = append(shards, segment(done, n-done, prev, note)...)
		done = n
		lp := lookParams{Key: ep.Key, Look: i + 1, Trials: n, Seq: seq, Confidence: ep.Confidence, Delta: ep.Delta,
			Claim: ep.Claim, Score: ep.Score, LowerWorld1: ep.LowerWorld1}
		var inputs []*pipeline.Node
		if prev != nil {
			inputs = append(inputs, prev)
		}
		inputs = append(inputs, shards...)
		first := prev == nil
		look := &pipeline.Node{
			Kind: "look", Version: lookVersion, Params: lp, Inputs: inputs, SameCodeInputs: true,
			Label: fmt.Sprintf("%s look %d of %d (%d trials)", label, i+1, len(sched), n),
			Slot:  fmt.Sprintf("%s/look/%d/%d", name, pt.Index, i+1),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				var prevDir string
				dirs := w.Inputs
				if !first {
					prevDir, dirs = w.Inputs[0], w.Inputs[1:]
				}
				return runLook(lp, prevDir, dirs, w.Dir)
			},
		}
		prev = b.Add(look)
	}
	ep.Shards = len(shards)
	est := &pipeline.Node{
		Kind: "estimate", Version: estimateVersion, Params: ep, Inputs: []*pipeline.Node{prev, shards[0]},
		SameCodeInputs: true,
		Label:          fmt.Sprintf("%s (sequential, ≤ %d trials, %s test)", label, a.Trials, seq.Test),
		Slot:           fmt.Sprintf("%s/estimate/%d", name, pt.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runSequentialEstimate(ep, w.Input(0), w.Input(1))
			if err != nil {
				return err
			}
			if ep.MeasureCPU {
				outs = append(outs, Output{"audit_cpu_seconds", pipeline.Float64, w.UpstreamCPUSeconds()})
			}
			return WriteValues(w.Dir, outs)
		},
	}
	return pointStage{node: est, columns: sequentialColumns(ep)}, shards, nil
}

// gateStopped reports whether a gated shard's previous look (its last
// input, a look node) has stopped the audit.
func gateStopped(w *pipeline.Work) (bool, error) {
	if len(w.Inputs) == 0 || w.Node.Inputs[len(w.Inputs)-1].Kind != "look" {
		return false, nil
	}
	st, err := readLook(w.Inputs[len(w.Inputs)-1])
	if err != nil {
		return false, err
	}
	return st.Stopped, nil
}

func readLook(dir string) (seqState, error) {
	var st seqState
	b, err := os.ReadFile(filepath.Join(dir, lookFile))
	if err != nil {
		return st, err
	}
	err = gob.NewDecoder(bytes.NewReader(b)).Decode(&st)
	return st, err
}

// claimProfile lists the pairs of the claim's privacy profile a look
// tests: for test epsilon the single (ε_claim, δ); for profile also
// (ε_j, δ_claim(ε_j)) at ε_j = ε_claim·j/24, j < 24, from the claim's
// accountant (each a pair the accountant asserts).
func claimProfile(p lookParams) (float64, []audit.ProfilePoint, error) {
	eps, err := claimEpsilon(p.Claim, p.Delta)
	if err != nil {
		return 0, nil, err
	}
	out := []audit.ProfilePoint{{Epsilon: eps, Delta: p.Delta}}
	if p.Seq.Test == "epsilon" || p.Claim.NoiseMultiplier == 0 {
		return eps, out, nil
	}
	acc := privacy.Accountant(p.Claim.Accountant)
	if acc == "" {
		acc = privacy.AccountantBest
	}
	m := privacy.SampledGaussian{NoiseMultiplier: p.Claim.accountedSigma(), SamplingRate: p.Claim.SamplingRate, Steps: p.Claim.Steps}
	es := make([]float64, profilePoints)
	for j := range es {
		es[j] = eps * float64(j) / profilePoints
	}
	ds, err := privacy.DeltaProfile(acc, m, es, privacy.Options{})
	if err != nil {
		return 0, nil, fmt.Errorf("the claim's privacy profile: %w", err)
	}
	var prof []audit.ProfilePoint
	for j, e := range es {
		prof = append(prof, audit.ProfilePoint{Epsilon: e, Delta: min(ds[j], 1)})
	}
	return eps, append(prof, out...), nil
}

func runLook(p lookParams, prevDir string, dirs []string, outDir string) error {
	var st seqState
	if prevDir != "" {
		var err error
		if st, err = readLook(prevDir); err != nil {
			return err
		}
	} else {
		eps, prof, err := claimProfile(p)
		if err != nil {
			return err
		}
		st.EpsClaim, st.Profile = eps, prof
	}
	if !st.Stopped {
		scores, worlds, err := readTrials(dirs, p.Score, p.Trials)
		if err != nil {
			return err
		}
		l, err := audit.EvaluateLook(scores, worlds, p.Look, audit.SequentialOptions{
			Confidence: p.Confidence, Delta: p.Delta, Profile: st.Profile, FirstLook: p.Seq.FirstLook, Budget: p.Seq.Budget,
			SplitFraction: p.Seq.SplitFraction, LowerMeansWorld1: p.LowerWorld1,
		})
		if err != nil {
			return err
		}
		st.Looks = append(st.Looks, l)
		st.Stopped = l.Violation || p.Trials >= p.Seq.Budget
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(st); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, lookFile), b.Bytes(), 0o644)
}

// sequentialColumns are the summary columns of a sequential audit: the
// head and tail of every audit, and the looks in between.
func sequentialColumns(ep estimateParams) []string {
	all := estimateColumns(ep)
	head, tail := all[:slices.Index(all, "epsilon_lb_repeats")+1], all[slices.Index(all, "epsilon_accountant"):]
	mid := []string{"sequential_test", "sequential_trials_used", "sequential_looks", "sequential_stopped", "sequential_look_trials",
		"sequential_look_alpha", "sequential_epsilon_lb_max", "threshold", "fpr", "fnr", "fpr_upper", "fnr_upper",
		"profile_epsilon", "profile_delta_lb", "profile_delta_claim", "violation_detail"}
	out := append(append(append([]string{}, head...), mid...), tail...)
	return out
}

func runSequentialEstimate(p estimateParams, lookDir, shardDir string) ([]Output, error) {
	st, err := readLook(lookDir)
	if err != nil {
		return nil, err
	}
	r := audit.Summarize(st.Looks, p.Sequential.Budget)
	if r.Stopped == "" {
		return nil, fmt.Errorf("sequential audit: the last look did not stop (%d looks)", len(st.Looks))
	}
	l := st.Looks[len(st.Looks)-1]
	ns := make([]int, len(st.Looks))
	lbs := make([]float64, len(st.Looks))
	for i, x := range st.Looks {
		ns[i], lbs[i] = x.Trials, x.EpsilonLB
	}
	nsJSON, _ := json.Marshal(ns)
	lbJSON, _ := json.Marshal([]float64{r.EpsilonLB})
	detail := ""
	if r.Violation {
		if l.ProfileEpsilon == st.EpsClaim && l.ProfileDeltaClaim == p.Delta {
			detail = fmt.Sprintf("sequential look %d (%d trials): ε lower bound %.4g > claimed ε %.4g at δ = %.3g", l.K, l.Trials, l.EpsilonLB, st.EpsClaim, p.Delta)
		} else {
			detail = fmt.Sprintf("sequential look %d (%d trials): at ε = %.3g the trials prove δ ≥ %.3g, the claim's accountant says δ = %.3g (its privacy profile is refuted; ε lower bound at δ = %.3g: %.4g, claimed ε %.4g)",
				l.K, l.Trials, l.ProfileEpsilon, l.ProfileDeltaLB, l.ProfileDeltaClaim, p.Delta, l.EpsilonLB, st.EpsClaim)
		}
	}
	outs := []Output{
		{"audit_trials", pipeline.Int64, int64(p.Trials)},
		{"audit_score", pipeline.String, p.Score},
		{"threshold_method", pipeline.String, "sequential split"},
		{"epsilon_lb", pipeline.Float64, r.EpsilonLB},
		{"estimate_family", pipeline.String, audit.FamilySequential},
		{"estimate_valid", pipeline.Bool, true},
		{"epsilon_lb_confidence", pipeline.Float64, p.Confidence},
		{"audit_repeats", pipeline.Int64, int64(1)},
		{"epsilon_lb_median", pipeline.Float64, r.EpsilonLB},
		{"epsilon_lb_min", pipeline.Float64, r.EpsilonLB},
		{"epsilon_lb_max", pipeline.Float64, r.EpsilonLB},
		{"epsilon_lb_repeats", pipeline.String, string(lbJSON)},
		{"sequential_test", pipeline.String, p.Sequential.Test},
		{"sequential_trials_used", pipeline.Int64, int64(r.TrialsUsed)},
		{"sequential_looks", pipeline.Int64, int64(len(st.Looks))},
		{"sequential_stopped", pipeline.String, r.Stopped},
		{"sequential_look_trials", pipeline.String, string(nsJSON)},
		{"sequential_look_alpha", pipeline.Float64, l.Alpha},
		{"sequential_epsilon_lb_max", pipeline.Float64, r.EpsilonLBMax},
		{"threshold", pipeline.Float64, l.Threshold},
		{"fpr", pipeline.Float64, l.Counts.FPR()},
		{"fnr", pipeline.Float64, l.Counts.FNR()},
		{"fpr_upper", pipeline.Float64, l.FPRUpper},
		{"fnr_upper", pipeline.Float64, l.FNRUpper},
		{"profile_epsilon", pipeline.Float64, l.ProfileEpsilon},
		{"profile_delta_lb", pipeline.Float64, l.ProfileDeltaLB},
		{"profile_delta_claim", pipeline.Float64, l.ProfileDeltaClaim},
		{"violation_detail", pipeline.String, detail},
	}
	if p.TrainingRuns > 0 { // a trained model: one training per trial used
		p.TrainingRuns = r.TrialsUsed
	}
	tail, err := claimColumns(p, st.EpsClaim, r.PValue, r.Violation, shardDir)
	if err != nil {
		return nil, err
	}
	return withHeadline(p, append(outs, tail...))
}
