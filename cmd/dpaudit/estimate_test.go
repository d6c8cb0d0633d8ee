package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// writeScoresCSV writes a score table whose member scores are N(shift, 1)
// and non-member scores N(0, 1): runs × perRun rows (runs = 0: no run
// column, one row per trial when canaries is false).
func writeScoresCSV(t *testing.T, dir, name string, runs, perRun int, canaries bool, shift float64) string {
	t.Helper()
	r := rng.New(1, "test", name)
	var b strings.Builder
	head := []string{"member", "score"}
	if canaries {
		head = append(head, "canary")
	}
	if runs > 0 {
		head = append(head, "run")
	}
	b.WriteString(strings.Join(head, ",") + "\n")
	for run := range max(runs, 1) {
		for c := range perRun {
			m := r.IntN(2)
			s := r.NormFloat64() + shift*float64(m)
			row := []string{fmt.Sprint(m), fmt.Sprint(s)}
			if canaries {
				row = append(row, fmt.Sprintf("c%d", c))
			}
			if runs > 0 {
				row = append(row, fmt.Sprint(run))
			}
			b.WriteString(strings.Join(row, ",") + "\n")
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEstimateLayouts(t *testing.T) {
	dir := t.TempDir()
	classic := writeScoresCSV(t, dir, "classic.csv", 0, 2000, false, 3)
	oneRun := writeScoresCSV(t, dir, "onerun.csv", 0, 500, true, 3)
	multi := writeScoresCSV(t, dir, "multi.csv", 40, 25, true, 3)
	for _, c := range []struct {
		path, layout string
		want, not    []string
	}{
		{classic, "layout:     classic", []string{"eps_delta_cp", "gdp_fit", "--split-seed 0"}, []string{"one_run"}},
		{oneRun, "layout:     one_run", []string{"one_run_fdp", "one_run_order_stats", "skipped:    eps_delta_cp"}, []string{"--split-seed"}},
		{multi, "layout:     multi_run", []string{"eps_delta_cp", "one_run_fdp", "one canary per run (40 runs)", "bonferroni over 2 tests"}, nil},
	} {
		code, out, errs := cli(t, "estimate", c.path, "--claim-epsilon", "0.5", "--os-family", "none")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.path, code, errs)
		}
		if !strings.Contains(out, c.layout) || !strings.Contains(out, "VIOLATION") {
			t.Errorf("%s: output\n%s", c.path, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", c.path, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out, w) {
				t.Errorf("%s: %q in\n%s", c.path, w, out)
			}
		}
		// --fail-on-violation: exit 3 on a refuted claim, 0 on a generous one.
		if code, _, _ := cli(t, "estimate", c.path, "--claim-epsilon", "0.5", "--os-family", "none", "--fail-on-violation"); code != exitViolation {
			t.Errorf("%s: exit %d with a refuted claim, want 3", c.path, code)
		}
		if code, out, _ := cli(t, "estimate", c.path, "--claim-epsilon", "50", "--os-family", "none", "--fail-on-violation"); code != 0 || !strings.Contains(out, "no violation") {
			t.Errorf("%s: exit %d with ε = 50:\n%s", c.path, code, out)
		}
	}
}

func TestEstimateFormats(t *testing.T) {
	dir := t.TempDir()
	classic := writeScoresCSV(t, dir, "classic.csv", 0, 400, false, 2)
	code, out, errs := cli(t, "estimate", classic, "--format", "json", "--split-seed", "7", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON rows, want 2:\n%s", len(lines), out)
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &row); err != nil {
		t.Fatal(err)
	}
	if row["estimate"] != "eps_delta_cp" || row["split_seed"] != "7" || row["layout"] != "classic" || row["epsilon_claim"].(float64) < 0.1 {
		t.Errorf("row %v", row)
	}
	// The summary table is one row with the runner's column names.
	code, out, _ = cli(t, "estimate", classic, "--table", "summary", "--format", "csv")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(rows) != 2 || !strings.HasPrefix(rows[0], "audit_trials,audit_score,threshold_method,epsilon_lb,estimate_family") {
		t.Errorf("summary csv (exit %d):\n%s", code, out)
	}
	// Standard input.
	src, _ := os.ReadFile(classic)
	stdinReader = strings.NewReader(string(src))
	defer func() { stdinReader = os.Stdin }()
	code, out2, _ := cli(t, "estimate", "-", "--table", "summary", "--format", "csv")
	if code != 0 || out2 != out {
		t.Errorf("stdin (exit %d) differs from the file:\n%s\n%s", code, out2, out)
	}
}

// Bad input is exit 2 with a message naming the problem, and nothing on
// stdout.
func TestEstimateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	ok := writeScoresCSV(t, dir, "ok.csv", 0, 20, false, 1)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{write("misspelt.csv", "membr,score\n1,0\n0,1\n")}, `no column "member" for the member (the file has: membr, score)`},
		{[]string{write("nan.csv", "member,score\n1,0\n0,NaN\n1,2\n")}, "line 3: score is NaN"},
		{[]string{write("text.csv", "member,score\n1,0\n0,x\n")}, `text.csv:3: column score (score): "x" is not a number`},
		{[]string{write("one.csv", "member,score\n1,0\n1,1\n")}, "no non-members"},
		{[]string{write("dup.csv", "member,score,canary\n1,0,a\n0,1,b\n1,2,a\n")}, `duplicate canary id "a" (line 2 and line 4)`},
		{[]string{write("ragged.csv", "member,score\n1,0\n0,1,2\n")}, "ragged.csv:3: the row has 3 fields, the header has 2"},
		{[]string{write("user.csv", "member,score,user\n1,0,u\n0,1,u\n1,2,v\n0,3,w\n"), "--group", "user", "--aggregate", "max"}, `user "u" has records on both sides`},
		{[]string{ok, "--group", "user"}, "--group user needs --aggregate"},
		{[]string{ok, "--aggregate", "max"}, "--aggregate needs --group user"},
		{[]string{ok, "--group", "user", "--aggregate", "median"}, "unknown aggregation"},
		{[]string{ok, "--group", "user", "--aggregate", "max"}, "per-user aggregation needs a user column"},
		{[]string{ok, "--claim-epsilon", "1", "--noise-multiplier", "1", "--sampling-rate", "0.1", "--steps", "10"}, "not both"},
		{[]string{ok, "--noise-multiplier", "1"}, "a mechanism claim needs"},
		{[]string{ok, "--threshold", "best"}, "--threshold must be"},
		{[]string{ok, "--format", "xml"}, "--format must be"},
		{[]string{ok, "--confidence", "1"}, "confidence must be in (0, 1)"},
		{[]string{filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{ok, ok}, "takes one score table"},
		{[]string{ok, "--split-seed", "3", "--point-key", "abc"}, "not both"},
		{[]string{ok, "--filter", "repeat"}, "--filter wants COLUMN=VALUE"},
		{[]string{ok, "--sequential", "always", "--claim-epsilon", "1"}, "--sequential must be profile or epsilon"},
		{[]string{ok, "--sequential", "epsilon"}, "--sequential tests a claim"},
		{[]string{ok, "--sequential", "epsilon", "--claim-epsilon", "1", "--first-look", "5"}, "the first look must be ≥ 20"},
		{[]string{ok, "--sequential", "epsilon", "--claim-epsilon", "1", "--first-look", "100", "--budget", "200"}, "fewer than the first look's 100 trials"},
		{[]string{ok, "--sequential", "epsilon", "--claim-epsilon", "1", "--first-look", "100"}, "the budget (20 trials) is below the first look (100)"},
		{[]string{write("canaries.csv", "member,score,canary\n1,0,a\n0,1,b\n1,2,c\n0,3,d\n"), "--sequential", "epsilon", "--claim-epsilon", "1"}, "needs independent trials in trial order"},
	}
	for i, c := range cases {
		// With --results too: bad input publishes nothing.
		res := filepath.Join(dir, fmt.Sprintf("results-%d", i))
		args := append([]string{"estimate"}, c.args...)
		if !slices.Contains(c.args, "--sequential") {
			args = append(args, "--results", res)
		}
		code, out, errs := cli(t, args...)
		if code != exitInput || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
		if _, err := os.Stat(res); err == nil {
			t.Errorf("%v: published %s", c.args, res)
		}
	}
}
