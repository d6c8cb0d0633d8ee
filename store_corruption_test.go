package dpaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// publishedFiles reads every table of a results folder (not the manifest
// or the report page, which record timings and counts).
func publishedFiles(t *testing.T, dir string) map[string][]byte {
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
	if len(out) == 0 {
		t.Fatalf("nothing published in %s", dir)
	}
	return out
}

func samePublished(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("published %d files, want %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Fatalf("%s differs from the first run's", name)
		}
	}
}

// firstShards returns the trial shards of the small audit's one point.
func firstShards(t *testing.T, p *Plan) []*pipeline.Node {
	t.Helper()
	for _, sh := range p.Compiled.Trials {
		if len(sh) < 3 {
			t.Fatalf("%d shards", len(sh))
		}
		return sh
	}
	t.Fatal("no trial shards")
	return nil
}

// dropNode removes a stored node, so that the next run recomputes it from
// its inputs.
func dropNode(t *testing.T, s *pipeline.Store, n *pipeline.Node) {
	t.Helper()
	if err := os.RemoveAll(s.Dir(n.StoreKey())); err != nil {
		t.Fatal(err)
	}
}

// A shard whose meta.json lists no files, holding another shard's (valid)
// table, was verified and read by the estimate: the run published a
// summary and trials computed from doctored bytes.
func TestEmptyFileListIsNotPublished(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	want := publishedFiles(t, res.Dir)
	sh := firstShards(t, p)
	other, _ := os.ReadFile(filepath.Join(p.Store.Dir(sh[0].StoreKey()), stages.TrialsFile))
	victim := p.Store.Dir(sh[1].StoreKey())
	os.WriteFile(filepath.Join(victim, stages.TrialsFile), other, 0o644)
	mp := filepath.Join(victim, "meta.json")
	b, _ := os.ReadFile(mp)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["files"] = map[string]any{}
	b, _ = json.Marshal(m)
	os.WriteFile(mp, b, 0o644)
	// The estimate and summary are recomputed from the shards.
	est := p.Compiled.Summary.Inputs[0]
	dropNode(t, p.Store, est)
	dropNode(t, p.Store, p.Compiled.Summary)
	_, res = runSpec(t, path, o)
	samePublished(t, want, publishedFiles(t, res.Dir))
}

// A shard's folder copied under another shard's key was served as that
// shard (both pass their digests): the copy must be refused and the shard
// recomputed.
func TestNodeCopiedUnderAnotherKeyIsNotPublished(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	want := publishedFiles(t, res.Dir)
	sh := firstShards(t, p)
	dst := p.Store.Dir(sh[2].StoreKey())
	dropNode(t, p.Store, sh[2])
	if err := os.CopyFS(dst, os.DirFS(p.Store.Dir(sh[0].StoreKey()))); err != nil {
		t.Fatal(err)
	}
	dropNode(t, p.Store, p.Compiled.Summary.Inputs[0])
	dropNode(t, p.Store, p.Compiled.Summary)
	_, res = runSpec(t, path, o)
	samePublished(t, want, publishedFiles(t, res.Dir))
}

// gcFirst is an executor that runs `store gc --all --delete` from another
// process's view of the store before the nodes run, as a user might while
// a run waits.
type gcFirst struct {
	t     *testing.T
	store string
}

func (g gcFirst) Execute(ctx context.Context, steps []pipeline.Step, s *pipeline.Store, rep pipeline.Reporter) error {
	other := pipeline.NewStore(g.store)
	garbage, err := other.Garbage(nil, true)
	if err != nil {
		return err
	}
	if err := other.Remove(garbage); err != nil {
		return err
	}
	for _, x := range garbage {
		if strings.HasPrefix(x.What, "node ") {
			g.t.Errorf("gc removed %s while a run held it", x.Path)
		}
	}
	return pipeline.Local{Jobs: 2}.Execute(ctx, steps, s, rep)
}

// gc during a run deleted finished nodes the run still needed (the run
// then failed with "no such file"): the run's lease keeps them.
func TestGCDuringARunKeepsItsNodes(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	want := publishedFiles(t, res.Dir)
	dropNode(t, p.Store, p.Compiled.Summary.Inputs[0]) // the estimate runs again over the cached shards
	o.Executor = gcFirst{t: t, store: o.Store}
	_, res = runSpec(t, path, o)
	samePublished(t, want, publishedFiles(t, res.Dir))
}

// "N node(s) run" counted nodes another process computed. A second
// process that finds every node finished by the first counts them as
// computed elsewhere, not here.
func TestRunCountsComputedHereAndElsewhere(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	first, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Load(path, o) // planned before the first computes anything
	if err != nil {
		t.Fatal(err)
	}
	res, err := first.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Run != 6 || res.ComputedHere != 6 || res.ComputedElsewhere != 0 {
		t.Fatalf("first run: %d to run, %d here, %d elsewhere", res.Run, res.ComputedHere, res.ComputedElsewhere)
	}
	res, err = second.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Run != 6 || res.ComputedHere != 0 || res.ComputedElsewhere != 6 {
		t.Fatalf("second run: %d to run, %d here, %d elsewhere", res.Run, res.ComputedHere, res.ComputedElsewhere)
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, "manifest.json"))
	var m Manifest
	if json.Unmarshal(b, &m) != nil || m.Nodes.ComputedHere != 0 || m.Nodes.ComputedElsewhere != 6 {
		t.Fatalf("manifest counts %+v", m.Nodes)
	}
}

