package membership

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/external"
	"github.com/dpaudit/dpaudit/internal/npy"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/stages"
)

// exportedData is data.json of an external_data node.
type exportedData struct {
	Digest  string `json:"sha256"`
	N       int    `json:"n"`
	Shape   []int  `json:"shape"`
	Classes int    `json:"classes"`
	Source  string `json:"source"`
}

// runExternalData writes the training split as x.npy (float32 [N, shape…])
// and y.npy (int64 [N]) with their joint SHA-256.
func runExternalData(p externalDataParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	tr := split.Train
	shape := append([]int{tr.N}, tr.Shape...)
	if err := npy.WriteFile(filepath.Join(w.Dir, extDataX), shape, tr.X); err != nil {
		return err
	}
	if err := npy.WriteFile(filepath.Join(w.Dir, extDataY), []int{tr.N}, int64s(tr.Y)); err != nil {
		return err
	}
	digest, err := digestFiles(filepath.Join(w.Dir, extDataX), filepath.Join(w.Dir, extDataY))
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(w.Dir, extDataJSON), exportedData{Digest: digest, N: tr.N, Shape: tr.Shape, Classes: tr.Classes, Source: p.Data.Source.Name})
}

// runExternalCanaries crafts the canary records (attack.MakePlan, the
// crafters of the one-run input-canary audits) and their inclusion bits.
func runExternalCanaries(p externalCanaryParams, dataDir string, w *pipeline.Work) error {
	split, err := stages.LoadSplit(p.Data, dataDir)
	if err != nil {
		return err
	}
	c, err := crafterFor(&p.Crafter)
	if err != nil {
		return err
	}
	tr, te := split.Train, split.Test
	plan, err := attack.MakePlan(attack.PlanConfig{Crafter: c, Count: p.Count, Seed: p.Seed,
		Input: attack.CraftInput{InShape: tr.Shape, Classes: tr.Classes, X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y}})
	if err != nil {
		return err
	}
	x := make([]float32, 0, p.Count*tr.D)
	y := make([]int64, p.Count)
	for j, r := range plan.Records {
		x, y[j] = append(x, r.X...), int64(r.Y)
	}
	if err := npy.WriteFile(filepath.Join(w.Dir, extCanaryX), append([]int{p.Count}, tr.Shape...), x); err != nil {
		return err
	}
	if err := npy.WriteFile(filepath.Join(w.Dir, extCanaryY), []int{p.Count}, y); err != nil {
		return err
	}
	return npy.WriteFile(filepath.Join(w.Dir, extCanaryMember), []int{p.Count}, plan.Member)
}

// runExternalCall writes the call's request, runs the trainer and turns
// its validated observations into the trials table. The call runs in a
// folder beside the node's (under <store>/tmp/, shared with Slurm
// workers), moved into the node when it succeeds; a failed call's folder
// (request, output, the trainer's log) stays for inspection until dpaudit
// removes old temporary folders, and nothing is cached.
func runExternalCall(ctx context.Context, p externalCallParams, w *pipeline.Work) error {
	req, member, err := externalRequest(p, w.Input(0), w.Input(1))
	if err != nil {
		return err
	}
	if p.Count == 0 { // a sequential audit stopped before this call
		names, scores, err := externalScores(p, req, &external.Observations{})
		if err != nil {
			return err
		}
		return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), externalTable(p, req, member, names, scores))
	}
	dir, err := os.MkdirTemp(filepath.Dir(w.Dir), fmt.Sprintf("external-call.%.16s.r%d.c%d.", p.Key, p.Repeat, p.Call))
	if err != nil {
		return err
	}
	cmd := external.Command{Argv: p.Command, Dir: p.workdir, Env: p.Env, Timeout: p.timeout}
	obs, err := external.Call(ctx, cmd, req, dir)
	if err != nil {
		what := fmt.Sprintf("trials %d–%d", p.First, p.First+p.Count-1)
		if p.Game == external.GameOneRun {
			what = fmt.Sprintf("the one run of %d canaries", req.Canaries.Count)
		}
		return fmt.Errorf("external trainer, call %d (%s, repeat %d): %w", p.Call, what, p.Repeat, err)
	}
	names, scores, err := externalScores(p, req, obs)
	if err != nil {
		return err
	}
	if err := os.Rename(dir, filepath.Join(w.Dir, extCallDir)); err != nil {
		return err
	}
	return pipeline.WriteParquet(filepath.Join(w.Dir, stages.TrialsFile), externalTable(p, req, member, names, scores))
}

