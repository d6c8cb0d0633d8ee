package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/internal/npy"
	"github.com/dpaudit/dpaudit/internal/parquetio"
	"github.com/dpaudit/dpaudit/rng"
)

// scoresForPlan plays the user's trainer and scorer: members score
// N(shift, 1), the others N(0, 1); rows in a shuffled order. edit may
// change the rows (canary, member bit or "" for no member column, score)
// before they are written.
func scoresForPlan(t *testing.T, plan, out string, shift float64, withMember bool, edit func(rows [][3]string) [][3]string) string {
	t.Helper()
	p, err := planfile.Read(plan)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(2, "test", "plan-scores")
	rows := make([][3]string, len(p.IDs))
	for j, id := range p.IDs {
		s := r.NormFloat64()
		bit := "0"
		if p.Member[j] {
			s += shift
			bit = "1"
		}
		rows[j] = [3]string{id, bit, fmt.Sprint(s)}
	}
	r.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
	if edit != nil {
		rows = edit(rows)
	}
	var b strings.Builder
	if withMember {
		b.WriteString("canary,member,score\n")
	} else {
		b.WriteString("canary,score\n")
	}
	for _, row := range rows {
		if withMember {
			fmt.Fprintf(&b, "%s,%s,%s\n", row[0], row[1], row[2])
		} else {
			fmt.Fprintf(&b, "%s,%s\n", row[0], row[2])
		}
	}
	os.WriteFile(out, []byte(b.String()), 0o644)
	return out
}

func TestCanariesMakeAndEstimate(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.parquet")
	code, out, errs := cli(t, "canaries", "make", "--crafter", "mislabeled_record", "--dataset", "digits", "--count", "400", "--seed", "3", "--out", plan)
	if code != 0 || !strings.Contains(out, "400 mislabeled_record canaries") || !strings.Contains(out, "plan digest") {
		t.Fatalf("make: exit %d: %s%s", code, out, errs)
	}
	// Never overwritten.
	if code, _, errs := cli(t, "canaries", "make", "--crafter", "noise_input", "--shape", "4", "--num-classes", "2", "--count", "10", "--out", plan); code != exitInput || !strings.Contains(errs, "never overwritten") {
		t.Errorf("overwrite: exit %d: %s", code, errs)
	}
	// Scores without a member column take the plan's bits; with one, it
	// must agree. The row order does not matter.
	a := scoresForPlan(t, plan, filepath.Join(dir, "a.csv"), 3, false, nil)
	b := scoresForPlan(t, plan, filepath.Join(dir, "b.csv"), 3, true, func(rows [][3]string) [][3]string {
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
		return rows
	})
	var outs []string
	for _, s := range []string{a, b} {
		code, out, errs := cli(t, "estimate", "--plan", plan, s, "--claim-epsilon", "0.5", "--format", "csv")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || !strings.Contains(outs[0], "one_run,true") || !strings.Contains(outs[0], ",true,") {
		t.Errorf("the two orders differ or no one-run estimate:\n%s\n%s", outs[0], outs[1])
	}
	code, out, _ = cli(t, "estimate", "--plan", plan, a)
	if code != 0 || !strings.Contains(out, "plan:       "+plan+" — 400 mislabeled_record canaries") || !strings.Contains(out, "layout:     one_run") {
		t.Errorf("header:\n%s", out)
	}
}

// A table that disagrees with its plan is refused (exit 2, nothing on
// stdout), and so is an edited plan.
func TestEstimatePlanRefusesMixUps(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.parquet")
	if code, _, errs := cli(t, "canaries", "make", "--crafter", "noise_input", "--shape", "1,4,4", "--num-classes", "3", "--count", "50", "--seed", "1", "--out", plan); code != 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		name   string
		member bool
		edit   func([][3]string) [][3]string
		want   string
	}{
		{"missing", false, func(r [][3]string) [][3]string { return r[1:] }, "1 of the plan's 50 canaries are not scored"},
		{"extra", false, func(r [][3]string) [][3]string { return append(r, [3]string{"50", "1", "0.5"}) }, `scores canary "50", which is not in the plan`},
		{"duplicate", false, func(r [][3]string) [][3]string { return append(r, r[0]) }, "duplicate canary id"},
		{"flipped", true, func(r [][3]string) [][3]string {
			if r[3][1] == "1" {
				r[3][1] = "0"
			} else {
				r[3][1] = "1"
			}
			return r
		}, "the table's membership bits disagree with the plan"},
	}
	for _, c := range cases {
		s := scoresForPlan(t, plan, filepath.Join(dir, c.name+".csv"), 2, c.member, c.edit)
		code, out, errs := cli(t, "estimate", "--plan", plan, s)
		if code != exitInput || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", c.name, code, out, errs, c.want)
		}
	}
	good := scoresForPlan(t, plan, filepath.Join(dir, "good.csv"), 2, false, nil)
	os.WriteFile(filepath.Join(dir, "nocanary.csv"), []byte("member,score\n1,0\n0,1\n"), 0o644)
	other := filepath.Join(dir, "other.parquet")
	cli(t, "canaries", "make", "--crafter", "noise_input", "--shape", "1,4,4", "--num-classes", "3", "--count", "50", "--seed", "2", "--out", other)
	raw, _ := os.ReadFile(other)
	tampered := filepath.Join(dir, "tampered.parquet")
	os.WriteFile(tampered, raw, 0o644)
	manifest, _ := os.ReadFile(planfile.ManifestPath(plan))
	os.WriteFile(planfile.ManifestPath(tampered), manifest, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--plan", plan, filepath.Join(dir, "nocanary.csv")}, `no column "canary"`},
		{[]string{"--plan", tampered, good}, "changed since the plan was made"},
		{[]string{"--plan", filepath.Join(dir, "none.parquet"), good}, "manifest beside it"},
		{[]string{"--plan", plan, good, "--group", "user", "--aggregate", "max"}, "--group does not go with --plan"},
	} {
		code, out, errs := cli(t, append([]string{"estimate"}, c.args...)...)
		if code != exitInput || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.want)
		}
	}
}

func TestCanariesMakeBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.parquet")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--crafter", "static_poison", "--count", "5", "--out", out}, "--crafter must be"},
		{[]string{"--crafter", "gradient_canary", "--count", "5", "--out", out}, "--parameters"},
		{[]string{"--crafter", "gradient_canary", "--count", "5", "--parameters", "4", "--out", out}, "5 gradient canaries need as many parameters"},
		{[]string{"--crafter", "random_record", "--count", "5", "--out", out}, "give --dataset"},
		{[]string{"--crafter", "random_record", "--dataset", "digits", "--count", "5000", "--out", out}, "5000 canaries, but there are"},
		{[]string{"--crafter", "noise_input", "--count", "5", "--out", out}, "needs --shape"},
		{[]string{"--crafter", "noise_input", "--count", "5"}, "needs --crafter, --count ≥ 1 and --out"},
		{[]string{"--crafter", "noise_input", "--dataset", "nosuch", "--count", "5", "--out", out}, "nosuch"},
	} {
		code, stdout, errs := cli(t, append([]string{"canaries", "make"}, c.args...)...)
		if code != exitInput || stdout != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, stdout, errs, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", c.args, out)
		}
	}
	// A gradient plan.
	if code, stdout, errs := cli(t, "canaries", "make", "--crafter", "gradient_canary", "--parameters", "7850", "--count", "1000", "--out", out); code != 0 || !strings.Contains(stdout, "1000 gradient_canary canaries") {
		t.Errorf("gradient plan: exit %d: %s%s", code, stdout, errs)
	}
}

