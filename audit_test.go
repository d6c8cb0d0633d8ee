package dpaudit

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
)

const idealSpec = `name: ideal
seed: 3
model: {arch: ideal}
dpsgd: {noise_multiplier: 1.6267, sampling_rate: 0.1, steps: 100}
audit: {threat_model: malicious_dataset, trials: 6000, shard_size: %d}
`

// trialTable reads every part of a point's trials in part order.
func trialTable(t *testing.T, dir string) map[string][]any {
	t.Helper()
	points, _ := filepath.Glob(filepath.Join(dir, "trials", "point=*"))
	if len(points) != 1 {
		t.Fatalf("%d point folders", len(points))
	}
	parts, _ := filepath.Glob(filepath.Join(points[0], "part-*.parquet"))
	sort.Strings(parts)
	cols := map[string][]any{}
	for _, p := range parts {
		tb, err := pipeline.ReadParquet(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tb.Columns {
			cols[c.Name] = append(cols[c.Name], c.Values...)
		}
	}
	return cols
}

// An ideal-mechanism audit runs end to end; its trials land in Hive
// partitions; the results do not depend on the shard size or -j; the lower
// bound stays below the accountant's ε (note §6.3: q = 0.1, T = 100,
// σ = 1.6267 has exact ε 3.129).
func TestIdealAuditShardAndJobsIndependent(t *testing.T) {
	dir := t.TempDir()
	var sums [][]byte
	var tables []map[string][]any
	for i, c := range []struct{ shard, jobs int }{{1000, 1}, {2500, 2}} {
		path := writeSpec(t, dir, fmt.Sprintf("ideal%d.yaml", i), fmt.Sprintf(idealSpec, c.shard))
		o := Options{Store: filepath.Join(dir, fmt.Sprint("store", i)), Results: filepath.Join(dir, fmt.Sprint("results", i)), Jobs: c.jobs}
		_, res := runSpec(t, path, o)
		b, _ := os.ReadFile(res.Summary)
		sums = append(sums, b)
		tables = append(tables, trialTable(t, res.Dir))
		parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "part-*.parquet"))
		if want := (6000 + c.shard - 1) / c.shard; len(parts) != want {
			t.Fatalf("shard %d: %d parts, want %d", c.shard, len(parts), want)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatal("the summary depends on the shard size or -j")
	}
	for _, col := range []string{"trial", "world", "llr", "projection", "watermark"} {
		a, b := tables[0][col], tables[1][col]
		if len(a) != 6000 || len(b) != 6000 {
			t.Fatalf("%s: %d and %d rows", col, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s[%d] differs between shardings: %v vs %v", col, i, a[i], b[i])
			}
		}
	}
	tb, _ := pipeline.ReadParquet(filepath.Join(dir, "results0", "ideal", "summary.parquet"))
	lb, acc := tb.Col("epsilon_lb").Float(0), tb.Col("epsilon_accountant").Float(0)
	if math.Abs(acc-3.129) > 0.01 {
		t.Fatalf("epsilon_accountant %v, want 3.129 (note §6.3)", acc)
	}
	if !(lb > 0 && lb < acc) || tb.Col("violation").Values[0] != false || tb.Col("threshold_method").Values[0] != "split" {
		t.Fatalf("ε_lb %v vs accountant %v, violation %v", lb, acc, tb.Col("violation").Values[0])
	}
	worlds := tables[0]["world"]
	for i, w := range worlds {
		if w != int64(i%2) {
			t.Fatalf("trial %d in world %v: worlds must alternate", i, w)
		}
	}
}

