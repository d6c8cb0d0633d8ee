package main

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startCLI starts the test binary as the dpaudit binary (TestMain), so a
// signal goes to a real process.
func startCLI(t *testing.T, stdin *os.File, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the CLI as a subprocess")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &stderr
}

// waitFor polls ready until it holds (a minute at most: the machine may be
// loaded; the test then fails on what the command printed).
func waitFor(ready func() bool) {
	deadline := time.Now().Add(60 * time.Second)
	for !ready() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// interruptAndCheck sends SIGINT and checks how the command ended: exit
// code 130, one line "dpaudit: interrupted: …" containing kept, and no
// per-node cancellation errors. It returns stderr.
func interruptAndCheck(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, kept string) string {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT)
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	var err error
	select {
	case err = <-ended:
	case <-time.After(time.Minute): // a liveness guard, not a timing claim
		cmd.Process.Kill()
		<-ended
		t.Fatalf("still running a minute after Ctrl-C; stderr:\n%s", stderr.String())
	}
	out := stderr.String()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want code %d; stderr:\n%s", err, exitInterrupted, out)
	}
	if strings.Contains(out, "FAILED") || strings.Contains(out, "context canceled") {
		t.Fatalf("per-node cancellation errors printed:\n%s", out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, "interrupted") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "dpaudit: interrupted: ") || !strings.Contains(lines[0], kept) {
		t.Fatalf("want one line saying what was kept (%q), got:\n%s", kept, out)
	}
	return out
}

// Ctrl-C in the middle of a run exits with 130 after one line that says
// what was kept, with no per-node cancellation errors; the nodes that
// finished are in the store.
func TestInterruptExits130WithOneLine(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "resume.yaml")
	os.WriteFile(specPath, []byte(resumeSpec), 0o644)
	store := filepath.Join(dir, "store")
	cmd, stderr := startCLI(t, nil, "run", specPath, "--store", store, "--results", filepath.Join(dir, "results"), "-j", "2")
	waitFor(func() bool { return len(finishedNodes(t, store)) >= 2 })
	interruptAndCheck(t, cmd, stderr, "kept in "+store)
	if len(finishedNodes(t, store)) == 0 {
		t.Fatal("nothing kept in the store")
	}
}

// A command whose work cannot stop midway (estimate reading its table)
// is abandoned: Ctrl-C ends it at once with the same one line and 130.
// Here estimate waits for the rest of its CSV on stdin, which never comes.
func TestInterruptEstimateWhileReading(t *testing.T) {
	// An OS pipe, not an io.Pipe: with an *os.File as stdin, exec starts
	// no copying goroutine, which Wait would wait for after the exit.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd, stderr := startCLI(t, pr, "estimate", "-")
	pr.Close()
	var rows bytes.Buffer
	rows.WriteString("member,score\n")
	for i := 0; rows.Len() < 256<<10; i++ {
		fmt.Fprintf(&rows, "%d,%d.5\n", i%2, i)
	}
	// More than a pipe buffer: once written, estimate is reading, so its
	// handler of Ctrl-C is in place.
	if _, err := pw.Write(rows.Bytes()); err != nil {
		t.Fatal(err)
	}
	interruptAndCheck(t, cmd, stderr, "nothing to keep")
}

// Ctrl-C during a download stops it: the file being copied is removed
// (no partial file is left in the data directory) and the command says
// what was kept.
func TestInterruptDataFetch(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	noise := make([]byte, 1<<20) // incompressible: the body is long
	rand.Read(noise)
	zw.Write(noise)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(gz.Bytes()[:gz.Len()/4])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}))
	defer srv.Close()
	dataDir := t.TempDir()
	cmd, stderr := startCLI(t, nil, "data", "fetch", "mnist", "--mirror", srv.URL, "--data-dir", dataDir)
	partial := func() []string {
		m, _ := filepath.Glob(filepath.Join(dataDir, "*", ".*.partial-*"))
		return m
	}
	waitFor(func() bool { return len(partial()) > 0 })
	if len(partial()) == 0 {
		t.Fatalf("the download did not start; stderr:\n%s", stderr.String())
	}
	interruptAndCheck(t, cmd, stderr, "kept in "+dataDir)
	if m := partial(); len(m) > 0 {
		t.Fatalf("partial download left behind: %v", m)
	}
}
