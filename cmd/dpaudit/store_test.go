package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// store verify, gc and du on a small store; bad input exits 2.
func TestStoreCommands(t *testing.T) {
	dir := t.TempDir()
	store, r1, r2 := filepath.Join(dir, "s"), filepath.Join(dir, "r1"), filepath.Join(dir, "r2")
	spec := func(name string, steps int) string {
		p := filepath.Join(dir, name+".yaml")
		os.WriteFile(p, []byte("name: "+name+"\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: "+strings.Repeat("1", steps)+"}\nbound: [{kind: accountant, accountants: [rdp]}]\n"), 0o644)
		return p
	}
	for _, c := range [][]string{{spec("a", 2), r1}, {spec("b", 3), r2}} {
		if code, _, e := cli(t, "run", c[0], "--store", store, "--results", c[1]); code != 0 {
			t.Fatal(e)
		}
	}
	code, out, _ := cli(t, "store", "du", "--store", store)
	if code != 0 || !strings.Contains(out, "accountant") || !strings.Contains(out, "2 node(s)") {
		t.Fatalf("du: %d %s", code, out)
	}
	if code, _, e := cli(t, "store", "gc", "--store", store); code != 2 || !strings.Contains(e, "--keep") {
		t.Fatalf("gc without --keep: %d %s", code, e)
	}
	code, out, _ = cli(t, "store", "gc", "--store", store, "--keep", r1)
	if code != 0 || strings.Count(out, "node ") != 2 || !strings.Contains(out, "would remove 2 item(s)") {
		t.Fatalf("gc dry run: %d %s", code, out)
	}
	if code, _, _ := cli(t, "store", "gc", "--store", store, "--keep", r1, "--delete"); code != 0 {
		t.Fatal("gc --delete failed")
	}
	if code, out, _ := cli(t, "plan", spec("a", 2), "--store", store); code != 0 || !strings.Contains(out, "0 to run") {
		t.Fatalf("gc removed kept nodes: %s", out)
	}
	if code, out, _ := cli(t, "plan", spec("b", 3), "--store", store); code != 0 || !strings.Contains(out, "2 to run") {
		t.Fatalf("gc kept unused nodes: %s", out)
	}

	// verify finds a flipped byte, names it, quarantines it; exit 1.
	metas, _ := filepath.Glob(filepath.Join(store, "*", "*", "values.json"))
	if len(metas) == 0 {
		t.Fatal("no node output found")
	}
	b, _ := os.ReadFile(metas[0])
	b[len(b)/2] ^= 1
	os.WriteFile(metas[0], b, 0o644)
	code, out, _ = cli(t, "store", "verify", "--store", store)
	if code != 1 || !strings.Contains(out, "FAILED") || !strings.Contains(out, "expected sha256") {
		t.Fatalf("verify: %d %s", code, out)
	}
	if q, _ := os.ReadDir(filepath.Join(store, "quarantine")); len(q) != 1 {
		t.Fatalf("quarantine: %v", q)
	}
	if code, out, _ := cli(t, "store", "verify", "--store", store); code != 0 || !strings.Contains(out, "0 failed") {
		t.Fatalf("verify after quarantine: %d %s", code, out)
	}

	foreign := filepath.Join(dir, "home")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), nil, 0o644)
	if code, _, e := cli(t, "run", spec("a", 2), "--store", foreign, "--results", r1); code != 2 || !strings.Contains(e, "not a dpaudit store") {
		t.Fatalf("foreign store: %d %s", code, e)
	}
	os.WriteFile(filepath.Join(store, "dpaudit-store.json"), []byte(`{"format":"dpaudit-store","layout":7}`), 0o644)
	if code, _, e := cli(t, "store", "du", "--store", store); code != 2 || !strings.Contains(e, "layout version 7") {
		t.Fatalf("future layout: %d %s", code, e)
	}
}

