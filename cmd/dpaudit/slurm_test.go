package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests submit to a real Slurm (scripts/slurm-single-node.sh makes
// one on this machine). Without Slurm they skip, saying why; with
// DPAUDIT_REQUIRE_SLURM=1 (CI, after the script) they fail instead.
func needSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("submits Slurm jobs")
	}
	out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput()
	why := ""
	switch {
	case err != nil:
		why = fmt.Sprintf("Slurm is not available (sinfo: %v %s); run scripts/slurm-single-node.sh as root to make a one-machine cluster", err, bytes.TrimSpace(out))
	case !strings.Contains(string(out), "idle") && !strings.Contains(string(out), "mixed") && !strings.Contains(string(out), "alloc"):
		why = fmt.Sprintf("no Slurm node is up (sinfo says %q)", bytes.TrimSpace(out))
	}
	if why != "" {
		if os.Getenv("DPAUDIT_REQUIRE_SLURM") == "1" {
			t.Fatal(why + " (DPAUDIT_REQUIRE_SLURM=1)")
		}
		t.Skip(why)
	}
	// Array tasks run this test binary as the dpaudit command (sbatch
	// passes the environment on; see TestMain).
	t.Setenv("DPAUDIT_TEST_AS_CLI", "1")
	// No lab config of the user's leaks into the tests.
	t.Setenv("DPAUDIT_SLURM_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// slurmSpec is an ideal-mechanism audit of 20 trial shards: small, but
// three layers (trials, estimate, summary) and enough tasks to chunk.
const slurmSpec = `name: %s
seed: 7
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.8, sampling_rate: 0.1, steps: 40, delta: 1.0e-5}
audit: {threat_model: malicious_dataset, trials: 2000, shard_size: 100, claimed_noise_multiplier: 0.8}
`

func writeSlurmSpec(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(slurmSpec, name)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// resultFiles reads every file of a results folder except manifest.json
// (which records timings and store paths) and report.html (which shows the
// manifest's provenance); the tables and figures must be byte-identical.
func resultFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() != "manifest.json" && info.Name() != "report.html" {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
		}
		return nil
	})
	return out
}

func sameResults(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	if len(want) == 0 || len(want) != len(got) {
		t.Fatalf("local run wrote %d files, slurm run %d", len(want), len(got))
	}
	var names []string
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !bytes.Equal(want[k], got[k]) {
			t.Fatalf("%s differs between the local and the slurm run", k)
		}
	}
}

var slurmFast = []string{"--executor", "slurm", "--slurm-poll", "200ms"}

