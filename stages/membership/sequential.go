package membership

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
	"github.com/dpaudit/dpaudit/stages"
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

// sequentialAudit builds the shards, looks and estimate of a sequential
// audit; ep is the point's estimate parameters as setup made them (claim,
// trained, confidence, δ).
func sequentialAudit(b *stages.Build, ep estimateParams) error {
	a := b.Point.Exp.Audit
	seq := seqOf(a)
	ep.Sequential = &seq
	var sg *segmenter
	switch {
	case b.Point.Exp.Model.Ideal != nil:
		sg = idealSegmenter(b, &ep)
	case b.Point.Exp.Model.External != nil:
		var err error
		if sg, err = externalSegmenter(b, &ep); err != nil {
			return err
		}
	default:
		var err error
		if sg, err = trainedSegmenter(b, &ep); err != nil {
			return err
		}
	}
	shards, last := looks(b, ep, seq, sg)
	ep.Shards = len(shards)
	est := &pipeline.Node{
		Kind: "estimate", Version: estimateVersion, Params: ep, Inputs: []*pipeline.Node{last, shards[0]},
		SameCodeInputs: true,
		Label:          fmt.Sprintf("%s (sequential, ≤ %d trials, %s test)", sg.label, a.Trials, seq.Test),
		Slot:           fmt.Sprintf("%s/estimate/%d", b.Name, b.Point.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := runSequentialEstimate(ep, w.Input(0), w.Input(1))
			if err != nil {
				return err
			}
			if ep.MeasureCPU {
				outs = append(outs, stages.F64("audit_cpu_seconds", w.UpstreamCPUSeconds()))
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}
	b.Row(est, sequentialColumns(ep))
	b.Publish(b.Point.ID, shards)
	return nil
}

// segmenter adds a sequential audit's shards one segment at a time.
type segmenter struct {
	b     *stages.Build
	label string
	size  int
	k     int // shards so far, for slots
	// node is a shard of count trials from first, before its gate; its
	// Run computes nothing once the gate (its last input) has stopped.
	node func(first, count int) *pipeline.Node
}

// segment adds the shards of trials [first, first+count), cut at the
// shard size, each gated on the previous look (nil for the first
// segment); note ends their labels.
func (s *segmenter) segment(first, count int, gate *pipeline.Node, note string) []*pipeline.Node {
	var out []*pipeline.Node
	for f := first; f < first+count; f += s.size {
		c := min(s.size, first+count-f)
		n := s.node(f, c)
		n.Label = fmt.Sprintf("%s trials %d–%d%s", s.label, f, f+c-1, note)
		n.Slot = fmt.Sprintf("%s/trials/%d/%d", s.b.Name, s.b.Point.Index, s.k)
		if gate != nil {
			n.Inputs = append(n.Inputs, gate)
		}
		out = append(out, s.b.Add(n))
		s.k++
	}
	return out
}

// idealSegmenter makes the ideal mechanism's shards; ep gets their key and
// score (the fixed audit's: trial i is the same trial).
func idealSegmenter(b *stages.Build, ep *estimateParams) *segmenter {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	sp := idealShardParams{Seed: exp.Seed, Sampling: d.SamplingRate, Steps: d.Steps, Sigma: d.NoiseMultiplier,
		SigmaD: ep.Claim.NoiseMultiplier}.withGame(ep.Trained)
	form := "llr"
	if exp.Distinguisher != nil && exp.Distinguisher.Watermark != nil {
		form = exp.Distinguisher.Watermark.Form
	}
	sp.Key = stages.HashKey(sp)
	ep.Key, ep.Score = sp.Key, form
	size := a.ShardSize
	if size == 0 {
		size = defaultIdealShard
	}
	return &segmenter{b: b, size: size, label: fmt.Sprintf("ideal σ=%.4g q=%.4g T=%d", d.NoiseMultiplier, d.SamplingRate, d.Steps),
		node: func(first, count int) *pipeline.Node {
			p := sp
			p.First, p.Count = first, count
			return &pipeline.Node{Kind: "trials", Version: idealTrialsVersion, Params: p,
				Run: func(ctx context.Context, w *pipeline.Work) error {
					q := p
					var err error
					if q.Count, err = gatedCount(w, q.Count); err != nil {
						return err
					}
					return runIdealShard(ctx, q, w)
				}}
		}}
}

// trainedSegmenter makes a trained model's shards over one craft node; ep
// gets their key and score.
func trainedSegmenter(b *stages.Build, ep *estimateParams) (*segmenter, error) {
	exp, a, d := b.Point.Exp, b.Point.Exp.Audit, b.Point.Exp.DPSGD
	dist, err := distinguisherFor(exp.Distinguisher)
	if err != nil {
		return nil, &stages.PathError{Path: "distinguisher", Err: err}
	}
	label := fmt.Sprintf("%s/%s σ=%.4g q=%.4g T=%d", exp.Crafter.Kind, exp.Distinguisher.Kind, d.NoiseMultiplier, d.SamplingRate, d.Steps)
	size := a.ShardSize
	if size == 0 {
		size = defaultShard
	}
	game, craft, err := auditGameFor(b, ep.Claim.NoiseMultiplier, 0)
	if err != nil {
		return nil, err
	}
	key := stages.HashKey(game)
	ep.Key, ep.Score, ep.LowerWorld1 = key, dist.ScoreNames()[0], dist.LowerMeansWorld1()
	// One training per trial: audit_training_runs is the trials used,
	// known when the audit stops (runSequentialEstimate).
	ep.TrainingRuns = 1
	dataDir := b.Env.DataDir
	return &segmenter{b: b, size: size, label: label,
		node: func(first, count int) *pipeline.Node {
			p := shardParams{Key: key, Game: game, First: first, Count: count}
			return &pipeline.Node{Kind: "trials", Version: trialsVersion, Params: p, Inputs: []*pipeline.Node{craft},
				Run: func(ctx context.Context, w *pipeline.Work) error {
					q := p
					var err error
					if q.Count, err = gatedCount(w, q.Count); err != nil {
						return err
					}
					return runTrialShard(ctx, q, dataDir, w)
				}}
		}}, nil
}

// looks adds the schedule's segments and looks: look k reads every shard
// so far and the previous look; the segment after it is gated on it. It
// returns the shards and the last look.
func looks(b *stages.Build, ep estimateParams, seq seqParams, sg *segmenter) ([]*pipeline.Node, *pipeline.Node) {
	var shards []*pipeline.Node
	var prev *pipeline.Node
	done := 0
	sched := audit.LookSchedule(seq.FirstLook, seq.Budget)
	for i, n := range sched {
		note := ""
		if prev != nil {
			note = fmt.Sprintf(" (none if look %d stopped)", i)
		}
		shards = append(shards, sg.segment(done, n-done, prev, note)...)
		done = n
		lp := lookParams{Key: ep.Key, Look: i + 1, Trials: n, Seq: seq, Confidence: ep.Confidence, Delta: ep.Delta,
			Claim: ep.Claim, Score: ep.Score, LowerWorld1: ep.LowerWorld1}
		var inputs []*pipeline.Node
		if prev != nil {
			inputs = append(inputs, prev)
		}
		inputs = append(inputs, shards...)
		first := prev == nil
		prev = b.Add(&pipeline.Node{
			Kind: "look", Version: lookVersion, Params: lp, Inputs: inputs, SameCodeInputs: true,
			Label: fmt.Sprintf("%s look %d of %d (%d trials)", sg.label, i+1, len(sched), n),
			Slot:  fmt.Sprintf("%s/look/%d/%d", b.Name, b.Point.Index, i+1),
			Run: func(ctx context.Context, w *pipeline.Work) error {
				var prevDir string
				dirs := w.Inputs
				if !first {
					prevDir, dirs = w.Inputs[0], w.Inputs[1:]
				}
				return runLook(lp, prevDir, dirs, w.Dir)
			},
		})
	}
	return shards, prev
}

// gatedCount is the number of trials a gated shard runs: none when its
// previous look (its last input, a look node) has stopped the audit,
// else count.
func gatedCount(w *pipeline.Work, count int) (int, error) {
	if len(w.Inputs) == 0 || w.Node.Inputs[len(w.Inputs)-1].Kind != "look" {
		return count, nil
	}
	st, err := readLook(w.Inputs[len(w.Inputs)-1])
	if err != nil || st.Stopped {
		return 0, err
	}
	return count, nil
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

// claimProfile is the claim's ε and the pairs of its privacy profile a
// look tests (audit.SequentialProfile).
func claimProfile(p lookParams) (float64, []audit.ProfilePoint, error) {
	eps, err := claimEpsilon(p.Claim, p.Delta)
	if err != nil {
		return 0, nil, err
	}
	m := privacy.SampledGaussian{NoiseMultiplier: p.Claim.accountedSigma(), SamplingRate: p.Claim.SamplingRate, Steps: p.Claim.Steps}
	if p.Claim.matrix() {
		if m, err = p.Claim.mechanism(); err != nil {
			return 0, nil, err
		}
	}
	prof, err := audit.SequentialProfile(p.Seq.Test, privacy.Accountant(p.Claim.Accountant), m, eps, p.Delta)
	return eps, prof, err
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

func runSequentialEstimate(p estimateParams, lookDir, shardDir string) ([]stages.Output, error) {
	st, err := readLook(lookDir)
	if err != nil {
		return nil, err
	}
	r := audit.Summarize(st.Looks, p.Sequential.Budget)
	if r.Stopped == "" {
		return nil, fmt.Errorf("sequential audit: the last look did not stop (%d looks)", len(st.Looks))
	}
	lbJSON, _ := json.Marshal([]float64{r.EpsilonLB})
	outs := []stages.Output{
		stages.Int("audit_trials", int64(p.Trials)),
		stages.Str("audit_score", p.Score),
		stages.Str("threshold_method", "sequential split"),
		stages.F64("epsilon_lb", r.EpsilonLB),
		stages.Str("estimate_family", audit.FamilySequential),
		stages.Bool("estimate_valid", true),
		stages.F64("epsilon_lb_confidence", p.Confidence),
		stages.Int("audit_repeats", int64(1)),
		stages.F64("epsilon_lb_median", r.EpsilonLB),
		stages.F64("epsilon_lb_min", r.EpsilonLB),
		stages.F64("epsilon_lb_max", r.EpsilonLB),
		stages.Str("epsilon_lb_repeats", string(lbJSON)),
	}
	for _, nv := range audit.SequentialColumns(r, p.Sequential.Test, st.EpsClaim, p.Delta) {
		outs = append(outs, stages.Typed(nv.Name, nv.Value))
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