// Two dpaudit processes run one spec into one store and one results folder
// at once (one of them forcing the trial shards), 10 rounds; about 5% of
// such runs once failed. Every run must succeed, the results folder must be
// whole, and no temporary file or lease may be left.
func TestConcurrentProcessesShareStoreAndResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as subprocesses")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "bug.yaml")
	os.WriteFile(spec, []byte("name: bug\nseed: 11\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 0.6, sampling_rate: 0.1, steps: 50, delta: 1.0e-5}\naudit: {threat_model: malicious_dataset, trials: 1000, shard_size: 250, claimed_noise_multiplier: 1.6267}\n"), 0o644)
	store, results := filepath.Join(dir, "s"), filepath.Join(dir, "r")
	for round := 0; round < 10; round++ {
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for i := 0; i < 2; i++ {
			args := []string{"run", spec, "--store", store, "--results", results, "-j", "2"}
			if i == 1 {
				args = append(args, "--force", "trials")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "DPAUDIT_TEST_AS_CLI=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d, process %d: %v\n%s", round, i, err, outs[i])
			}
		}
		if parts, _ := filepath.Glob(filepath.Join(results, "bug", "trials", "point=*", "*.parquet")); len(parts) != 4 {
			t.Fatalf("round %d: %d trial parts", round, len(parts))
		}
	}
	for _, d := range []string{results, filepath.Join(store, "tmp"), filepath.Join(store, "leases")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() != "bug" {
				t.Errorf("left in %s: %s", d, e.Name())
			}
		}
	}
	if code, out, _ := cli(t, "store", "verify", "--store", store); code != 0 {
		t.Fatalf("store after concurrent runs: %s", out)
	}
}

// store gc --delete followed a symbolic link in place of quarantine/ and
// deleted files outside the store; it removes the link and nothing it
// points to. A damaged store marker gets one clear message, exit 2.
func TestStoreGCAndBadMarker(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s")
	spec := filepath.Join(dir, "g.yaml")
	os.WriteFile(spec, []byte("name: g\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 10}\nbound: [{kind: accountant, accountants: [rdp]}]\n"), 0o644)
	if code, _, e := cli(t, "run", spec, "--store", store, "--results", filepath.Join(dir, "r")); code != 0 {
		t.Fatal(e)
	}
	outside := filepath.Join(dir, "thesis")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "chapter1.tex"), []byte("precious"), 0o644)
	os.RemoveAll(filepath.Join(store, "quarantine"))
	os.Symlink(outside, filepath.Join(store, "quarantine"))
	code, out, e := cli(t, "store", "gc", "--store", store, "--all", "--delete")
	if code != 0 || !strings.Contains(out, "symbolic link") {
		t.Fatalf("gc: exit %d\n%s%s", code, out, e)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "chapter1.tex")); err != nil || string(b) != "precious" {
		t.Fatalf("gc deleted outside the store: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(store, "quarantine")); !os.IsNotExist(err) {
		t.Fatal("the link was not removed")
	}
	// A regular file at results/<name> is refused, exit 2, and kept.
	os.MkdirAll(filepath.Join(dir, "r2"), 0o755)
	os.WriteFile(filepath.Join(dir, "r2", "g"), []byte("notes"), 0o644)
	if code, _, e := cli(t, "run", spec, "--store", store, "--results", filepath.Join(dir, "r2")); code != 2 || !strings.Contains(e, "not a folder") {
		t.Fatalf("results file: exit %d: %s", code, e)
	}
	os.WriteFile(filepath.Join(store, "dpaudit-store.json"), []byte("{\"format\":"), 0o644)
	code, _, e = cli(t, "run", spec, "--store", store, "--results", filepath.Join(dir, "r"))
	if code != 2 || strings.Count(e, "dpaudit-store.json") != 1 || !strings.Contains(e, "cannot be read") {
		t.Fatalf("damaged marker: exit %d: %s", code, e)
	}
}
