package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/internal/npy"
)

// The test binary is also a trivial trainer: with DPAUDIT_TEST_TRAINER set
// it answers the request named by its last argument with constant scores
// (or misbehaves as told), so the protocol's own cost can be measured and
// its failures tested without Python.
func TestMain(m *testing.M) {
	if mode := os.Getenv("DPAUDIT_TEST_TRAINER"); mode != "" {
		if err := trivialTrainer(mode, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func trivialTrainer(mode, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var req Request
	if err := json.Unmarshal(b, &req); err != nil {
		return err
	}
	hb, _ := json.Marshal(req.DPSGD)
	if err := os.WriteFile(filepath.Join(req.Output, HyperparametersFile), hb, 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	switch mode {
	case "jsonl":
		for _, t := range req.Trials {
			for j := range req.Canaries.Count {
				fmt.Fprintf(&sb, "{\"trial\": %d, \"canary\": %d, \"score\": %d.5}\n", t.Trial, j, j)
			}
		}
		return os.WriteFile(filepath.Join(req.Output, "observations.jsonl"), []byte(sb.String()), 0o644)
	}
	sb.WriteString("trial,canary,score\n")
	for _, t := range req.Trials {
		for j := range req.Canaries.Count {
			fmt.Fprintf(&sb, "%d,%d,%d.5\n", t.Trial, j, j)
		}
	}
	return os.WriteFile(filepath.Join(req.Output, "observations.csv"), []byte(sb.String()), 0o644)
}

func testRequest(game string, trials, canaries int) *Request {
	r := &Request{Protocol: Protocol, Version: Version, Game: game, Report: ReportFinalLoss,
		DPSGD:    Hyperparameters{NoiseMultiplier: 1, SamplingRate: 0.1, Steps: 10, ClipNorm: 1, LearningRate: 0.1, Sampling: "poisson", Clip: "hard", Adjacency: "add_remove"},
		Canaries: Canaries{Count: canaries}}
	for i := range trials {
		t := Trial{Trial: 10 + i, Seed: uint64(i)}
		if game == GameOneRun {
			t.Include = make([]bool, canaries)
		} else {
			w := i % 2
			t.World = &w
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}

func selfCommand(t testing.TB, mode string) Command {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command{Argv: []string{exe}, Env: []string{"DPAUDIT_TEST_TRAINER=" + mode}, Timeout: time.Minute}
}

// TestCallReadsEveryFormat: the scores come back in the request's order
// from CSV and JSON lines, one-run rows per canary.
func TestCallReadsEveryFormat(t *testing.T) {
	for _, mode := range []string{"csv", "jsonl"} {
		req := testRequest(GameOneRun, 1, 3)
		obs, err := Call(context.Background(), selfCommand(t, mode), req, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(obs.Score) != "[0.5 1.5 2.5]" || obs.Used != req.DPSGD {
			t.Errorf("%s: scores %v used %+v", mode, obs.Score, obs.Used)
		}
	}
}

// TestMissingCommand: a command that does not exist is an input error
// before anything runs.
func TestMissingCommand(t *testing.T) {
	_, err := Call(context.Background(), Command{Argv: []string{"./no-such-trainer"}}, testRequest(GameMembership, 2, 1), t.TempDir())
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not found or not executable") {
		t.Errorf("error %v", err)
	}
}

// BenchmarkCall is the protocol's cost of one call of 16 trials with a
// trivial trainer (this test binary, which writes constant scores): the
// request written, the process started and waited for, the table read
// and validated. go test ./external -run '^$' -bench Call
func BenchmarkCall(b *testing.B) {
	cmd := selfCommand(b, "csv")
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		req := testRequest(GameMembership, 16, 1)
		if _, err := Call(context.Background(), cmd, req, filepath.Join(dir, fmt.Sprint(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadValidate is the part of a call that is dpaudit's own work
// after the trainer exits: reading and validating a one-run table of 1000
// canaries.
func BenchmarkReadValidate(b *testing.B) {
	dir := b.TempDir()
	req := testRequest(GameOneRun, 1, 1000)
	req.Output = dir
	if err := trivialTrainer("csv", writeReq(b, req)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Read(dir, req); err != nil {
			b.Fatal(err)
		}
	}
}

func writeReq(b testing.TB, req *Request) string {
	p := filepath.Join(b.TempDir(), RequestFile)
	if err := req.Write(p); err != nil {
		b.Fatal(err)
	}
	return p
}

// writeStepTable writes a per-step table for req into dir in format
// (csv, jsonl or npy), score = 100·trial + 10·canary + step, leaving out
// the row (skip.trial, skip.canary, skip.step) and adding the extra row.
func writeStepTable(t *testing.T, dir, format string, req *Request, skip, extra []int64) {
	t.Helper()
	hb, _ := json.Marshal(req.DPSGD)
	if err := os.WriteFile(filepath.Join(dir, HyperparametersFile), hb, 0o644); err != nil {
		t.Fatal(err)
	}
	var rows [][4]float64
	for _, tr := range req.Trials {
		for j := range req.canaries() {
			for s := range req.Steps() {
				r := [4]float64{float64(tr.Trial), float64(j), float64(s), float64(100*tr.Trial + 10*j + s)}
				if skip != nil && r[0] == float64(skip[0]) && r[1] == float64(skip[1]) && r[2] == float64(skip[2]) {
					continue
				}
				rows = append(rows, r)
			}
		}
	}
	if extra != nil {
		rows = append(rows, [4]float64{float64(extra[0]), float64(extra[1]), float64(extra[2]), 1})
	}
	var sb strings.Builder
	switch format {
	case "csv":
		sb.WriteString("trial,canary,step,score\n")
		for _, r := range rows {
			fmt.Fprintf(&sb, "%g,%g,%g,%g\n", r[0], r[1], r[2], r[3])
		}
	case "jsonl":
		for _, r := range rows {
			fmt.Fprintf(&sb, "{\"trial\": %g, \"canary\": %g, \"step\": %g, \"score\": %g}\n", r[0], r[1], r[2], r[3])
		}
	case "npy":
		flat := make([]float64, 0, 4*len(rows))
		for _, r := range rows {
			flat = append(flat, r[:]...)
		}
		if err := npy.WriteFile(filepath.Join(dir, "observations.npy"), []int{len(rows), 4}, flat); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "observations."+format), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStepReport: a per-step report has one row per trial, canary and
// step, read from every format into the request's order; a missing step,
// a step past T and a final-loss table without the step column are
// errors.
func TestStepReport(t *testing.T) {
	for _, format := range []string{"csv", "jsonl", "npy"} {
		req := testRequest(GameOneRun, 2, 2)
		req.Report, req.DPSGD.Steps = ReportStepProjection, 3
		if req.Rows() != 12 {
			t.Fatalf("Rows %d, want 2 trials × 2 canaries × 3 steps", req.Rows())
		}
		dir := t.TempDir()
		writeStepTable(t, dir, format, req, nil, nil)
		obs, err := Read(dir, req)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if got := fmt.Sprint(obs.Score); got != "[1000 1001 1002 1010 1011 1012 1100 1101 1102 1110 1111 1112]" {
			t.Errorf("%s: scores %s", format, got)
		}
	}
	for _, c := range []struct {
		skip, extra []int64
		want        string
	}{
		{[]int64{11, 0, 2}, nil, "trial 11 canary 0 step 2 is missing"},
		{nil, []int64{10, 0, 3}, "unknown step 3 (the request has steps 0…2)"},
		{nil, []int64{10, 0, 1}, "trial 10 canary 0 step 1 appears twice"},
	} {
		req := testRequest(GameMembership, 2, 1)
		req.Report, req.DPSGD.Steps = ReportStepLoss, 3
		dir := t.TempDir()
		writeStepTable(t, dir, "csv", req, c.skip, c.extra)
		if _, err := Read(dir, req); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
	// A version-1 table (no step column) asked for per step.
	req := testRequest(GameMembership, 2, 1)
	req.Report = ReportStepLoss
	req.Output = t.TempDir()
	if err := trivialTrainer("csv", writeReq(t, req)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(req.Output, req); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "step") {
		t.Errorf("a table without steps: %v", err)
	}
}
