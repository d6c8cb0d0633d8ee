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
