package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const showSpec = `name: sd
dpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 100}
bound: [{kind: accountant, accountants: [gdp]}]
sweep:
  grid:
    dpsgd.noise_multiplier: [1, 2]
    dpsgd.steps: [100, 400]
`

func runShowSpec(t *testing.T, dir, results, body string) string {
	t.Helper()
	p := filepath.Join(dir, "sd.yaml")
	os.WriteFile(p, []byte(body), 0o644)
	if code, _, errs := cli(t, "run", p, "--store", filepath.Join(dir, "store"), "--results", results); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	return filepath.Join(results, "sd")
}

func TestShowFormatsWhereSort(t *testing.T) {
	dir := t.TempDir()
	res := runShowSpec(t, dir, filepath.Join(dir, "results"), showSpec)
	code, out, errs := cli(t, "show", res, "--format", "json", "--where", "steps == 400", "--sort", "-noise_multiplier")
	if code != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 rows, got %q", out)
	}
	var first map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	if first["noise_multiplier"] != 2.0 || first["steps"] != 400.0 {
		t.Errorf("first row %v, want σ = 2 (descending) at steps = 400", first)
	}
	_, out, _ = cli(t, "show", res, "--format", "csv", "--only-changed", "--where", "steps == 100")
	header := strings.Split(out, "\n")[0]
	if strings.Contains(header, "steps") || !strings.Contains(header, "noise_multiplier") {
		t.Errorf("--only-changed header %q: steps is constant there, σ is not", header)
	}
	_, out, _ = cli(t, "show", res, "--format", "md", "--columns", "steps")
	if !strings.HasPrefix(out, "| steps |\n|---:|") {
		t.Errorf("md: %q", out)
	}
	// steps = ceil(...) style integers are int64 columns.
	if code, _, errs := cli(t, "show", res, "--sort", "nope"); code != 2 || !strings.Contains(errs, "noise_multiplier") {
		t.Errorf("bad --sort: %d %q", code, errs)
	}
}

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	a := runShowSpec(t, dir, filepath.Join(dir, "a"), showSpec)
	b := runShowSpec(t, dir, filepath.Join(dir, "b"), showSpec)
	if code, out, _ := cli(t, "diff", a, b); code != 0 || !strings.Contains(out, "no differences") {
		t.Fatalf("equal folders: exit %d, %q", code, out)
	}
	c := runShowSpec(t, dir, filepath.Join(dir, "c"), strings.Replace(showSpec, "[100, 400]", "[100, 401]", 1))
	code, out, _ := cli(t, "diff", a, c)
	if code != 1 {
		t.Errorf("different folders: exit %d, want 1", code)
	}
	for _, want := range []string{"steps=400", "only in " + a, "steps=401", "only in " + c} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	d := runShowSpec(t, dir, filepath.Join(dir, "d"), strings.Replace(showSpec, "[gdp]}", "[gdp], epsilon: 1}", 1))
	_, out, _ = cli(t, "diff", a, d)
	if !strings.Contains(out, "column delta_gdp: only in") {
		t.Errorf("diff output lacks the new column:\n%s", out)
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli(t, "report", dir); code != 2 || !strings.Contains(errs, "manifest.json") {
		t.Errorf("report of an empty folder: exit %d, %q; want 2 naming what is missing", code, errs)
	}
	res := runShowSpec(t, dir, filepath.Join(dir, "results"), showSpec+`report:
  figures:
    - {kind: scatter, name: eps, x: noise_multiplier, y: [epsilon_gdp], color: steps, formats: [svg, pdf]}
`)
	os.Remove(filepath.Join(res, "summary.parquet"))
	if code, _, errs := cli(t, "report", res); code != 2 || !strings.Contains(errs, "summary.parquet") {
		t.Errorf("report without a summary: exit %d, %q", code, errs)
	}
	res = runShowSpec(t, dir, filepath.Join(dir, "results"), showSpec+`report:
  figures:
    - {kind: scatter, name: eps, x: noise_multiplier, y: [epsilon_gdp], color: steps, formats: [svg, pdf]}
`)
	code, out, errs := cli(t, "report", res)
	if code != 0 || !strings.Contains(out, "1 figure(s) drawn") {
		t.Fatalf("report: %d %q %q", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(res, "figures", "eps.pdf"))
	if err != nil || !strings.HasPrefix(string(b), "%PDF") {
		t.Errorf("no PDF: %v", err)
	}
	if _, err := os.Stat(filepath.Join(res, "figures", "eps.png")); !os.IsNotExist(err) {
		t.Errorf("a PNG was drawn though formats has none")
	}
}