// A regular file at results/<name> was silently replaced by the results
// folder. It is refused as bad input, before anything runs, and kept.
func TestResultsPathThatIsAFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")}
	os.MkdirAll(o.Results, 0o755)
	mine := filepath.Join(o.Results, "small")
	os.WriteFile(mine, []byte("my notes"), 0o644)
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Execute(context.Background(), nil)
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), mine) || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("want an input error naming %s, got %v", mine, err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes" {
		t.Fatal("the file was replaced")
	}
	if _, err := os.Stat(o.Store); err == nil {
		t.Fatal("the store was created although the run was refused")
	}
}

// attack is one way of damaging a store entry.
type attack struct {
	name string
	do   func(t *testing.T, rng *rand.Rand, target, other, decoy string)
}

// storeAttacks flip, truncate, copy, delete, plant a file beside, and
// replace by a symbolic link (to a decoy folder outside the store) a store
// entry.
var storeAttacks = []attack{
	{"flip", func(t *testing.T, rng *rand.Rand, target, _, _ string) {
		if b, err := os.ReadFile(target); err == nil && len(b) > 0 {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			os.WriteFile(target, b, 0o644)
		}
	}},
	{"truncate", func(t *testing.T, rng *rand.Rand, target, _, _ string) {
		if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
			os.Truncate(target, rng.Int64N(st.Size()+1))
		}
	}},
	{"copy", func(t *testing.T, rng *rand.Rand, target, other, _ string) {
		st, err := os.Stat(other)
		if err != nil || other == target {
			return
		}
		if st.IsDir() {
			os.RemoveAll(target)
			os.CopyFS(target, os.DirFS(other))
		} else if b, err := os.ReadFile(other); err == nil {
			os.RemoveAll(target)
			os.WriteFile(target, b, 0o644)
		}
	}},
	{"delete", func(t *testing.T, rng *rand.Rand, target, _, _ string) { os.RemoveAll(target) }},
	{"plant", func(t *testing.T, rng *rand.Rand, target, other, _ string) {
		// A new file beside the target (in it, for a folder): a file its
		// folder's meta does not list, or a stray entry.
		b, err := os.ReadFile(other)
		if err != nil {
			b = []byte("planted")
		}
		dir := filepath.Dir(target)
		if st, err := os.Lstat(target); err == nil && st.IsDir() {
			dir = target
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("planted-%d", rng.IntN(1000))), b, 0o644)
	}},
	{"symlink", func(t *testing.T, rng *rand.Rand, target, other, decoy string) {
		// The decoy holds a copy of another entry: a link that leads out of
		// the store to plausible bytes.
		d := filepath.Join(decoy, fmt.Sprintf("d%d", rng.Int()))
		if st, err := os.Stat(other); err == nil && st.IsDir() {
			os.CopyFS(d, os.DirFS(other))
		} else if b, err := os.ReadFile(other); err == nil {
			os.WriteFile(d, b, 0o644)
		} else {
			return
		}
		os.RemoveAll(target)
		os.Symlink(d, target)
	}},
}

// storeEntries lists the files and folders of a store (not the root) in
// four groups, so that each kind of entry is attacked about as often: the
// top entries (prefix folders, tmp, memo, slots, the marker …), node
// folders, the files of nodes (meta.json included), and everything else
// (memo namespaces, memo and slot files).
func storeEntries(root string) [4][]string {
	var out [4][]string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.Split(rel, string(filepath.Separator))
		node := len(parts[0]) == 2 && len(parts) > 1 && len(parts[1]) == 64
		switch {
		case len(parts) == 1:
			out[0] = append(out[0], p)
		case node && len(parts) == 2:
			out[1] = append(out[1], p)
		case node:
			out[2] = append(out[2], p)
		default:
			out[3] = append(out[3], p)
		}
		return nil
	})
	return out
}

// pick draws an entry: a group at random, then an entry of it.
func pick(rng *rand.Rand, groups [4][]string) string {
	for {
		if g := groups[rng.IntN(len(groups))]; len(g) > 0 {
			return g[rng.IntN(len(g))]
		}
	}
}

