package dpaudit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	attackpkg "github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
)

var updateScores = flag.Bool("update-scores", false, "rewrite the score tables of examples/scores from their generator")

// scoreTables are examples/scores' tables: the attack scores of the
// Gaussian mechanism with sensitivity 1 and noise σ, as a user's own
// pipeline would hand them over — 2000 independent trials, alternately
// without (member 0) and with (member 1) the target, each scored by the
// released value x = member + σ·z (the Neyman–Pearson optimal score: the
// log-likelihood ratio is increasing in x). The mechanism is 1/σ-GDP.
var scoreTables = []struct {
	file  string
	sigma float64
}{{"sigma-0.5.csv", 0.5}, {"sigma-1.csv", 1}, {"sigma-2.csv", 2}}

func scoreTableCSV(sigma float64) []byte {
	r := rng.New(1, "examples/scores", sigma)
	var b bytes.Buffer
	b.WriteString("member,score\n")
	for i := range 2000 {
		member := i % 2
		fmt.Fprintf(&b, "%d,%.6f\n", member, float64(member)+sigma*r.NormFloat64())
	}
	return b.Bytes()
}

// The example's score tables are what scoreTableCSV writes (regenerate
// them with go test . -run TestScoresExampleFiles -update-scores).
func TestScoresExampleFiles(t *testing.T) {
	for _, st := range scoreTables {
		path := filepath.Join("examples", "scores", st.file)
		want := scoreTableCSV(st.sigma)
		if *updateScores {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s is stale; regenerate it with: go test . -run TestScoresExampleFiles -update-scores", path)
		}
	}
}

// A score table in a spec: bad columns are a positioned spec error (exit
// code 2, nothing run); a run records the table's digest in the manifest,
// and plan notes a table that changed since, with the node it re-runs.
func TestScoresSpecDigestAndErrors(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "scores.csv")
	fixed := func(b []byte) []byte { // whole lines only
		return b[:bytes.LastIndexByte(b, '\n')+1]
	}
	os.WriteFile(table, fixed(scoreTableCSV(1)[:2000]), 0o644)
	path := filepath.Join(dir, "s.yaml")
	write := func(source string) {
		os.WriteFile(path, []byte("name: s\nseed: 1\ndpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 1}\naudit:\n  source: {"+source+"}\n"), 0o644)
	}
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}

	write("scores: scores.csv, member_column: in_training")
	_, err := Load(path, o)
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "s.yaml:5:") ||
		!strings.Contains(err.Error(), "audit.source.scores") || !strings.Contains(err.Error(), "in_training") {
		t.Fatalf("a missing column: %v, want a positioned input error naming it", err)
	}

	write("scores: scores.csv")
	_, res := runSpec(t, path, o)
	m, err := readManifest(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := datasets.Digest(table)
	if len(m.DataFiles) != 1 || m.DataFiles[0].SHA256 != sum || m.DataFiles[0].Path != table {
		t.Fatalf("manifest data files %+v, want %s with %s", m.DataFiles, table, sum)
	}
	os.WriteFile(table, fixed(scoreTableCSV(1)[:2400]), 0o644)
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "scores.csv changed since the last run (sha256 "+sum[:12]) {
		t.Fatalf("notes %v", p.Notes)
	}
	for _, st := range p.Steps {
		if st.Node.Kind == "score_estimate" && (st.Status != pipeline.Run || st.Note != "data file scores.csv changed since the last run") {
			t.Errorf("score_estimate: %s %s [%s]", st.Status, st.Reason, st.Note)
		}
	}
}

// Bad score tables in a spec (audit.source): each is a positioned input
// error when the spec is loaded — a bad cell naming its line, a single
// class, a canary scored twice, a ragged row, a plan that disagrees — and
// nothing is cached or published.
func TestScoresSpecBadInput(t *testing.T) {
	dir := t.TempDir()
	tables := map[string]string{
		"nan.csv":    "member,score\n1,0\n0,NaN\n1,2\n0,1\n",
		"text.csv":   "member,score\n1,0\n0,x\n",
		"one.csv":    "member,score\n1,0\n1,1\n1,2\n",
		"dup.csv":    "member,score,canary\n1,0,a\n0,1,b\n1,2,a\n0,3,c\n",
		"ragged.csv": "member,score\n1,0\n0,1,2\n",
		"plan.csv":   "canary,member,score\n0,1,0.5\n1,0,0.1\n",
	}
	for name, body := range tables {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	// A two-canary plan whose bits the table's member column contradicts
	// for at least one canary (the bits are a seeded coin; the table
	// claims canary 0 in and canary 1 out).
	plan := filepath.Join(dir, "p.parquet")
	for seed := uint64(0); ; seed++ {
		p, err := attackpkg.MakePlan(attackpkg.PlanConfig{Parameters: 10, Count: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if !p.Member[0] || p.Member[1] {
			if _, err := planfile.Write(plan, p, planfile.Manifest{}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	for _, c := range []struct{ source, want string }{
		{"scores: nan.csv", "line 3: score is NaN"},
		{"scores: text.csv", `"x" is not a number`},
		{"scores: one.csv", "no non-members"},
		{"scores: dup.csv", `duplicate canary id "a"`},
		{"scores: ragged.csv", "the row has 3 fields, the header has 2"},
		{"scores: plan.csv, plan: p.parquet", "disagree with the plan"},
		{"scores: missing.csv", "does not exist"},
	} {
		path := filepath.Join(dir, "s.yaml")
		os.WriteFile(path, []byte("name: s\nseed: 1\ndpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 1}\naudit:\n  source: {"+c.source+"}\n"), 0o644)
		o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
		_, err := Load(path, o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "s.yaml:5:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a positioned input error with %q", c.source, err, c.want)
		}
		for _, d := range []string{o.Store, o.Results} {
			if _, serr := os.Stat(d); serr == nil {
				t.Errorf("%s: %s was created", c.source, d)
			}
		}
	}
}
