package dpaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// A small ideal-model audit: 4 trial shards, an estimate, a summary, and a
// calibration memo; runs in well under a second.
const smallAudit = `name: small
vars:
  target: 4
model: {arch: ideal}
dpsgd:
  noise_multiplier: "=calibrate(target, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)"
  sampling_rate: 0.1
  steps: 20
  delta: 1.0e-5
audit:
  threat_model: malicious_dataset
  trials: 800
  shard_size: 200
`

func summaryNodeDir(p *Plan) string { return p.Store.Dir(p.Compiled.Summary.StoreKey()) }

// A corrupted summary in the store is replaced by `run --force summary`,
// never kept and published (it once said "done" and published the garbage).
func TestForceSummaryReplacesCorruptNode(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	good, _ := os.ReadFile(res.Summary)
	os.WriteFile(filepath.Join(summaryNodeDir(p), stages.SummaryFile), []byte("garbage"), 0o644)
	o.Force = []string{"summary"}
	_, res = runSpec(t, path, o)
	got, _ := os.ReadFile(res.Summary)
	if !bytes.Equal(got, good) {
		t.Fatalf("published summary after --force: %q", got[:min(len(got), 16)])
	}
	if b, _ := os.ReadFile(filepath.Join(summaryNodeDir(p), stages.SummaryFile)); !bytes.Equal(b, good) {
		t.Fatal("--force did not replace the stored node")
	}
	if _, err := Violations(res.Summary); err != nil {
		t.Fatal(err)
	}
}

// A same-size corruption of a trial shard is caught when the shard is
// published: the shard is quarantined, recomputed, and the run says so.
func TestCorruptShardIsRecomputedBeforePublish(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, _ := runSpec(t, path, o)
	var shard *pipeline.Node
	for _, sh := range p.Compiled.Trials {
		shard = sh[1]
	}
	f := filepath.Join(p.Store.Dir(shard.StoreKey()), stages.TrialsFile)
	good, _ := os.ReadFile(f)
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 1
	os.WriteFile(f, bad, 0o644)
	p2, res := runSpec(t, path, o)
	if res.Run != 1 {
		t.Fatalf("run %d node(s), want the corrupt shard only", res.Run)
	}
	if b, _ := os.ReadFile(f); !bytes.Equal(b, good) {
		t.Fatal("shard not recomputed")
	}
	n := p2.Store.Notices()
	if len(n) != 1 || !strings.Contains(n[0], "trials node "+shard.Key()[:12]+": trials.parquet: expected sha256") || !strings.Contains(n[0], "quarantine") {
		t.Fatalf("notices %q", n)
	}
}

// A doctored calibration memo is detected and recomputed, never used
// silently (it once gave σ 0.84, ε_pld 4.0495 for target 4).
func TestDoctoredCalibrationMemoIsRecomputed(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "e.yaml", "name: e\ndpsgd:\n  noise_multiplier: \"=calibrate(4, 1e-5, 0.01, 200)\"\n  sampling_rate: 0.01\n  steps: 200\nbound: [{kind: accountant, accountants: [pld]}]\n")
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")}
	_, res := runSpec(t, path, o)
	want, _ := os.ReadFile(res.Summary)
	memos, _ := filepath.Glob(filepath.Join(o.Store, "memo", "calibrate", "*.json"))
	if len(memos) != 1 {
		t.Fatalf("memos %v", memos)
	}
	os.WriteFile(memos[0], []byte("0.84"), 0o644)
	p, res := runSpec(t, path, o)
	if got, _ := os.ReadFile(res.Summary); !bytes.Equal(got, want) {
		t.Fatal("a doctored memo changed the results")
	}
	if n := p.Store.Notices(); len(n) != 1 || !strings.Contains(n[0], "memo calibrate/") {
		t.Fatalf("notices %q", n)
	}
}

// Concurrent runs of one spec into one results folder all succeed (they
// once failed about 5% of the time: a fixed manifest.json.tmp, the
// .trials-old swap). 20 rounds of two concurrent runs, each round on a
// fresh store so both compute; every run succeeds and the folder is whole.
func TestConcurrentRunsShareResultsFolder(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", strings.Replace(smallAudit, `"=calibrate(target, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)"`, "1.1", 1))
	results := filepath.Join(dir, "r")
	for round := 0; round < 20; round++ {
		o := Options{Store: filepath.Join(dir, "s", string(rune('a'+round))), Results: results, Jobs: 2}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := Load(path, o)
				if err == nil {
					_, err = p.Execute(context.Background(), nil)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		var m Manifest
		b, err := os.ReadFile(filepath.Join(results, "small", "manifest.json"))
		if err != nil || json.Unmarshal(b, &m) != nil || m.Name != "small" {
			t.Fatalf("round %d: manifest %v", round, err)
		}
		if parts, _ := filepath.Glob(filepath.Join(results, "small", "trials", "point=*", "*.parquet")); len(parts) != 4 {
			t.Fatalf("round %d: %d trial parts", round, len(parts))
		}
	}
	entries, _ := os.ReadDir(results)
	for _, e := range entries {
		if e.Name() != "small" && e.Name() != ".small.lock" {
			t.Errorf("left in the results root: %s", e.Name())
		}
	}
}

// A publish that fails half-way keeps the previous folder whole, and the
// error says so, wherever the failure happens (it once left a new summary
// beside old trials and an old manifest).
func TestHalfFailedPublishKeepsPreviousResults(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	_, res := runSpec(t, path, o)
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.Walk(res.Dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	before := snapshot()
	writeSpec(t, dir, "small.yaml", strings.Replace(smallAudit, "trials: 800", "trials: 600", 1))
	defer func() { publishHook = nil }()
	for _, step := range []string{"summary", "trials", "swap"} {
		publishHook = func(s string) error {
			if s == step {
				return errors.New("no space left on device (injected)")
			}
			return nil
		}
		p, err := Load(path, o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Execute(context.Background(), nil)
		var pe *PublishError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "previous results in "+res.Dir+" are untouched") {
			t.Fatalf("failure at %s: %v", step, err)
		}
		after := snapshot()
		if len(after) != len(before) {
			t.Fatalf("failure at %s: %d files, want %d", step, len(after), len(before))
		}
		for f, b := range before {
			if after[f] != b {
				t.Fatalf("failure at %s changed %s", step, f)
			}
		}
		entries, _ := os.ReadDir(o.Results)
		for _, e := range entries {
			if e.Name() != "small" && e.Name() != ".small.lock" {
				t.Fatalf("failure at %s left %s", step, e.Name())
			}
		}
	}
	publishHook = nil
	// A publish killed half-way by a process that is gone leaves its
	// folder; the next publish of the name removes it.
	cmd := exec.Command("true")
	cmd.Run()
	killed := filepath.Join(o.Results, ".small.new-"+fmt.Sprintf("p%d@%s.123", cmd.Process.Pid, strings.SplitN(pipeline.OwnerTag(), "@", 2)[1]))
	os.MkdirAll(killed, 0o755)
	_, res = runSpec(t, path, o)
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Fatal("the folder of a dead publisher was not removed")
	}
	if parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "*.parquet")); len(parts) != 3 {
		t.Fatalf("after a good publish: %d parts, want 3", len(parts))
	}
}

