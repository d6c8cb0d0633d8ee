package scores

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/stagestest"
)

// writeTable writes a small classic score table and returns its path.
func writeTable(t *testing.T, dir, name, header string, rows int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d,%g\n", i%2, float64(i%2)+float64(i%7)/7)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func specBody(source string) string {
	return `name: s
seed: 2
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 1}
audit: {source: {` + source + `}}
`
}

// One node per point; its key holds the table's digest, not its path, so
// an edited table is another node and a renamed one the same.
func TestCompileKeysOnDigest(t *testing.T) {
	dir := t.TempDir()
	a := writeTable(t, dir, "a.csv", "member,score", 40)
	key := func(path string) string {
		c := stagestest.Compile(t, specBody("scores: "+path), Game)
		nodes := stagestest.Nodes(c, kind)
		if len(nodes) != 1 {
			t.Fatalf("%d %s nodes, want 1", len(nodes), kind)
		}
		b, _ := json.Marshal(nodes[0].Params)
		return string(b)
	}
	k1 := key(a)
	b := filepath.Join(dir, "b.csv")
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	if k2 := key(b); k2 != k1 {
		t.Errorf("renaming the table changed the node's params:\n%s\n%s", k1, k2)
	}
	writeTable(t, dir, "b.csv", "member,score", 42)
	if k3 := key(b); k3 == k1 {
		t.Error("a table with other rows has the same params")
	}
}

// Bad input is found when the spec is compiled, at the key that names
// the file: a missing file, a column that is not there (named with the
// columns that are), a table with one class.
func TestCompileErrorsArePositioned(t *testing.T) {
	dir := t.TempDir()
	good := writeTable(t, dir, "good.csv", "member,score", 40)
	oneClass := filepath.Join(dir, "one.csv")
	os.WriteFile(oneClass, []byte("member,score\n1,0.5\n1,0.7\n1,0.1\n"), 0o644)
	for _, c := range []struct{ source, path, want string }{
		{"scores: " + filepath.Join(dir, "missing.csv"), "audit.source.scores", "missing.csv"},
		{"scores: " + good + ", score_column: loss", "audit.source.scores", `"loss"`},
		{"scores: " + oneClass, "audit.source.scores", "non-member"},
		{"scores: " + good + ", plan: " + filepath.Join(dir, "plan.parquet"), "audit.source.plan", "plan.parquet"},
	} {
		_, err := stagestest.CompileErr(t, specBody(c.source), Game)
		var pe *stages.PathError
		if !errors.As(err, &pe) || pe.Path != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a PathError at %s mentioning %s", c.source, err, c.path, c.want)
		}
	}
}

// The declared columns cover what every layout writes, so a figure may
// name any of them.
func TestColumnsCoverLayouts(t *testing.T) {
	for _, name := range []string{"epsilon_lb", "gdp_mu", "one_run_epsilon_lb", "one_run_os_claim_p_value", "per_step_mu_lb",
		"split_seed", "layout", "scores_file", "scores_sha256", "familywise", "violation_p_value"} {
		found := false
		for _, c := range Columns {
			found = found || c == name
		}
		if !found {
			t.Errorf("column %s is not declared", name)
		}
	}
}

// Only this game's rows are its violations.
func TestViolations(t *testing.T) {
	sum := stagestest.Summary(t, map[string][]any{
		"violation":          {true, true, false},
		"scores_sha256":      {"abc", nil, "def"},
		"scores_file":        {"a.csv", nil, "b.csv"},
		"epsilon_lb":         {3.0, 4.0, 1.0},
		"epsilon_accountant": {1.0, 1.0, 1.0},
	})
	vs, err := violations(sum)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].PointIndex != 0 || !strings.Contains(vs[0].Message, "a.csv") {
		t.Fatalf("violations %+v, want row 0's only", vs)
	}
}