// The same spec gives byte-identical summary and trial tables locally and
// on Slurm; a second slurm run of the cached plan submits nothing.
func TestSlurmIdenticalToLocal(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmsame")
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "ls"), "--results", filepath.Join(dir, "lr"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	args := append([]string{"run", spec, "--store", filepath.Join(dir, "ss"), "--results", filepath.Join(dir, "sr"), "--slurm-chunk", "6"}, slurmFast...)
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 20 shards in chunks of 6: 4 tasks, then the estimate, then the summary.
	if !strings.Contains(errs, "20 node(s) in 4 task(s) of ≤ 6") || !strings.Contains(out, "0 node(s) computed here, 22 computed by another process, 0 cached") {
		t.Fatalf("unexpected arrays:\n%s\n%s", out, errs)
	}
	sameResults(t, resultFiles(t, filepath.Join(dir, "lr", "slurmsame")), resultFiles(t, filepath.Join(dir, "sr", "slurmsame")))

	code, out, errs = cli(t, args...)
	if code != 0 || !strings.Contains(out, "0 node(s) computed here, 0 computed by another process, 22 cached") || !strings.Contains(errs, "nothing to submit") || strings.Contains(errs, "submitted job") {
		t.Fatalf("a cached plan must submit nothing (exit %d):\n%s\n%s", code, out, errs)
	}
	// plan --executor slurm of the cached plan says so, and submits nothing.
	code, out, _ = cli(t, "plan", spec, "--store", filepath.Join(dir, "ss"), "--executor", "slurm")
	if code != 0 || !strings.Contains(out, "nothing would be submitted") {
		t.Fatalf("plan: %s", out)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the driver writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// arrayJob waits for the array job named name and returns its id.
func arrayJob(t *testing.T, name string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("squeue", "-h", "-n", name, "-o", "%F").Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			return f[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s never appeared in squeue", name)
	return ""
}

// An array task cancelled (scancel) before it ran is resubmitted for its
// nodes, and the run completes with the same tables; with --slurm-retries 0
// the run fails naming the nodes, the job and its log.
func TestSlurmCancelledTaskRetried(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmcancel")
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "ls"), "--results", filepath.Join(dir, "lr"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	for _, retries := range []string{"2", "0"} {
		sub := filepath.Join(dir, "r"+retries)
		var stdout, stderr syncBuffer
		done := make(chan int)
		go func() {
			// One task at a time, so the last is still pending when cancelled.
			done <- runMain(append([]string{"run", spec, "--store", filepath.Join(sub, "s"), "--results", filepath.Join(sub, "r"),
				"--slurm-chunk", "5", "--slurm-parallel", "1", "--slurm-retries", retries}, slurmFast...), &stdout, &stderr)
		}()
		job := arrayJob(t, "dpaudit-slurmcancel-L0-a0")
		if err := exec.Command("scancel", job+"_3").Run(); err != nil {
			t.Fatal(err)
		}
		code := <-done
		if retries == "2" {
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "5 node(s) of 1 task(s) of job "+job+" did not finish") {
				t.Fatalf("no retry of the cancelled task:\n%s", stderr.String())
			}
			sameResults(t, resultFiles(t, filepath.Join(dir, "lr", "slurmcancel")), resultFiles(t, filepath.Join(sub, "r", "slurmcancel")))
			continue
		}
		errs := stderr.String()
		log := filepath.Join("logs", job+"_3.out")
		if code != 1 || !strings.Contains(errs, "5 node(s) did not finish after 0 retries") || !strings.Contains(errs, "job "+job+"_3") || !strings.Contains(errs, log) || !strings.Contains(errs, "trials ") {
			t.Fatalf("exit %d; the failure must name nodes, job and log:\n%s", code, errs)
		}
	}
}

// A driver killed with SIGKILL mid-run and started again redoes no node
// finished before the kill (they keep their bytes), and adopts the array
// the killed driver left in the queue instead of submitting its nodes a
// second time; it ends with the same tables.
func TestSlurmDriverKilledResumes(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmkill")
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "ls"), "--results", filepath.Join(dir, "lr"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	store, results := filepath.Join(dir, "s"), filepath.Join(dir, "r")
	args := append([]string{"run", spec, "--store", store, "--results", results, "--slurm-chunk", "2", "--slurm-parallel", "1"}, slurmFast...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(finishedNodes(t, store)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := finishedNodes(t, store)
	if len(before) < 2 || len(before) >= 20 {
		t.Fatalf("kill landed outside the first layer (%d of 22 nodes finished):\n%s", len(before), stderr.String())
	}
	job := arrayJob(t, "dpaudit-slurmkill-L0-a0") // still queued: nobody cancelled it

	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "adopting job "+job+" of a previous driver") {
		t.Fatalf("the restart did not adopt the killed driver's array %s:\n%s", job, errs)
	}
	var here, elsewhere, cached int
	if _, err := fmt.Sscanf(out, "1 point(s): %d node(s) computed here, %d computed by another process, %d cached", &here, &elsewhere, &cached); err != nil || here != 0 || elsewhere+cached != 22 || cached < len(before) {
		t.Fatalf("restart counts (%v): %s", err, out)
	}
	// The new driver submitted no array for the first layer: the adopted
	// one computed it.
	lists, _ := filepath.Glob(filepath.Join(store, "slurm", "slurmkill-*", "arrays"))
	if len(lists) != 1 {
		t.Fatalf("array lists %v", lists)
	}
	if b, _ := os.ReadFile(lists[0]); strings.Contains(string(b), " 0 0\n") {
		t.Fatalf("the restart submitted the first layer again: %s", b)
	}
	after := finishedNodes(t, store)
	for k, b := range before {
		if !bytes.Equal(after[k], b) {
			t.Fatalf("finished node %s was recomputed", k)
		}
	}
	sameResults(t, resultFiles(t, filepath.Join(dir, "lr", "slurmkill")), resultFiles(t, filepath.Join(results, "slurmkill")))
}

// Bad input: each refused with exit 2 and nothing submitted or written.
func TestSlurmBadInput(t *testing.T) {
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmbad")
	store := filepath.Join(dir, "store")
	// --slurm-parallel 0 (no Slurm needed).
	code, _, errs := cli(t, "run", spec, "--store", store, "--executor", "slurm", "--slurm-parallel", "0")
	if code != 2 || !strings.Contains(errs, "--slurm-parallel must be ≥ 1") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, errs = cli(t, "run", spec, "--store", store, "--slurm-chunk", "4")
	if code != 2 || !strings.Contains(errs, "--slurm-chunk needs --executor slurm") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, errs = cli(t, "run", spec, "--store", store, "--executor", "kubernetes")
	if code != 2 || !strings.Contains(errs, "unknown executor") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// No sbatch on PATH.
	t.Setenv("PATH", t.TempDir())
	code, _, errs = cli(t, "run", spec, "--store", store, "--executor", "slurm")
	if code != 2 || !strings.Contains(errs, "needs Slurm's sbatch on PATH") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(store); err == nil {
		t.Fatal("a refused run created the store")
	}
}

// A partition Slurm does not know is refused with Slurm's own words, exit
// 2, nothing submitted; a task that cannot see the store (here a template
// that never runs the worker) is refused with a clear message.
func TestSlurmRefusals(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmrefused")
	before, _ := exec.Command("squeue", "-h", "-n", "dpaudit-slurmrefused-L0-a0").Output()
	code, _, errs := cli(t, append([]string{"run", spec, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "r"), "--slurm-partition", "no-such-partition"}, slurmFast...)...)
	if code != 2 || !strings.Contains(errs, "Slurm refused the job: sbatch: error: ") || !strings.Contains(strings.ToLower(errs), "partition") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "s", "slurm", "*", "*.chunks")); len(matches) > 0 || len(before) > 0 {
		t.Fatal("a refused run submitted something")
	}

	tmpl := filepath.Join(dir, "blind.sbatch")
	os.WriteFile(tmpl, []byte("#!/bin/sh\n#SBATCH --job-name={{job_name}}\n#SBATCH --array={{array}}\n#SBATCH --output={{output}}\n{{options}}\ntrue # a node that does not mount the store\n"), 0o644)
	code, _, errs = cli(t, append([]string{"run", spec, "--store", filepath.Join(dir, "s2"), "--results", filepath.Join(dir, "r2"), "--slurm-template", tmpl, "--slurm-chunk", "20"}, slurmFast...)...)
	if code != 1 || !strings.Contains(errs, "the compute nodes do not see this folder") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// --detach submits every layer with afterok dependencies and returns; a run
// while they are queued submits nothing and says so; a run after they
// finished collects the same tables without computing anything.
func TestSlurmDetach(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmdetach")
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "ls"), "--results", filepath.Join(dir, "lr"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	args := append([]string{"run", spec, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "r"), "--slurm-chunk", "2", "--slurm-parallel", "1"}, slurmFast...)
	code, out, errs := cli(t, append(args, "--detach")...)
	if code != 0 || !strings.Contains(out, "submitted job arrays ") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	jobs := strings.Fields(strings.TrimPrefix(strings.SplitN(out, " (", 2)[0], "submitted job arrays "))
	if len(jobs) != 3 {
		t.Fatalf("want 3 arrays (trials, estimate, summary): %q", out)
	}
	code, _, errs = cli(t, args...)
	if code != 1 || !strings.Contains(errs, "still queued or running") {
		t.Fatalf("a run during the detached one must submit nothing (exit %d): %s", code, errs)
	}
	for q := "x"; q != ""; time.Sleep(200 * time.Millisecond) {
		o, _ := exec.Command("squeue", "-h", "-j", strings.Join(jobs, ",")).Output()
		q = strings.TrimSpace(string(o))
	}
	code, out, errs = cli(t, args...)
	if code != 0 || !strings.Contains(out, "0 node(s) computed here, 0 computed by another process, 22 cached") {
		t.Fatalf("collect: exit %d: %s %s", code, out, errs)
	}
	sameResults(t, resultFiles(t, filepath.Join(dir, "lr", "slurmdetach")), resultFiles(t, filepath.Join(dir, "r", "slurmdetach")))
}