// Results are copies: editing one cannot change the store (they were hard
// links into it).
func TestResultsAreCopiesNotLinks(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "part-00000.parquet"))
	if len(parts) != 1 {
		t.Fatal(parts)
	}
	f, err := os.OpenFile(parts[0], os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("edited"), 100)
	f.Close()
	for _, sh := range p.Compiled.Trials {
		if err := pipeline.NewStore(o.Store).Verify(sh[0].StoreKey(), true); err != nil {
			t.Fatalf("editing a result changed the store: %v", err)
		}
	}
}

// Keys do not follow hand-bumped versions only: the code fingerprint is in
// every key, a change of every package's code changes every key, and plan
// says "code changed"; --reuse-across-versions reuses the old nodes.
func TestCodeChangeInvalidatesKeys(t *testing.T) {
	defer func(old func(string) string) { codeOf = old }(codeOf)
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, _ := runSpec(t, path, o)
	if len(CodeFingerprint()) != 16 || pipeline.CodeFingerprint() != CodeFingerprint() {
		t.Fatalf("fingerprint %q", CodeFingerprint())
	}
	old := codeOf
	codeOf = func(pkg string) string { return old(pkg) + " numerics=changed" }
	p2, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p2.Steps {
		if st.Status != pipeline.Run || st.Reason != pipeline.ReasonCode {
			t.Fatalf("%s: %s %q after a code change", st.Node.Kind, st.Status, st.Reason)
		}
	}
	if p2.Compiled.Summary.Key() == p.Compiled.Summary.Key() {
		t.Fatal("same key under different code")
	}
	o.ReuseAcrossVersions = true
	p3, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := pipeline.Counts(p3.Steps); run != 0 {
		t.Fatalf("--reuse-across-versions still runs %d node(s)", run)
	}
}

// An unwritable store is refused before anything, including an empty
// results/<name>/, is created; a foreign folder as store is refused at
// load time.
func TestUnwritableStoreCreatesNoResultsFolder(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	path := writeSpec(t, dir, "q.yaml", "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 10}\nbound: [{kind: accountant, accountants: [gdp]}]\n")
	o := Options{Store: filepath.Join(blocker, "store"), Results: filepath.Join(dir, "results")}
	p, err := Load(path, o)
	if err == nil {
		_, err = p.Execute(context.Background(), nil)
	}
	if err == nil || !IsInputError(err) {
		t.Fatalf("want an input error, got %v", err)
	}
	if _, err := os.Stat(o.Results); !os.IsNotExist(err) {
		t.Fatal("results folder created although the run could not start")
	}
	foreign := filepath.Join(dir, "home")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), nil, 0o644)
	_, err = Load(path, Options{Store: foreign, Results: o.Results})
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "not a dpaudit store") {
		t.Fatalf("foreign store: %v", err)
	}
}

// --verify checks every cached node, not only those used or published: a
// flipped byte in an accountant node (used by no node that runs) is found,
// quarantined and recomputed; the summary, computed from good bytes, stays.
func TestVerifyFlagChecksEveryNode(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "v.yaml", "name: v\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 100}\nbound: [{kind: accountant, accountants: [rdp]}]\n")
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")}
	p, _ := runSpec(t, path, o)
	acc := p.Steps[0].Node
	if acc.Kind != "accountant" {
		t.Fatalf("first node is %s", acc.Kind)
	}
	files, _ := filepath.Glob(filepath.Join(p.Store.Dir(acc.Key()), "values.json"))
	if len(files) != 1 {
		t.Fatal(files)
	}
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 1
	os.WriteFile(files[0], b, 0o644)
	if _, res := runSpec(t, path, o); res.Run != 0 {
		t.Fatalf("without --verify: %d run", res.Run)
	}
	o.Verify = true
	if _, res := runSpec(t, path, o); res.Run != 1 {
		t.Fatalf("--verify: %d run, want the corrupt accountant node", res.Run)
	}
	if err := pipeline.NewStore(o.Store).Verify(acc.Key(), true); err != nil {
		t.Fatal(err)
	}
}