// The find-a-bug example must be flagged: training under-noises and the
// audit proves ε above the claim.
func TestFindABugExampleIsFlagged(t *testing.T) {
	dir := t.TempDir()
	_, res := runSpec(t, "examples/audit/find-a-bug.yaml", Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	vs, err := Violations(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Game != "membership" || vs[0].Column != "violation" || !(vs[0].Value > vs[0].Limit) ||
		!strings.Contains(vs[0].Message, "split thresholds") || !strings.Contains(vs[0].Claimed, "σ=1.627") || !strings.Contains(vs[0].Trained, "σ=0.6") ||
		len(vs[0].Notes) != 1 || !strings.HasPrefix(vs[0].Notes[0], "family-wise correction: holm") {
		t.Fatalf("violations %+v", vs)
	}
	// Without the bug there is none.
	src, _ := os.ReadFile("examples/audit/find-a-bug.yaml")
	honest := strings.Replace(string(src), "  claim:\n    noise_multiplier: 1.6267\n", "", 1)
	honest = strings.Replace(honest, "noise_multiplier: 0.6", "noise_multiplier: 1.6267", 1)
	path := writeSpec(t, dir, "honest.yaml", honest)
	_, res = runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	if vs, _ := Violations(res.Summary); len(vs) != 0 {
		t.Fatalf("honest training flagged: %+v", vs)
	}
}

// The six adversaries of Nasr et al. on a small trained model at ε = 8 (a
// large ε so that 1000 trials separate the strong adversaries), checked
// for their wiring: each adversary's AUC is above ½ at 95%
// (one-sided, Hanley–McNeil) and its ε lower bound reaches a minimum, and
// the same check on the same trials with the distinguisher's direction
// flipped fails (so a flipped loss or watermark direction cannot pass
// unnoticed). Every bound stays below the accountant's ε and below 4.91,
// the largest bound 250 + 250 evaluation trials can give (two-sided CP,
// note §8 item 2 gives 4.9056 for 500 + 500). The Fig. 1 ordering is
// tested on AUCs with intervals (not on point estimates, which can be
// +Inf): the white-box adversaries (gradient, malicious dataset) are
// significantly above each black-box one, and the malicious dataset is
// not significantly below the gradient canary. Within the black-box
// group no order is asserted: on this setup the adaptive poison is not
// above the intermediate one (measured AUC 0.608 vs 0.637).
func TestSixAdversariesOrdering(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 6 × 1000 small models")
	}
	dir := t.TempDir()
	path := writeSpec(t, dir, "six.yaml", `name: six
seed: 9
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd:
  noise_multiplier: "=calibrate(8, dpsgd.delta, dpsgd.sampling_rate, dpsgd.steps)"
  sampling_rate: 0.05
  steps: 100
  learning_rate: 0.5
crafter: {kind: random_record}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, trials: 1000}
sweep:
  zip:
    audit.threat_model: [api_access, static_poison, intermediate_poison, adaptive_poison, gradient, malicious_dataset]
    crafter.kind: [random_record, static_poison, static_poison, adaptive_poison, gradient_canary, malicious_dataset]
    distinguisher.kind: [loss_threshold, loss_threshold, intermediate_loss, intermediate_loss, watermark, watermark]
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	tb, _ := pipeline.ReadParquet(res.Summary)
	// Minimum ε_lb per adversary: about half of what seed 9 measured for
	// the white-box ones (1.45, 1.47); the black-box adversaries' bounds
	// are 0–0.3 at 1000 trials with a split and move with the crafted
	// record, so only their direction is checked. API access is near
	// chance (Nasr et al.: "not significantly better than random"; AUC
	// 0.53 here), so its direction is checked on the point AUC (z = 0),
	// the others' at 95% one-sided (z = 1.645).
	minLB := []float64{0, 0, 0, 0, 0.7, 0.7}
	z := []float64{0, 1.645, 1.645, 1.645, 1.645, 1.645}
	var aucs []float64
	for i := 0; i < tb.Rows(); i++ {
		lb, acc, a := tb.Col("epsilon_lb").Float(i), tb.Col("epsilon_accountant").Float(i), tb.Col("auc").Float(i)
		aucs = append(aucs, a)
		tm := tb.Col("threat_model").Values[i]
		t.Logf("%-20s ε_lb %.3f  ε̂ %.3f  AUC %.3f  accountant %.3f", tm, lb, tb.Col("epsilon_point").Float(i), a, acc)
		if !(lb <= acc) || lb > 4.91 || tb.Col("violation").Values[i] != false {
			t.Errorf("row %d: ε_lb %v above the accountant's %v or the trial cap", i, lb, acc)
		}
		if !wired(a, 500, 500, lb, minLB[i], z[i]) {
			t.Errorf("%s: AUC %.3f, ε_lb %.3f: wrong direction or too weak (minimum %.2f)", tm, a, lb, minLB[i])
		}
		// The same trials with the direction flipped must fail the check.
		scores, worlds := pointTrials(t, res.Dir, tb.Col("point_id").Values[i].(string), tb.Col("audit_score").Values[i].(string))
		o := audit.DefaultOptions()
		o.LowerMeansWorld1 = tb.Col("distinguisher_kind").Values[i] == "watermark" // flipped: losses are low in world 1, watermark scores high
		o.Seed = 1
		f, err := audit.Estimate(scores, worlds, o)
		if err != nil {
			t.Fatal(err)
		}
		if wired(f.AUC, 500, 500, f.EpsilonLB, minLB[i], z[i]) {
			t.Errorf("%s: flipped direction passes the wiring check (AUC %.3f, ε_lb %.3f)", tm, f.AUC, f.EpsilonLB)
		}
	}
	se := func(i int) float64 { return aucSE(aucs[i], 500, 500) }
	for _, w := range []int{4, 5} {
		for b := 0; b < 4; b++ {
			if !(aucs[w]-aucs[b] > 1.96*math.Hypot(se(w), se(b))) {
				t.Errorf("white-box adversary %d (AUC %.3f) not significantly above black-box %d (%.3f)", w, aucs[w], b, aucs[b])
			}
		}
	}
	if aucs[4]-aucs[5] > 1.96*math.Hypot(se(4), se(5)) {
		t.Errorf("malicious dataset (AUC %.3f) significantly below the gradient canary (%.3f)", aucs[5], aucs[4])
	}
}

// pointTrials reads one point's trials (repeat 0) in trial order.
func pointTrials(t *testing.T, dir, id, score string) ([]float64, []bool) {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, "trials", "point="+id, "part-*.parquet"))
	sort.Strings(parts)
	var scores []float64
	var worlds []bool
	for _, p := range parts {
		tb, err := pipeline.ReadParquet(p)
		if err != nil {
			t.Fatal(err)
		}
		for k := range tb.Col("trial").Values {
			if tb.Col("repeat").Values[k] != int64(0) {
				continue
			}
			scores = append(scores, tb.Col(score).Float(k))
			worlds = append(worlds, tb.Col("world").Values[k] == int64(1))
		}
	}
	return scores, worlds
}

// A crafter and distinguisher that need more than the threat model grants
// are a positioned spec error.
func TestThreatModelMismatch(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "tm.yaml", `name: tm
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.05, steps: 10}
crafter: {kind: gradient_canary}
distinguisher: {kind: watermark}
audit: {threat_model: api_access, trials: 10}
`)
	_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "tm.yaml:7:23: audit.threat_model:") {
		t.Fatalf("got %v", err)
	}
}

// An interrupted audit resumes from its finished shards.
func TestAuditResumesFromShards(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "r.yaml", `name: r
seed: 4
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.05, steps: 50}
crafter: {kind: gradient_canary}
distinguisher: {kind: watermark}
audit: {threat_model: gradient, trials: 160, shard_size: 16}
`)
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 1}
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rep := &cancelAfter{n: 4, cancel: cancel}
	if _, err := p.Execute(ctx, rep); err == nil {
		t.Fatal("the interrupted run did not report its interruption")
	}
	p2, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	run, cached := pipeline.Counts(p2.Steps)
	if cached < 4 || run == 0 {
		t.Fatalf("after the interruption: %d to run, %d cached", run, cached)
	}
	res, err := p2.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	_, refRes := runSpec(t, path, Options{Store: filepath.Join(ref, "store"), Results: filepath.Join(ref, "results")})
	a, _ := os.ReadFile(res.Summary)
	b, _ := os.ReadFile(refRes.Summary)
	if !bytes.Equal(a, b) {
		t.Fatal("resumed audit differs from an uninterrupted one")
	}
}

// cancelAfter cancels the run after n nodes have finished.
type cancelAfter struct {
	n      int32
	done   atomic.Int32
	cancel func()
}

func (c *cancelAfter) Start(int, int)             {}
func (c *cancelAfter) NodeStarted(*pipeline.Node) {}
func (c *cancelAfter) NodeFinished(*pipeline.Node, time.Duration, error) {
	if c.done.Add(1) == c.n {
		c.cancel()
	}
}
func (c *cancelAfter) Warning(*pipeline.Node, string) {}
func (c *cancelAfter) Finish()                        {}

// A Bonferroni scan uses the grid fixed in the spec.
func TestBonferroniGridFromSpec(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "b.yaml", `name: b
model: {arch: ideal}
dpsgd: {noise_multiplier: 1.0, sampling_rate: 0.1, steps: 100}
audit: {threat_model: malicious_dataset, trials: 4000, threshold: bonferroni, bonferroni_grid: [0.5, 2, 4]}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	tb, _ := pipeline.ReadParquet(res.Summary)
	th := tb.Col("threshold").Float(0)
	if tb.Col("threshold_method").Values[0] != "bonferroni (fixed grid)" || (th != 0.5 && th != 2 && th != 4 && !math.IsInf(th, 1)) {
		t.Fatalf("method %v, threshold %v not from the grid", tb.Col("threshold_method").Values[0], th)
	}
}