// Ctrl-C (SIGINT) of the driver cancels its array.
func TestSlurmInterruptCancels(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmint")
	cmd := exec.Command(os.Args[0], append([]string{"run", spec, "--store", filepath.Join(dir, "s"), "--results", filepath.Join(dir, "r"), "--slurm-chunk", "2", "--slurm-parallel", "1"}, slurmFast...)...)
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	job := arrayJob(t, "dpaudit-slurmint-L0-a0")
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if err == nil || !strings.Contains(stderr.String(), "cancelled Slurm job(s) "+job) {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	o, _ := exec.Command("squeue", "-h", "-j", job, "-t", "PENDING,RUNNING").Output()
	if strings.TrimSpace(string(o)) != "" {
		t.Fatalf("job %s still queued after Ctrl-C: %s", job, o)
	}
}

// plan --executor slurm prints the arrays it would submit and submits
// nothing (no Slurm needed): 100 shards over 8 slots make 8 tasks of 13
// nodes; a fixed --slurm-chunk wins.
func TestSlurmPlanArrays(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.yaml")
	os.WriteFile(p, []byte(strings.Replace(fmt.Sprintf(slurmSpec, "slurmplan"), "trials: 2000", "trials: 10000", 1)), 0o644)
	t.Setenv("DPAUDIT_SLURM_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	store := filepath.Join(dir, "s")
	code, out, errs := cli(t, "plan", p, "--store", store, "--executor", "slurm", "--slurm-parallel", "8")
	if code != 0 || !strings.Contains(out, "slurm: 3 job array(s), 10 task(s) in all, at most 8 running at once (nothing submitted)") ||
		!strings.Contains(out, "array 1: 100 trials; 8 task(s) of ≤ 13 node(s)") || !strings.Contains(out, "array 3: 1 summary; 1 task(s)") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	code, out, _ = cli(t, "plan", p, "--store", store, "--executor", "slurm", "--slurm-chunk", "25")
	if code != 0 || !strings.Contains(out, "array 1: 100 trials; 4 task(s) of ≤ 25 node(s)") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, err := os.Stat(store); err == nil {
		t.Fatal("plan wrote the store")
	}
	// The lab's config file supplies what the flags do not.
	cfg := filepath.Join(dir, "slurm.yaml")
	os.WriteFile(cfg, []byte("parallel: 4\npartition: gpu\n"), 0o644)
	t.Setenv("DPAUDIT_SLURM_CONFIG", cfg)
	code, out, _ = cli(t, "plan", p, "--store", store, "--executor", "slurm")
	if code != 0 || !strings.Contains(out, "array 1: 100 trials; 4 task(s) of ≤ 25 node(s)") {
		t.Fatalf("config file ignored (exit %d): %s", code, out)
	}
	os.WriteFile(cfg, []byte("paralel: 4\n"), 0o644)
	if code, _, errs = cli(t, "plan", p, "--store", store, "--executor", "slurm"); code != 2 || !strings.Contains(errs, "paralel") {
		t.Fatalf("a misspelt config key must be refused (exit %d): %s", code, errs)
	}
}

// A store or results path with a space or a quote broke --executor slurm
// (#SBATCH --output= was not quoted, and the --test-only pre-check used
// /dev/null so it did not notice). A Slurm audit from a folder named with
// a space, both quotes, '#' and '%' gives the local tables.
func TestSlurmOddPaths(t *testing.T) {
	needSlurm(t)
	dir := filepath.Join(t.TempDir(), `it's a "run" #1 100%`)
	os.MkdirAll(dir, 0o755)
	spec := writeSlurmSpec(t, dir, "slurmodd")
	if code, _, errs := cli(t, "run", spec, "--store", filepath.Join(dir, "local store"), "--results", filepath.Join(dir, "local results"), "-j", "2"); code != 0 {
		t.Fatal(errs)
	}
	args := append([]string{"run", spec, "--store", filepath.Join(dir, "slurm store"), "--results", filepath.Join(dir, "slurm results"), "--slurm-chunk", "10"}, slurmFast...)
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "0 node(s) computed here, 22 computed by another process, 0 cached") {
		t.Fatalf("unexpected run:\n%s\n%s", out, errs)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "slurm store", "slurm", "*", "logs", "*_1.out"))
	if len(logs) == 0 {
		t.Fatalf("no task log under the odd path (the %%A_%%a pattern was not kept):\n%s", errs)
	}
	sameResults(t, resultFiles(t, filepath.Join(dir, "local results", "slurmodd")), resultFiles(t, filepath.Join(dir, "slurm results", "slurmodd")))
}

