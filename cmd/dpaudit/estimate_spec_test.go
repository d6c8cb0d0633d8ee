package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
)

// runSpec runs a spec and returns its summary.
func runSpec(t *testing.T, spec string) *pipeline.Table {
	t.Helper()
	dir := t.TempDir()
	p, err := dpaudit.Load(spec, dpaudit.Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := pipeline.ReadParquet(filepath.Join(res.Dir, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// compareRow runs dpaudit estimate --table summary with args on a score
// file and compares every column it prints with row i of a spec's
// summary, exactly; want lists columns that must be among them.
func compareRow(t *testing.T, sum *pipeline.Table, i int, want []string, args ...string) {
	t.Helper()
	code, out, errs := cli(t, append(append([]string{"estimate"}, args...), "--table", "summary", "--format", "json")...)
	if code != 0 {
		t.Fatalf("estimate %v: exit %d: %s", args, code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	compared := map[string]bool{}
	for name, v := range got {
		c := sum.Col(name)
		if c == nil {
			t.Errorf("row %d: estimate wrote %s, the spec's summary has no such column", i, name)
			continue
		}
		compared[name] = true
		if g, w := cellText(v), cellText(c.Values[i]); g != w {
			t.Errorf("row %d: %s: estimate %s, spec %s", i, name, g, w)
		}
	}
	for _, w := range want {
		if !compared[w] {
			t.Errorf("row %d: column %s was not compared (estimate wrote %d columns)", i, w, len(got))
		}
	}
}

// The scores example's spec runs what dpaudit estimate runs: on each of
// its tables, the command with the same claim and the row's split seed
// prints the spec's summary row, every column to the last digit.
func TestSpecScoresEqualEstimate(t *testing.T) {
	sum := runSpec(t, "../../examples/scores/gaussian-tables.yaml")
	if sum.Rows() != 3 {
		t.Fatalf("%d rows, want 3", sum.Rows())
	}
	for i := range sum.Rows() {
		file := sum.Col("scores_file").Values[i].(string)
		sigma := sum.Col("noise_multiplier").Float(i)
		compareRow(t, sum, i, append(classicColumns, "split_seed", "violation_p_value", "layout"),
			filepath.Join("../../examples/scores", file), "--noise-multiplier", fmt.Sprint(sigma), "--sampling-rate", "1", "--steps", "1",
			"--split-seed", sum.Col("split_seed").Values[i].(string))
	}
}

// A one-run table (a canary column) and a per-user table (three records
// per user of one run, averaged) against a claimed ε without a dpsgd
// block: the one-run estimators, the aggregation and the claim test
// agree with the command too.
func TestSpecScoresOneRunAndUsers(t *testing.T) {
	dir := t.TempDir()
	r := rng.New(3, "test")
	var one, users strings.Builder
	one.WriteString("canary,member,score\n")
	users.WriteString("user,member,score\n")
	for i := range 1000 {
		m := r.IntN(2)
		fmt.Fprintf(&one, "c%d,%d,%.5f\n", i, m, 1.5*float64(m)+r.NormFloat64())
		if i < 600 {
			for range 3 {
				fmt.Fprintf(&users, "u%d,%d,%.5f\n", i, i%2, float64(i%2)+r.NormFloat64())
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "one.csv"), []byte(one.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "users.csv"), []byte(users.String()), 0o644)
	spec := func(name, source string) string {
		path := filepath.Join(dir, name+".yaml")
		os.WriteFile(path, []byte("name: "+name+`
seed: 9
audit:
  one_run: {steinke_guesses: 200}
  source: {`+source+`, claim_epsilon: 1, delta: 1.0e-6}
`), 0o644)
		return path
	}
	claim := []string{"--claim-epsilon", "1", "--delta", "1e-6", "--steinke-guesses", "200"}
	sum := runSpec(t, spec("one", "scores: one.csv"))
	oneRun := []string{"one_run_epsilon_lb", "one_run_fdp_epsilon_lb", "one_run_os_epsilon_lb", "epsilon_accountant", "violation_p_value", "layout", "split_seed"}
	compareRow(t, sum, 0, oneRun,
		append([]string{filepath.Join(dir, "one.csv"), "--split-seed", sum.Col("split_seed").Values[0].(string)}, claim...)...)
	sum = runSpec(t, spec("users", "scores: users.csv, group: user, aggregate: mean"))
	compareRow(t, sum, 0, append(oneRun, "estimate_aggregate", "score_unit"),
		append([]string{filepath.Join(dir, "users.csv"), "--split-seed", sum.Col("split_seed").Values[0].(string), "--group", "user", "--aggregate", "mean"}, claim...)...)
}

// A table scored for a canary plan, in a spec: joined to the plan's bits
// as --plan joins it (the row equals the command's), and a table whose
// bits disagree with the plan is a spec error at audit.source.plan.
func TestSpecScoresWithPlan(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.parquet")
	if code, _, errs := cli(t, "canaries", "make", "--crafter", "noise_input", "--shape", "1,4,4", "--num-classes", "3", "--count", "400", "--seed", "1", "--out", plan); code != 0 {
		t.Fatal(errs)
	}
	scoresForPlan(t, plan, filepath.Join(dir, "good.csv"), 2, false, nil)
	scoresForPlan(t, plan, filepath.Join(dir, "flipped.csv"), 2, true, func(r [][3]string) [][3]string {
		r[3][1] = map[string]string{"0": "1", "1": "0"}[r[3][1]]
		return r
	})
	spec := func(name string) string {
		path := filepath.Join(dir, name+".yaml")
		os.WriteFile(path, []byte("name: "+name+"\nseed: 4\naudit:\n  source: {scores: "+name+".csv, plan: plan.parquet, claim_epsilon: 0.5}\n"), 0o644)
		return path
	}
	sum := runSpec(t, spec("good"))
	compareRow(t, sum, 0, []string{"one_run_epsilon_lb", "one_run_fdp_epsilon_lb", "epsilon_accountant", "violation_p_value", "layout"},
		filepath.Join(dir, "good.csv"), "--plan", plan, "--claim-epsilon", "0.5", "--split-seed", sum.Col("split_seed").Values[0].(string))

	_, err := dpaudit.Load(spec("flipped"), dpaudit.Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	if err == nil || !dpaudit.IsInputError(err) || !strings.Contains(err.Error(), "flipped.yaml:4:") ||
		!strings.Contains(err.Error(), "audit.source.plan") || !strings.Contains(err.Error(), "disagree with the plan") {
		t.Fatalf("a table that disagrees with its plan: %v", err)
	}
}

// A spec may sweep the estimator's options over one score table: the
// summary's option columns are named estimate_*, so they do not clash
// with the swept key's own column (split_fraction), and each row is the
// command's with that option.
func TestSpecScoresSweepOptions(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../examples/scores/sigma-1.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sigma-1.csv"), b, 0o644)
	spec := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(spec, []byte(`name: sweep
seed: 1
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 1, delta: 1.0e-5}
audit:
  source: {scores: sigma-1.csv}
sweep:
  grid:
    audit.split_fraction: [0.2, 0.3]
`), 0o644)
	sum := runSpec(t, spec)
	if sum.Rows() != 2 {
		t.Fatalf("%d rows, want 2", sum.Rows())
	}
	for i := range 2 {
		sf := sum.Col("split_fraction").Float(i)
		if got := sum.Col("estimate_split_fraction").Float(i); got != sf {
			t.Errorf("row %d: estimate_split_fraction %v, swept split_fraction %v", i, got, sf)
		}
		compareRow(t, sum, i, []string{"epsilon_lb", "estimate_split_fraction"}, filepath.Join(dir, "sigma-1.csv"),
			"--noise-multiplier", "1", "--sampling-rate", "1", "--steps", "1",
			"--split-fraction", fmt.Sprint(sf), "--split-seed", sum.Col("split_seed").Values[i].(string))
	}
}

// writeParts writes the rows of a CSV score table (member, score) as k
// Parquet parts part-0.parquet … in dir, in row order.
func writeParts(t *testing.T, csvPath, dir string, k int) {
	t.Helper()
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	os.MkdirAll(dir, 0o755)
	per := (len(lines) + k - 1) / k
	for p := range k {
		tb := &pipeline.Table{}
		var member, score []any
		for _, l := range lines[p*per : min((p+1)*per, len(lines))] {
			m, s, _ := strings.Cut(l, ",")
			var x float64
			fmt.Sscan(s, &x)
			member, score = append(member, m == "1"), append(score, x)
		}
		tb.Add("member", pipeline.Bool, member)
		tb.Add("score", pipeline.Float64, score)
		if err := pipeline.WriteParquet(filepath.Join(dir, fmt.Sprintf("part-%d.parquet", p)), tb); err != nil {
			t.Fatal(err)
		}
	}
}

// audit.source.scores may be a folder of Parquet parts: read in name
// order as one table (the row equals dpaudit estimate's on the folder),
// identified by the digest over its parts (in the summary, the manifest
// and the node's key), so that changing one part re-runs the point and
// plan says which table changed.
func TestSpecScoresFolderOfParts(t *testing.T) {
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	writeParts(t, "../../examples/scores/sigma-1.csv", parts, 3)
	spec := filepath.Join(dir, "parts.yaml")
	os.WriteFile(spec, []byte(`name: parts
seed: 1
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 1, delta: 1.0e-5}
audit:
  source: {scores: parts}
`), 0o644)
	o := dpaudit.Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	run := func() (*dpaudit.Plan, *pipeline.Table) {
		t.Helper()
		p, err := dpaudit.Load(spec, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := pipeline.ReadParquet(filepath.Join(res.Dir, "summary.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return p, sum
	}
	estimateRuns := func(p *dpaudit.Plan) int {
		n := 0
		for _, st := range p.Steps {
			if st.Node.Kind == "score_estimate" && st.Status == pipeline.Run {
				n++
			}
		}
		return n
	}
	p, sum := run()
	want, _, err := scorefile.Digest(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Col("scores_sha256").Values[0]; got != want {
		t.Errorf("scores_sha256 %v, want the digest over the parts %s", got, want)
	}
	if len(p.DataFiles) != 1 || p.DataFiles[0].SHA256 != want {
		t.Errorf("data files %+v, want the folder with sha256 %s", p.DataFiles, want)
	}
	compareRow(t, sum, 0, []string{"epsilon_lb", "split_seed"}, parts, "--noise-multiplier", "1", "--sampling-rate", "1", "--steps", "1",
		"--split-seed", sum.Col("split_seed").Values[0].(string))
	if p, _ := run(); estimateRuns(p) != 0 {
		t.Errorf("an unchanged folder re-ran its estimate")
	}
	// Change one score in the middle part: the estimate runs again.
	tb, err := pipeline.ReadParquet(filepath.Join(parts, "part-1.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	tb.Col("score").Values[0] = tb.Col("score").Float(0) + 1
	os.Remove(filepath.Join(parts, "part-1.parquet"))
	if err := pipeline.WriteParquet(filepath.Join(parts, "part-1.parquet"), tb); err != nil {
		t.Fatal(err)
	}
	p, err = dpaudit.Load(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	if estimateRuns(p) != 1 {
		t.Errorf("changing a part did not re-run the estimate")
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "changed since the last run") {
		t.Errorf("plan notes %q do not say the table changed", p.Notes)
	}
}