// audit.splits: k runs the split estimate over k seeded splits,
// labelled so and still valid.
func TestSplitsFromSpec(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "s.yaml", `name: s
model: {arch: ideal}
dpsgd: {noise_multiplier: 1.0, sampling_rate: 0.1, steps: 100}
audit: {threat_model: malicious_dataset, trials: 4000, splits: 3}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	tb, _ := pipeline.ReadParquet(res.Summary)
	if m := tb.Col("threshold_method").Values[0]; m != "split (best of 3, bonferroni)" {
		t.Fatalf("threshold_method %v, want the 3-split label", m)
	}
	if v := tb.Col("estimate_valid").Values[0]; v != true {
		t.Fatalf("estimate_valid %v", v)
	}
}

// Bad audit blocks are positioned input errors (exit 2), all reported at
// once: a claim no accountant here can analyse (and which accountant it
// would need), repeats < 1, an unknown family-wise correction, a
// Bonferroni grid of one threshold, both spellings of the claimed σ.
func TestAuditClaimBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, audit, want string }{
		{"shuffle claim", "claim: {sampling: shuffle}", "b.yaml:5:63: audit.claim.sampling: the claim (shuffled batches) cannot be accounted: no tight upper bound on the privacy of shuffled batches is known"},
		{"unknown sampling", "claim: {sampling: balls}", "audit.claim.sampling:"},
		{"repeats", "repeats: 0", "b.yaml:5:54: audit.repeats: must be >= 1"},
		{"splits", "splits: 0", "b.yaml:5:53: audit.splits: must be >= 1"},
		{"familywise", "familywise: bonferroni", "b.yaml:5:57: audit.familywise:"},
		{"grid", "threshold: bonferroni, bonferroni_grid: [1]", "audit.bonferroni_grid: needs at least 2 thresholds"},
		{"both", "claimed_noise_multiplier: 1, claim: {noise_multiplier: 2}", "audit.claimed_noise_multiplier: give claim.noise_multiplier"},
	}
	for _, c := range cases {
		path := writeSpec(t, dir, "b.yaml", fmt.Sprintf(`name: b
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.05, steps: 10, sampling: poisson}
audit: {threat_model: gradient, trials: 10, %s}
crafter: {kind: gradient_canary}
distinguisher: {kind: watermark}
`, c.audit))
		_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an input error containing %q", c.name, err, c.want)
		}
	}
	// Training with shuffled batches inherits a shuffle claim: the error
	// points at dpsgd.sampling and says how to audit against Poisson.
	path := writeSpec(t, dir, "s.yaml", `name: s
dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.05, steps: 10, sampling: shuffle}
audit: {threat_model: gradient, trials: 10}
crafter: {kind: gradient_canary}
distinguisher: {kind: watermark}
`)
	_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "dpsgd.sampling: the claim (shuffled batches)") || !strings.Contains(err.Error(), "audit.claim.sampling: poisson") {
		t.Errorf("shuffled training without a claim: %v", err)
	}
}