// snapshot records every file under dir with its bytes.
func snapshot(dir string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

// Continuous attack: random flips, truncations, copies, deletions, planted
// files and symbolic links on random entries of a finished store. Every run after
// the damage must recompute what it cannot verify (publishing exactly the
// first run's tables) or refuse; it must never publish other bytes, and
// nothing outside the store may change. DPAUDIT_ATTACK_ROUNDS and
// DPAUDIT_ATTACK_SEED run it longer or elsewhere.
func TestRandomStoreCorruption(t *testing.T) {
	rounds, seed := 12, uint64(22)
	if v, err := strconv.Atoi(os.Getenv("DPAUDIT_ATTACK_ROUNDS")); err == nil {
		rounds = v
	}
	if v, err := strconv.ParseUint(os.Getenv("DPAUDIT_ATTACK_SEED"), 10, 64); err == nil {
		seed = v
	}
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	clean := filepath.Join(dir, "clean")
	_, res := runSpec(t, path, Options{Store: clean, Results: filepath.Join(dir, "r0"), Jobs: 2})
	want := publishedFiles(t, res.Dir)
	rng := rand.New(rand.NewPCG(seed, 0))
	outcomes := map[string]int{}
	for round := range rounds {
		store := filepath.Join(dir, fmt.Sprintf("s%d", round))
		if err := os.CopyFS(store, os.DirFS(clean)); err != nil {
			t.Fatal(err)
		}
		decoy := filepath.Join(dir, fmt.Sprintf("decoy%d", round))
		os.MkdirAll(decoy, 0o755)
		var did []string
		for range 1 + rng.IntN(3) {
			entries := storeEntries(store)
			a := storeAttacks[rng.IntN(len(storeAttacks))]
			target, other := pick(rng, entries), pick(rng, entries)
			a.do(t, rng, target, other, decoy)
			rel, _ := filepath.Rel(store, target)
			did = append(did, a.name+" "+rel)
		}
		outside := snapshot(decoy)
		o := Options{Store: store, Results: filepath.Join(dir, fmt.Sprintf("r%d", round+1)), Jobs: 2}
		p, err := Load(path, o)
		if err == nil {
			res, err = p.Execute(context.Background(), nil)
		}
		if err != nil {
			outcomes["refused"]++
			t.Logf("round %d (%s): refused: %v", round, strings.Join(did, "; "), err)
			if _, statErr := os.Stat(filepath.Join(o.Results, "small")); statErr == nil {
				t.Fatalf("round %d (%s): a refused run published", round, strings.Join(did, "; "))
			}
		} else {
			outcomes["published"]++
			got := publishedFiles(t, res.Dir)
			for name, b := range want {
				if !bytes.Equal(got[name], b) || len(got) != len(want) {
					t.Fatalf("round %d (%s): published %s differs from the clean run's", round, strings.Join(did, "; "), name)
				}
			}
		}
		if after := snapshot(decoy); len(after) != len(outside) {
			t.Fatalf("round %d (%s): files outside the store changed (%d before, %d after)", round, strings.Join(did, "; "), len(outside), len(after))
		}
		for f, b := range outside {
			if snapshot(decoy)[f] != b {
				t.Fatalf("round %d (%s): %s outside the store changed", round, strings.Join(did, "; "), f)
			}
		}
	}
	t.Logf("%d rounds: %v", rounds, outcomes)
}

// A prefix folder replaced by a link to a copy of itself outside the
// store: the run must not move or change anything out there (quarantining
// a node through the link would take it out of the copy).
func TestLinkedPrefixFolderIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	want := publishedFiles(t, res.Dir)
	sh := firstShards(t, p)
	prefix := filepath.Dir(p.Store.Dir(sh[1].StoreKey()))
	decoy := filepath.Join(dir, "decoy")
	if err := os.CopyFS(decoy, os.DirFS(prefix)); err != nil {
		t.Fatal(err)
	}
	outside := snapshot(decoy)
	os.RemoveAll(prefix)
	os.Symlink(decoy, prefix)
	_, res = runSpec(t, path, o)
	samePublished(t, want, publishedFiles(t, res.Dir))
	after := snapshot(decoy)
	if len(after) != len(outside) {
		t.Fatalf("files outside the store: %d before, %d after", len(outside), len(after))
	}
	for f, b := range outside {
		if after[f] != b {
			t.Fatalf("%s outside the store changed", f)
		}
	}
}

// A trial shard whose folder and meta hold some other file but no trials
// table was planned as cached, and the publish then failed ("no
// trials.parquet in its meta"). The nodes a run publishes declare the file
// they must hold, so such a copy is corrupt: recomputed, and published.
func TestPublishedNodesDeclareTheirFile(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r"), Jobs: 2}
	p, res := runSpec(t, path, o)
	want := publishedFiles(t, res.Dir)
	victim := p.Store.Dir(firstShards(t, p)[1].StoreKey())
	b, _ := os.ReadFile(filepath.Join(victim, stages.TrialsFile))
	os.Remove(filepath.Join(victim, stages.TrialsFile))
	os.WriteFile(filepath.Join(victim, "other.parquet"), b, 0o644)
	mp := filepath.Join(victim, "meta.json")
	mb, _ := os.ReadFile(mp)
	var m map[string]any
	json.Unmarshal(mb, &m)
	files := m["files"].(map[string]any)
	files["other.parquet"] = files[stages.TrialsFile]
	delete(files, stages.TrialsFile)
	mb, _ = json.Marshal(m)
	os.WriteFile(mp, mb, 0o644)
	_, res = runSpec(t, path, o)
	samePublished(t, want, publishedFiles(t, res.Dir))
}