// A restarted driver whose plan no longer holds the nodes of the array a
// killed driver left queued (the spec changed) cancels that array instead
// of letting it run beside its own.
func TestSlurmRestartCancelsStaleArrays(t *testing.T) {
	needSlurm(t)
	dir := t.TempDir()
	spec := writeSlurmSpec(t, dir, "slurmstale")
	store, results := filepath.Join(dir, "s"), filepath.Join(dir, "r")
	args := append([]string{"run", spec, "--store", store, "--results", results, "--slurm-chunk", "2", "--slurm-parallel", "1"}, slurmFast...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	job := arrayJob(t, "dpaudit-slurmstale-L0-a0")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	os.WriteFile(spec, []byte(strings.Replace(fmt.Sprintf(slurmSpec, "slurmstale"), "seed: 7", "seed: 8", 1)), 0o644)
	code, _, errs := cli(t, args...)
	if code != 0 || !strings.Contains(errs, "cancelled job "+job+" of a previous driver") {
		t.Fatalf("exit %d: the stale array %s was not cancelled:\n%s", code, job, errs)
	}
	if o, _ := exec.Command("squeue", "-h", "-j", job, "-t", "PENDING,RUNNING").Output(); strings.TrimSpace(string(o)) != "" {
		t.Fatalf("job %s still queued: %s", job, o)
	}
}
