package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C in the middle of a run exits with 130 after one line that says
// what was kept, with no per-node cancellation errors; the nodes that
// finished are in the store. The test binary acts as the dpaudit binary
// (TestMain), so the signal goes to a real process.
func TestInterruptExits130WithOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a subprocess")
	}
	dir := t.TempDir()
	specPath := filepath.Join(dir, "resume.yaml")
	os.WriteFile(specPath, []byte(resumeSpec), 0o644)
	store := filepath.Join(dir, "store")
	cmd := exec.Command(os.Args[0], "run", specPath, "--store", store, "--results", filepath.Join(dir, "results"), "-j", "2")
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(finishedNodes(t, store)) < 2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want code %d; stderr:\n%s", err, exitInterrupted, stderr.String())
	}
	out := stderr.String()
	if strings.Contains(out, "FAILED") || strings.Contains(out, "context canceled") {
		t.Fatalf("per-node cancellation errors printed:\n%s", out)
	}
	var last []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, "interrupted") {
			last = append(last, l)
		}
	}
	if len(last) != 1 || !strings.HasPrefix(last[0], "dpaudit: interrupted: ") || !strings.Contains(last[0], "kept in "+store) {
		t.Fatalf("want one line saying what was kept, got:\n%s", out)
	}
	if len(finishedNodes(t, store)) == 0 {
		t.Fatal("nothing kept in the store")
	}
}