// externalScores are the distinguisher's scores of each trial and canary,
// by score name in the distinguisher's order: the final loss as the
// trainer reported it; for the losses of every intermediate model their
// max and mean (IntermediateLoss); for every step's projected update the
// watermark's three statistics (Watermark.ScoreSteps, claimed σ).
func externalScores(p externalCallParams, req *external.Request, obs *external.Observations) ([]string, [][]float64, error) {
	steps := req.Steps()
	n := len(obs.Score) / steps
	switch p.Report {
	case external.ReportStepLoss:
		maxL, meanL := make([]float64, n), make([]float64, n)
		for i := range n {
			ls := obs.Score[i*steps : (i+1)*steps]
			maxL[i], meanL[i] = slices.Max(ls), mean(ls)
		}
		if p.Dist.Intermediate != nil && p.Dist.Intermediate.Reduce == attack.ReduceMean {
			return []string{"mean_loss", "max_loss"}, [][]float64{meanL, maxL}, nil
		}
		return []string{"max_loss", "mean_loss"}, [][]float64{maxL, meanL}, nil
	case external.ReportStepProjection:
		d, err := distinguisherFor(p.Dist)
		if err != nil {
			return nil, nil, err
		}
		wm := d.(attack.Watermark)
		names := wm.ScoreNames()
		cols := make([][]float64, len(names))
		for i := range n {
			sc, err := wm.ScoreSteps(obs.Score[i*steps:(i+1)*steps], p.ScoreSigma, p.DPSGD.ClipNorm, p.DPSGD.SamplingRate)
			if err != nil {
				return nil, nil, err
			}
			for k, v := range sc {
				cols[k] = append(cols[k], v)
			}
		}
		return names, cols, nil
	}
	return []string{"loss"}, [][]float64{obs.Score}, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// externalRequest builds the call's request over the export and canary
// nodes' files.
func externalRequest(p externalCallParams, dataDir, canaryDir string) (*external.Request, []bool, error) {
	var d exportedData
	if err := readJSON(filepath.Join(dataDir, extDataJSON), &d); err != nil {
		return nil, nil, err
	}
	a, err := npy.ReadFile(filepath.Join(canaryDir, extCanaryMember))
	if err != nil {
		return nil, nil, err
	}
	member, ok := a.Data.([]bool)
	if !ok {
		return nil, nil, fmt.Errorf("%s: want booleans, got %s", extCanaryMember, a.DType)
	}
	req := &external.Request{
		Protocol: external.Protocol, Version: external.Version, Game: p.Game, Call: p.Call, Point: p.Key,
		Threat: p.Threat, Report: external.ReportFinalLoss, DPSGD: p.DPSGD, Model: p.Model,
		Data:     external.Data{X: filepath.Join(dataDir, extDataX), Y: filepath.Join(dataDir, extDataY), Digest: d.Digest, N: d.N, Shape: d.Shape, Classes: d.Classes},
		Canaries: external.Canaries{X: filepath.Join(canaryDir, extCanaryX), Y: filepath.Join(canaryDir, extCanaryY), Count: len(member)},
	}
	if p.Report != "" {
		req.Report = p.Report
	}
	req.DPSGD.ExpectedBatchSize = p.DPSGD.SamplingRate * float64(d.N)
	if p.Game == external.GameOneRun {
		// The one-run normaliser counts half the canaries, so that it does
		// not depend on which are in (as dpaudit's own one-run trainer).
		req.DPSGD.ExpectedBatchSize = p.DPSGD.SamplingRate * (float64(d.N) + float64(len(member))/2)
	}
	for k := range p.Count {
		i := p.First + k
		t := external.Trial{Trial: i, Seed: rng.Seed(uint64(p.Seed), "trial", p.Key, i), InitSeed: p.InitSeed}
		if p.Random {
			t.InitSeed = rng.Seed(uint64(p.Seed), "init", p.Key, i)
		}
		if p.Game == external.GameOneRun {
			t.Include = member
		} else {
			world := attack.WorldOf(i)
			t.World = &world
		}
		req.Trials = append(req.Trials, t)
	}
	return req, member, nil
}

// externalTable is the call's trials table: one row per trial (classic)
// or per canary (one-run, trial = canary id, world = its bit), one column
// per score.
func externalTable(p externalCallParams, req *external.Request, member []bool, names []string, scores [][]float64) *pipeline.Table {
	n := len(scores[0])
	trial, world, rep := make([]any, n), make([]any, n), make([]any, n)
	for k := range n {
		rep[k] = int64(p.Repeat)
		if p.Game == external.GameOneRun {
			trial[k], world[k] = int64(k), b2i(member[k])
		} else {
			trial[k], world[k] = int64(req.Trials[k].Trial), int64(*req.Trials[k].World)
		}
	}
	t := &pipeline.Table{}
	t.Add("repeat", pipeline.Int64, rep)
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	for c, name := range names {
		vals := make([]any, n)
		for k, v := range scores[c] {
			vals[k] = v
		}
		t.Add(name, pipeline.Float64, vals)
	}
	return t
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func int64s(y []int32) []int64 {
	out := make([]int64, len(y))
	for i, v := range y {
		out[i] = int64(v)
	}
	return out
}

// digestFiles is the SHA-256 of the files' bytes, one after the other.
func digestFiles(paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
