package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// resumeSpec has enough independent PLD nodes (fine interval) that a kill
// lands in the middle of the run.
const resumeSpec = `name: resume
dpsgd:
  noise_multiplier: 1.0
  sampling_rate: 0.01
  steps: 3000
bound:
  - kind: accountant
    accountants: [pld, rdp]
    pld_interval: 2.0e-5
sweep:
  grid:
    dpsgd.noise_multiplier: {linspace: [0.7, 2.0, 12]}
    dpsgd.steps: [1000, 3000, 6000]
`

func finishedNodes(t *testing.T, store string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	matches, _ := filepath.Glob(filepath.Join(store, "[0-9a-f][0-9a-f]", "*", "meta.json"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err == nil {
			out[m] = b
		}
	}
	return out
}

// A run killed with SIGKILL mid-way and started again redoes no finished
// node and ends with a summary byte-identical to an uninterrupted run.
func TestResumeAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a subprocess")
	}
	dir := t.TempDir()
	specPath := filepath.Join(dir, "resume.yaml")
	os.WriteFile(specPath, []byte(resumeSpec), 0o644)

	// Reference: an uninterrupted run.
	refStore, refResults := filepath.Join(dir, "ref-store"), filepath.Join(dir, "ref-results")
	if code, _, errs := cli(t, "run", specPath, "--store", refStore, "--results", refResults, "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	total := len(finishedNodes(t, refStore))
	want, err := os.ReadFile(filepath.Join(refResults, "resume", "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}

	// Interrupted run: kill -9 once a few nodes are in the store.
	store, results := filepath.Join(dir, "store"), filepath.Join(dir, "results")
	cmd := exec.Command(os.Args[0], "run", specPath, "--store", store, "--results", results, "-j", "1")
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(finishedNodes(t, store)) < 3 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := finishedNodes(t, store)
	if len(before) == 0 || len(before) >= total {
		t.Fatalf("kill landed outside the run (%d of %d nodes finished); make the spec slower", len(before), total)
	}
	if _, err := os.Stat(filepath.Join(results, "resume", "summary.parquet")); err == nil {
		t.Fatal("a killed run left a summary behind")
	}

	// Resume.
	code, out, errs := cli(t, "run", specPath, "--store", store, "--results", results, "-j", "2")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, fmt.Sprintf("%d node(s) computed here, 0 computed by another process, %d cached", total-len(before), len(before))) {
		t.Fatalf("resume did not reuse exactly the %d finished nodes: %s", len(before), out)
	}
	after := finishedNodes(t, store)
	for k, b := range before {
		if !bytes.Equal(after[k], b) {
			t.Fatalf("finished node %s was recomputed", k)
		}
	}
	got, err := os.ReadFile(filepath.Join(results, "resume", "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the resumed summary differs from the uninterrupted one")
	}
	// Leftover temporary directories of the killed node do not count as nodes.
	if len(after) != total {
		t.Fatalf("%d nodes in the store after resume, want %d", len(after), total)
	}
}