// A plan from the user's own data (--from-dataset: a spec whose dataset
// block names the file) with its arrays as .npy: the manifest records the
// file's SHA-256; the .npy files, read back by a reader that is not
// numpy (internal/npy), hold the plan's canaries row for row — x as
// [m, C, H, W] float32 equal to the Parquet x, labels, and the bits — and
// scores written for those canaries join the plan in dpaudit estimate.
func TestCanariesFromDatasetNPYRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs("../../examples/own-data/digits.csv")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "data.yaml")
	os.WriteFile(spec, []byte("name: my-data\ndataset: {source: file, path: "+data+", label: label, max_value: 16, shape: [1, 8, 8]}\n"), 0o644)
	plan := filepath.Join(dir, "plan.parquet")
	code, out, errs := cli(t, "canaries", "make", "--crafter", "random_record", "--count", "300", "--seed", "5", "--from-dataset", spec, "--npy", "--out", plan)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "plan.x.npy: float32 [300 1 8 8]") {
		t.Errorf("output does not name the x array:\n%s", out)
	}
	p, err := planfile.Read(plan)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(data)
	files, _ := p.Manifest.Data["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["sha256"] != fmt.Sprintf("%x", sha256.Sum256(raw)) {
		t.Errorf("the manifest's data files %v do not carry digits.csv's SHA-256", p.Manifest.Data["files"])
	}
	x, err := npy.ReadFile(planfile.NPYPath(plan, "x"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(x.Shape) != "[300 1 8 8]" {
		t.Fatalf("x shape %v", x.Shape)
	}
	xs, _ := npy.Float32s(x)
	labels, err := npy.ReadFile(planfile.NPYPath(plan, "label"))
	if err != nil {
		t.Fatal(err)
	}
	ys, _ := npy.Int64s(labels)
	bits, err := npy.ReadFile(planfile.NPYPath(plan, "member"))
	if err != nil {
		t.Fatal(err)
	}
	// Row j is the pool record source_index[j] of the user's file, with
	// its label; the records are distinct.
	pf, err := parquetio.Open(plan)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	src, err := pf.Read(pf.Index("source_index"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := dpaudit.LoadSpecDataset(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	pool := d.Split.Test
	seen := map[int64]bool{}
	for j := range 300 {
		i := src.Ints[j]
		if seen[i] {
			t.Fatalf("record %d drawn twice", i)
		}
		seen[i] = true
		if !slices.Equal(xs[j*64:(j+1)*64], pool.X[int(i)*64:(int(i)+1)*64]) || ys[j] != int64(pool.Y[i]) {
			t.Fatalf("canary %d: the .npy row is not pool record %d", j, i)
		}
		if b := bits.Data.([]bool)[j]; b != p.Member[j] {
			t.Fatalf("canary %d: .npy member %v, plan %v", j, b, p.Member[j])
		}
	}
	scores := scoresForPlan(t, plan, filepath.Join(dir, "scores.csv"), 2, false, nil)
	code, out, errs = cli(t, "estimate", "--plan", plan, scores)
	if code != 0 || !strings.Contains(out, "every canary scored, bits as planned") {
		t.Fatalf("estimate --plan: exit %d: %s%s", code, out, errs)
	}
}

// --from-dataset with a bad spec or a missing data file is bad input:
// exit 2, and no plan file is written.
func TestCanariesFromDatasetBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"missing.yaml":   "name: x\ndataset: {source: file, path: nowhere.csv, label: label}\n",
		"nodataset.yaml": "name: x\n",
		"badlabel.yaml":  "name: x\ndataset: {source: file, path: " + mustAbs(t, "../../examples/own-data/digits.csv") + ", label: nosuchcolumn}\n",
	} {
		spec := filepath.Join(dir, name)
		os.WriteFile(spec, []byte(text), 0o644)
		plan := filepath.Join(dir, name+".parquet")
		code, out, errs := cli(t, "canaries", "make", "--crafter", "random_record", "--count", "10", "--from-dataset", spec, "--npy", "--out", plan)
		if code != 2 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %s", name, code, out, errs)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, name+"*")); len(left) != 1 {
			t.Errorf("%s: files written: %v", name, left)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
